#pragma once
// Weakly informative default priors, as rstanarm and brms choose them, for the parameters the
// config gives no prior (README "Default priors"). With s_y = sd(y) for the normal likelihood,
// sd(log y) for lognormal and 1 for the others, and s_x the sd of a coefficient's design column (1 when that
// is 0):
//   beta_j  ~ normal(0, 2.5 s_y / s_x_j)
//   alpha   ~ student_t(3, m_y, 2.5 s_y) on the intercept at the column means (centered: true,
//             brms's Intercept), m_y = mean(y) for normal, mean(log y) for lognormal, 0 otherwise
//   sigma   ~ exponential(1 / s_y)
//   cutpoints_k ~ student_t(3, 0, 2.5) on the cutpoints at the column means, c_k - means . beta
//             (centered: true, brms's thresholds of the centred predictors)
//   sd_F    ~ half_student_t(3, 2.5 s_y)
//   cor_F   ~ lkj(1)
// The statistics are the whole dataset's (chunked sums in a fixed order: the same on every rank).
#include <Eigen/Core>

#include "models/model.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

struct DataScales {
  double y_mean = 0.0, y_sd = 1.0;  // of the response (normal), of log y (lognormal), else 0 and 1
  Eigen::VectorXd x_mean, x_sd;     // of the design columns
};

// Adds the missing priors to config.model.priors and to config.resolved (so `check --explain`
// prints them and the explained config makes the same model).
void fill_default_priors(spec::Config& config, const ModelShape& shape, const DataScales& scales);

}  // namespace bvi::models
