#pragma once
// Model comparison by PSIS-LOO, as R's loo_compare() (loo 2.5.1) does it: models ordered best
// first by elpd_loo (ties keep the input order, as R's order()), and against the best one
//   elpd_diff_k = sum_i (elpd_loo_ki - elpd_loo_best,i),
//   se_diff_k   = sqrt(N) sd_i(elpd_loo_ki - elpd_loo_best,i)     (sample sd, N - 1),
// the paired difference over the same rows, which is far smaller than either model's own se when
// the models agree on which rows are hard. And stacking weights (Yao, Vehtari, Simpson and Gelman
// 2018, loo_model_weights(method = "stacking")): the w on the simplex that maximize
//   sum_i log sum_k w_k exp(elpd_loo_ki).
#include <Eigen/Core>
#include <vector>

namespace bvi::diagnostics {

struct ComparedModel {
  Eigen::Index index = 0;  // the model's position in the input
  double elpd_diff = 0, se_diff = 0;
};

// elpd: rows x models, every model's pointwise elpd_loo on the same rows. Returns the models best
// first. Throws std::invalid_argument for fewer than 2 models or no rows.
std::vector<ComparedModel> loo_compare(const Eigen::Ref<const Eigen::MatrixXd>& elpd);

// The stacking weights, one per model in input order (they sum to 1). A convex problem solved by
// Newton steps on the softmax parameters to a gradient of 1e-12 relative.
Eigen::VectorXd stacking_weights(const Eigen::Ref<const Eigen::MatrixXd>& elpd);

}  // namespace bvi::diagnostics
