#include "inference/diagnostics/loo_compare.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace bvi::diagnostics {

std::vector<ComparedModel> loo_compare(const Eigen::Ref<const Eigen::MatrixXd>& elpd) {
  const Eigen::Index N = elpd.rows(), K = elpd.cols();
  if (K < 2) throw std::invalid_argument("loo_compare: at least two models are needed");
  if (N < 1) throw std::invalid_argument("loo_compare: no rows");
  std::vector<double> total(static_cast<std::size_t>(K));
  for (Eigen::Index k = 0; k < K; ++k) total[static_cast<std::size_t>(k)] = elpd.col(k).sum();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(K));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&total](Eigen::Index a, Eigen::Index b) {
    return total[static_cast<std::size_t>(a)] > total[static_cast<std::size_t>(b)];
  });
  const Eigen::Index best = order.front();
  std::vector<ComparedModel> out;
  for (const Eigen::Index k : order) {
    ComparedModel m;
    m.index = k;
    if (k != best) {
      const Eigen::VectorXd d = elpd.col(k) - elpd.col(best);
      const double mean = d.mean();
      m.elpd_diff = d.sum();
      m.se_diff = N > 1 ? std::sqrt(static_cast<double>(N) * (d.array() - mean).square().sum() /
                                    static_cast<double>(N - 1))
                        : std::nan("");
    }
    out.push_back(m);
  }
  return out;
}

namespace {

// sum_i log sum_k w_k e_ik, with e_ik = exp(elpd_ik - max_k elpd_ik) (a row's shift adds a
// constant to the score and leaves the weights alone).
double stacking_score(const Eigen::MatrixXd& e, const Eigen::VectorXd& w) {
  return (e * w).array().log().sum();
}

}  // namespace

Eigen::VectorXd stacking_weights(const Eigen::Ref<const Eigen::MatrixXd>& elpd) {
  const Eigen::Index N = elpd.rows(), K = elpd.cols();
  if (K < 2) throw std::invalid_argument("stacking_weights: at least two models are needed");
  if (N < 1) throw std::invalid_argument("stacking_weights: no rows");
  Eigen::MatrixXd e(N, K);
  for (Eigen::Index i = 0; i < N; ++i) e.row(i) = (elpd.row(i).array() - elpd.row(i).maxCoeff()).exp();
  Eigen::VectorXd w = Eigen::VectorXd::Constant(K, 1.0 / static_cast<double>(K));
  // The EM update of mixture weights, w_k <- w_k mean_i e_ik / (e_i . w): monotone, and the
  // score is concave in w, so it approaches the maximum (and a weight that belongs at 0 goes there).
  for (int it = 0; it < 5000; ++it) {
    const Eigen::VectorXd s = e * w;
    const Eigen::VectorXd next = w.cwiseProduct(e.transpose() * s.cwiseInverse()) / static_cast<double>(N);
    const double change = (next - w).cwiseAbs().maxCoeff();
    w = next / next.sum();
    if (change < 1e-13) break;
  }
  // Newton steps on the models with weight, along the simplex (sum of the steps 0): the EM's
  // linear convergence leaves digits that the quadratic steps recover.
  std::vector<Eigen::Index> active;
  for (Eigen::Index k = 0; k < K; ++k)
    if (w[k] > 1e-9) active.push_back(k);
  const auto A = static_cast<Eigen::Index>(active.size());
  if (A >= 2) {
    Eigen::MatrixXd ea(N, A);
    for (Eigen::Index a = 0; a < A; ++a) ea.col(a) = e.col(active[static_cast<std::size_t>(a)]);
    Eigen::VectorXd wa(A);
    for (Eigen::Index a = 0; a < A; ++a) wa[a] = w[active[static_cast<std::size_t>(a)]];
    wa /= wa.sum();
    for (int it = 0; it < 50; ++it) {
      const Eigen::VectorXd s = ea * wa;
      const Eigen::MatrixXd es = s.cwiseInverse().asDiagonal() * ea;  // e_ik / s_i
      const Eigen::VectorXd g = es.colwise().sum().transpose();
      const Eigen::MatrixXd H = -es.transpose() * es;
      // KKT system of max g.dw + dw' H dw / 2 subject to sum(dw) = 0.
      Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(A + 1, A + 1);
      kkt.topLeftCorner(A, A) = H;
      kkt.block(0, A, A, 1).setOnes();
      kkt.block(A, 0, 1, A).setOnes();
      Eigen::VectorXd rhs = Eigen::VectorXd::Zero(A + 1);
      rhs.head(A) = -g;
      const Eigen::VectorXd sol = kkt.fullPivLu().solve(rhs);
      Eigen::VectorXd dw = sol.head(A);
      dw.array() -= dw.mean();
      // Stay inside the simplex, and only ever improve the score.
      double t = 1.0;
      for (Eigen::Index a = 0; a < A; ++a)
        if (dw[a] < 0) t = std::min(t, 0.9 * wa[a] / -dw[a]);
      const double before = stacking_score(ea, wa);
      Eigen::VectorXd trial = wa + t * dw;
      while (t > 1e-12 && !(stacking_score(ea, trial) >= before)) {
        t *= 0.5;
        trial = wa + t * dw;
      }
      if (!(stacking_score(ea, trial) >= before)) break;
      wa = trial / trial.sum();
      if ((t * dw).cwiseAbs().maxCoeff() < 1e-15) break;
    }
    w.setZero();
    for (Eigen::Index a = 0; a < A; ++a) w[active[static_cast<std::size_t>(a)]] = wa[a];
  }
  return w / w.sum();
}

}  // namespace bvi::diagnostics
