#pragma once
// Posterior predictive summaries of a fit for rows of data: for each row, the mean, sd and 5 % /
// 95 % quantiles over the approximation's draws of the expected response E[y | theta] (P(y = 1)
// for the Bernoulli likelihoods, the expected successes n p for binomial_logit, the expected
// count for poisson_log, alpha + x . beta for normal); for the non-binary likelihoods also the
// sd of the posterior predictive distribution of y itself,
//   sqrt( Var_s E[y | theta_s] + mean_s Var[y | theta_s] )     (the law of total variance,
// over the S draws, so normal's includes sigma); and, when the row's response is known, its log
// predictive density log( (1/S) sum_s p(y | theta_s) ) with every constant.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "models/data/row_matrix.hpp"
#include "models/fit_result.hpp"

namespace bvi::models {

struct Predictions {
  Eigen::VectorXd mean, sd, q05, q95;
  Eigen::VectorXd predictive_sd;  // empty for the binary likelihoods
  Eigen::VectorXd lpd;            // empty when no response was given
};

// One grouping factor's part of the rows' linear predictors: sum_k z_ik r[g(i), k], with r the
// fit's draws of r_F for the groups it knows, and for a new group effects drawn per draw from the
// population distribution the draw implies, N(0, diag(sd) Omega diag(sd)) (brms's
// allow_new_levels / sample_new_levels = "gaussian"): one draw per new group and posterior draw,
// shared by the rows of that group.
struct PredictGroupEffects {
  Eigen::Index r_column = 0;  // the draws' column of r_F.1.1
  Eigen::Index effects = 0;   // K
  bool intercept = true;
  const std::vector<std::int32_t>* level = nullptr;  // per row: a known group, or -(j + 1): new group j
  const data::RowMatrix<double>* slopes = nullptr;   // rows x slopes
  Eigen::MatrixXd new_effects;                       // draws x (new groups K), group j at columns j K ...
  // categorical_logit: the non-reference category (0 ... K - 2, as its linear predictors) these
  // effects enter, r_column that of r_F.k.1.1; -1 for the other likelihoods' single predictor.
  int category = -1;

  // eta.col(i) += rows r0 + i's effects z_k r_{level,k} for i < m, over eta.rows() draws: a known
  // group's from the fit's draws, a new group's from new_effects.
  void add_to(const Eigen::MatrixXd& draws, Eigen::Index r0, Eigen::Index m, Eigen::MatrixXd& eta) const {
    const Eigen::Index S = eta.rows();
    for (Eigen::Index i = 0; i < m; ++i) {
      const std::int32_t g = (*level)[static_cast<std::size_t>(r0 + i)];
      for (Eigen::Index k = 0; k < effects; ++k) {
        const Eigen::Index j = k - (intercept ? 1 : 0);
        const double z = j < 0 ? 1.0 : (*slopes)(r0 + i, j);
        if (g >= 0)
          eta.col(i) += z * draws.col(r_column + g * effects + k).head(S);
        else
          eta.col(i) += z * new_effects.col((-g - 1) * effects + k).head(S);
      }
    }
  }
};

// `x` holds the rows' features in the fit's order, already standardized as the fit was.
struct PredictRows {
  const data::RowMatrix<double>& x;
  const Eigen::VectorXd* y = nullptr;       // responses, when known
  const Eigen::VectorXd* trials = nullptr;  // binomial_logit: required
  const Eigen::VectorXd* offset = nullptr;  // offset + log exposure, when the fit had either
  std::vector<PredictGroupEffects> groups = {};
};

// The effects of `new_groups` new groups of the factor whose draws columns are sd_F.1 ... (K of
// them) and, when K >= 2 and correlated, cor_F.2.1 ... (Omega's entries; -1 when none): per draw
// s and group j, diag(sd_s) L_s z_sj with L_s the Cholesky factor of Omega_s and z_sj standard
// normal from the counter-based stream keyed by (seed, factor), so the same seed gives the same
// draws. draws x (new_groups K).
Eigen::MatrixXd draw_new_groups(const Eigen::MatrixXd& draws, Eigen::Index sd_column, Eigen::Index cor_column,
                                Eigen::Index effects, Eigen::Index new_groups, std::uint64_t seed,
                                int factor);

// Rows are processed in blocks on `threads` threads.
Predictions predict(const FitResult& fit, const PredictRows& rows, int threads);

// The likelihoods predict knows (predict throws config errors for others).
bool predict_supports(const std::string& likelihood);

}  // namespace bvi::models
