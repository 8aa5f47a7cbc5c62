#pragma once
// categorical_logit's draws per non-reference category, as predict (category probabilities), loo
// and kfold (log p(y_i | theta_s)) use them: for a block of rows, every category's linear
// predictor over the draws (one GEMM per category: eta_c = alpha_c + X beta_c^T, plus that
// category's group effects), then per row and draw either the softmax over the K categories or
// the log probability of one category, the reference's eta being 0.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/fit_result.hpp"
#include "models/prediction.hpp"

namespace bvi::models {

struct CategoryDraws {
  std::vector<Eigen::MatrixXd> beta;  // per non-reference category c: S x D
  Eigen::MatrixXd alpha;              // S x C (zeros without intercepts)
  int K = 0, ref = 1;
  const FitResult* fit = nullptr;

  // The first S draws of the columns alpha.k and beta.k.j for the C = K - 1 categories k != ref,
  // in category order; std::logic_error when the draws lack a beta.k.* column.
  CategoryDraws(const FitResult& fit_result, Eigen::Index S, Eigen::Index D, int categories, int reference)
      : K(categories), ref(reference), fit(&fit_result) {
    const Eigen::Index C = K - 1;
    alpha = Eigen::MatrixXd::Zero(S, C);
    for (int k = 1; k <= K; ++k) {
      if (k == ref) continue;
      const Eigen::Index c = static_cast<Eigen::Index>(beta.size());
      const Eigen::Index a = column_of("alpha." + std::to_string(k));
      if (a >= 0) alpha.col(c) = fit->draws.col(a).head(S);
      Eigen::MatrixXd b(S, D);
      for (Eigen::Index j = 0; j < D; ++j) {
        const Eigen::Index col = column_of("beta." + std::to_string(k) + "." + std::to_string(j + 1));
        if (col < 0) throw std::logic_error("the draws have no column beta." + std::to_string(k) + ".*");
        b.col(j) = fit->draws.col(col).head(S);
      }
      beta.push_back(std::move(b));
    }
  }

  Eigen::Index draws() const { return alpha.rows(); }

  // eta[c].leftCols(m) for rows [r0, r0 + m): eta holds C matrices of S rows and at least m columns.
  void linear_predictors(const PredictRows& rows, Eigen::Index r0, Eigen::Index m,
                         std::vector<Eigen::MatrixXd>& eta) const {
    for (std::size_t c = 0; c < beta.size(); ++c) {
      if (beta[c].cols() > 0)
        eta[c].leftCols(m).noalias() = beta[c] * rows.x.middleRows(r0, m).transpose();
      else
        eta[c].leftCols(m).setZero();
      eta[c].leftCols(m).colwise() += alpha.col(static_cast<Eigen::Index>(c));
    }
    // Each category's group effects: known groups' draws of r_F.k.l.e, new groups' population draws.
    for (const PredictGroupEffects& g : rows.groups) {
      if (g.category < 0 || g.category >= static_cast<int>(eta.size()))
        throw std::logic_error("categorical_logit group effects without their category");
      g.add_to(fit->draws, r0, m, eta[static_cast<std::size_t>(g.category)]);
    }
  }

  // prob(s, k - 1) = softmax_k(eta_s) for the block's row i (eta(k = ref) = 0), from eta[c] for the
  // C others; prob is S x K.
  void softmax(const std::vector<Eigen::MatrixXd>& eta, Eigen::Index i, Eigen::MatrixXd& prob) const {
    const Eigen::Index S = prob.rows();
    for (Eigen::Index s = 0; s < S; ++s) {
      double hi = 0.0;
      for (const auto& e : eta) hi = std::max(hi, e(s, i));
      double den = 0.0;
      Eigen::Index c = 0;
      for (int k = 1; k <= K; ++k) {
        const double v = k == ref ? std::exp(-hi) : std::exp(eta[static_cast<std::size_t>(c++)](s, i) - hi);
        prob(s, k - 1) = v;
        den += v;
      }
      prob.row(s) /= den;
    }
  }

  // out[s] = log softmax_y(eta_s) for the block's row i and category y in 1 ... K, s < S:
  //   eta_y - log sum_k e^{eta_k} = (eta_y - hi) - log(e^{-hi} + sum_c e^{eta_c - hi}),
  // hi = max(0, eta_c's), so den is in [1, K] (the fit's own kernel, ad::categorical_logit_glm).
  void log_prob(const std::vector<Eigen::MatrixXd>& eta, Eigen::Index i, int y, double* out) const {
    const Eigen::Index S = draws();
    // The category's slot among the C non-reference ones; -1 for the reference.
    const int slot = y == ref ? -1 : (y < ref ? y - 1 : y - 2);
    for (Eigen::Index s = 0; s < S; ++s) {
      double hi = 0.0;
      for (const auto& e : eta) hi = std::max(hi, e(s, i));
      double den = std::exp(-hi);
      for (const auto& e : eta) den += std::exp(e(s, i) - hi);
      const double top = slot < 0 ? -hi : eta[static_cast<std::size_t>(slot)](s, i) - hi;
      out[s] = top - std::log(den);
    }
  }

 private:
  Eigen::Index column_of(const std::string& name) const {
    for (std::size_t j = 0; j < fit->names.size(); ++j)
      if (fit->names[j] == name) return static_cast<Eigen::Index>(j);
    return -1;
  }
};

}  // namespace bvi::models
