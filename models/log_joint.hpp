#pragma once
// The batched ("vmapped") log joint: log p(data, theta) for S parameter draws at once, and its
// S x P gradient, summed over the data in fixed-size row blocks (memory O(S x block), not
// O(S x N)) through a ChunkReducer that makes the sum independent of threads and ranks. With
// grouping factors a chunk's gradient is over its own columns (models/chunk_columns.hpp): the
// levels its rows have, not every group.
#include <Eigen/Core>
#include <memory>
#include <vector>

#include "inference/ad/tape.hpp"
#include "inference/log_density.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "models/chunk_columns.hpp"
#include "models/data_view.hpp"
#include "models/model.hpp"

namespace bvi::models {

enum class Scale {
  unconstrained,  // theta on the unconstrained scale; the log-Jacobian of the transform is added
  constrained,    // parameters as the user sees them; no Jacobian (what `eval` reports)
};

struct LogJointOptions {
  Index max_batch = 256;  // draws per pass; larger requests are split, so memory stays bounded
  // false: the likelihood alone, without the prior and the Jacobian (the Monte Carlo method's sparse
  // step takes those in closed form, models/expected_prior.hpp), but for the prior terms listed in
  // `sampled_prior_terms` (Model::block_prior_terms, which have none).
  bool prior = true;
  std::vector<std::size_t> sampled_prior_terms;
};

template <class T>
class LogJoint final : public vi::LogDensity {
 public:
  LogJoint(const Model& model, DataView<T> data, reduce::ChunkReducer& reducer, LogJointOptions options = {});

  Index dim() const override { return model_.dim(); }
  const Model& model() const { return model_; }
  reduce::ChunkReducer& reducer() { return reducer_; }

  // lp(s) = log p(data, theta_s) (+ log-Jacobian on the unconstrained scale) for the S rows of
  // `theta` (S x P); with `grad`, also d lp(s) / d theta_s as row s of an S x P matrix.
  void evaluate(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                Eigen::MatrixXd* grad, Scale scale = Scale::unconstrained);

  std::vector<Index> scale_columns() const override { return model_.group_scale_columns(); }
  Eigen::VectorXd max_mean_step() const override { return model_.max_mean_step(); }
  // The origin but for the likelihood's own parameter (Likelihood::scale_column: sigma of normal,
  // lognormal and student_t, phi of negative_binomial_log and beta_logit, gamma_log's shape) where
  // the exact method starts it, initial_scale of the response's weighted mean and variance
  // (pooled_response.hpp), the group sds at sigma's start where sigma is on eta's scale
  // (normal, lognormal, student_t: Model::start_group_scales),
  // and what the likelihood sets itself (student_t's nu: Likelihood::start_own_parameters). From
  // sigma = 1 and the group sds at 1, a student_t response in the thousands kept its group sd at
  // 1.0 (simulated 490) and sigma took the groups' spread, under fullrank and sparse alike.
  Eigen::VectorXd initial_mean() override;

  // vi::LogDensity: the unconstrained scale, with the Jacobian.
  void log_density(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                   Eigen::MatrixXd* grad) override {
    evaluate(theta, lp, grad, Scale::unconstrained);
  }

 private:
  void evaluate_batch(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                      Eigen::MatrixXd* grad, Index grad_row, Scale scale);

  const Model& model_;
  DataView<T> data_;
  reduce::ChunkReducer& reducer_;
  LogJointOptions options_;
  ad::Tape head_tape_;                            // transforms and priors, once per batch
  std::vector<std::unique_ptr<ad::Tape>> tapes_;  // one per thread, for the row blocks
  Eigen::MatrixXd theta_buf_, grad_buf_;          // the batch, column-major S x P
  Eigen::VectorXd total_;                         // reduced [lp (S), d lik / d params (S x P)]
  Eigen::VectorXd log_constants_;                 // the likelihood's data-only terms per row, or empty
  // With grouping factors, each chunk's columns, made at the first gradient pass (an exact fit's
  // value-only passes never need them), and per thread its chunk's S x width values.
  std::unique_ptr<ChunkColumns> columns_;
  std::vector<Eigen::VectorXd> chunk_values_;
  Index group_effects_ = 0;                       // sum over grouping factors of K
};

extern template class LogJoint<double>;
extern template class LogJoint<float>;

}  // namespace bvi::models
