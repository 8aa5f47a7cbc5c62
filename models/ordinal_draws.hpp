#pragma once
// The ordinal likelihoods' draws as predict (category probabilities), loo and kfold (log p(y_i |
// theta_s)) use them: the cutpoints draw by draw, the link, K, and the linear predictor of every
// likelihood (no intercept: the cutpoints take its place). A category's log probability is the
// fit's own kernel, ad::detail::ordinal_term: log(F(c_k - eta) - F(c_{k-1} - eta)) with its
// tails written so that no difference of two probabilities near 0 or 1 loses its digits.
#include <Eigen/Core>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "inference/ad/ops/ordinal_kernel.hpp"
#include "models/draw_predictors.hpp"
#include "models/fit_result.hpp"
#include "models/prediction.hpp"

namespace bvi::models {

struct OrdinalDraws {
  ad::detail::OrdinalLink link = ad::detail::OrdinalLink::logit;
  Eigen::Index c0 = -1;  // the draws' first cutpoints column
  int K = 0;             // categories: the K - 1 cutpoints and one
  Eigen::MatrixXd cut;   // (K - 1) x S: the cutpoints draw by draw, contiguous
  DrawPredictors predictors;

  // Config error 78 for a likelihood that is not ordinal; std::logic_error when the draws lack
  // the cutpoints.
  OrdinalDraws(const FitResult& fit, Eigen::Index features)
      : link(link_of(fit)), predictors(fit, linear_family(), features) {
    Eigen::Index J = 0;
    for (std::size_t j = 0; j < fit.names.size(); ++j)
      if (fit.names[j].compare(0, 10, "cutpoints.") == 0) {
        if (c0 < 0) c0 = static_cast<Eigen::Index>(j);
        ++J;
      }
    if (c0 < 0) throw std::logic_error("the draws have no cutpoints");
    K = static_cast<int>(J + 1);
    cut = fit.draws.middleCols(c0, J).transpose();
  }

  Eigen::Index draws() const { return cut.cols(); }

  // log P(y = k0 + 1 | theta_s) for category k0 (0-based) and linear predictor eta of draw s.
  double log_prob(int k0, Eigen::Index s, double eta) const {
    return ad::detail::ordinal_term(link, k0, K, cut.col(s).data(), 1, eta, nullptr, nullptr, nullptr);
  }

  // out[s] = log P(y | theta_s) for the block's row i (eta from predictors.block, plus `offset`),
  // y in 1 ... K; std::logic_error for a y outside (the rows' reader has refused it).
  void log_prob_row(const Eigen::MatrixXd& eta, Eigen::Index i, double y, double offset, double* out) const {
    const int k0 = static_cast<int>(y) - 1;
    if (!(k0 >= 0 && k0 < K) || static_cast<double>(k0 + 1) != y)
      throw std::logic_error("ordinal response " + std::to_string(y) + " outside 1 ... " + std::to_string(K));
    for (Eigen::Index s = 0; s < draws(); ++s) out[s] = log_prob(k0, s, eta(s, i) + offset);
  }

  static ad::detail::OrdinalLink link_of(const FitResult& fit) {
    if (fit.likelihood == "ordinal_logit") return ad::detail::OrdinalLink::logit;
    if (fit.likelihood == "ordinal_probit") return ad::detail::OrdinalLink::probit;
    throw config_error("/model/likelihood", "'" + fit.likelihood + "' is not an ordinal likelihood");
  }

 private:
  // The linear predictors as every likelihood's (no alpha column: DrawPredictors gives zeros).
  static PredictFamily linear_family() {
    bool ok = false;
    return PredictFamily::named("bernoulli_logit", &ok);
  }
};

}  // namespace bvi::models
