#include "inference/elbo.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace bvi::vi {

namespace {

bool draw_ok(const Eigen::VectorXd& lp, const Eigen::MatrixXd* grad, Eigen::Index s) {
  if (!std::isfinite(lp[s])) return false;
  return !grad || grad->row(s).allFinite();
}

// Redraw rounds per estimate: each round re-evaluates only the draws still bad.
constexpr int kMaxRounds = 10;

}  // namespace

long ElboEstimator::draw_and_evaluate(const Family& q, Eigen::Index S, rng::Purpose purpose,
                                      std::uint64_t step, bool with_grad, Eigen::Index first, Eigen::Index total,
                                      long redrawn_before) {
  const Eigen::Index P = q.dim();
  if (total < 0) total = S;
  eps_.resize(S, P);
  zeta_.resize(S, P);
  lp_.resize(S);
  rng::standard_normal(seed_, purpose, step, 0, static_cast<std::uint64_t>(first), eps_);
  q.transform(eps_, zeta_);
  Eigen::MatrixXd* grad = with_grad ? &grad_ : nullptr;
  density_.log_density(zeta_, lp_, grad);

  long redrawn = 0;
  for (int round = 1;; ++round) {
    std::vector<Eigen::Index> bad;
    for (Eigen::Index s = 0; s < S; ++s)
      if (!draw_ok(lp_, grad, s)) bad.push_back(s);
    if (bad.empty()) return redrawn;
    redrawn += static_cast<long>(bad.size());
    if (!q.is_finite())
      throw inference_error("/inference",
                            "the approximation has diverged (its parameters are no longer finite); "
                            "lower the learning rate or standardize the features");
    if (redrawn_before + redrawn > total || round > kMaxRounds)
      throw inference_error(
          "/inference", "the log density or its gradient is not finite at " + std::to_string(bad.size()) +
                            " of " + std::to_string(S) + " draws even after redrawing " +
                            std::to_string(redrawn_before + redrawn - static_cast<long>(bad.size())) +
                            "; the model may be ill-conditioned or misspecified (features on very different "
                            "scales? try data.standardize), or the step size is too large");
    // Only the bad draws are redrawn, each from its own coordinates in the stream: the result
    // does not depend on how the batch was split.
    const auto n = static_cast<Eigen::Index>(bad.size());
    Eigen::MatrixXd e(n, P), z(n, P), g;
    Eigen::VectorXd l(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      Eigen::MatrixXd row(1, P);
      rng::standard_normal(seed_, purpose, step, static_cast<std::uint64_t>(round),
                           static_cast<std::uint64_t>(first + bad[k]), row);
      e.row(k) = row;
    }
    q.transform(e, z);
    density_.log_density(z, l, with_grad ? &g : nullptr);
    for (Eigen::Index k = 0; k < n; ++k) {
      eps_.row(bad[k]) = e.row(k);
      zeta_.row(bad[k]) = z.row(k);
      lp_[bad[k]] = l[k];
      if (with_grad) grad_.row(bad[k]) = g.row(k);
    }
  }
}

ElboEstimate ElboEstimator::summarize(const Family& q, long redrawn) const {
  ElboEstimate e;
  const double n = static_cast<double>(lp_.size());
  const double mean = lp_.mean();
  e.value = mean + q.entropy();
  e.se = n > 1 ? std::sqrt((lp_.array() - mean).square().sum() / (n - 1) / n) : 0.0;
  e.redrawn = redrawn;
  return e;
}

ElboEstimate ElboEstimator::elbo(const Family& q, Eigen::Index draws, rng::Purpose purpose,
                                 std::uint64_t step) {
  return summarize(q, draw_and_evaluate(q, draws, purpose, step, false));
}

ElboEstimate ElboEstimator::draws(const Family& q, Eigen::Index draws, rng::Purpose purpose,
                                  std::uint64_t step, bool gradients) {
  const long redrawn = draw_and_evaluate(q, draws, purpose, step, gradients);
  return summarize(q, redrawn);
}

void ElboEstimator::draw_range(const Family& q, Eigen::Index first, Eigen::Index count, Eigen::Index total,
                               rng::Purpose purpose, std::uint64_t step, long* redrawn) {
  *redrawn += draw_and_evaluate(q, count, purpose, step, false, first, total, *redrawn);
}

ElboEstimate ElboEstimator::gradient(const Family& q, Eigen::Index draws, rng::Purpose purpose,
                                     std::uint64_t step, Eigen::VectorXd& grad) {
  const long redrawn = draw_and_evaluate(q, draws, purpose, step, true);
  q.elbo_gradient(eps_, grad_, grad);
  return summarize(q, redrawn);
}

}  // namespace bvi::vi
