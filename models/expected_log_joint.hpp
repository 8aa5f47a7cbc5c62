#pragma once
// The exact expected log joint of a model under a Gaussian q: the data part
// (ExpectedLikelihood, one pass over the rows) plus the prior and Jacobian part (ExpectedPrior,
// no data), as the exact method's vi::ExpectedLogDensity.
#include <cstdint>

#include "inference/exact/expected_log_density.hpp"
#include "models/expected_likelihood.hpp"
#include "models/expected_prior.hpp"
#include "models/sparse_pattern.hpp"

namespace bvi::models {

template <class T>
class ExpectedLogJoint final : public vi::ExpectedLogDensity {
 public:
  ExpectedLogJoint(const Model& model, DataView<T> data, reduce::ChunkReducer& reducer, std::uint64_t seed)
      : model_(model), data_(data), comm_(reducer.comm()), likelihood_(model, data, reducer), prior_(model, seed) {}

  Index dim() const override { return model_.dim(); }
  double evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad) override {
    if (grad) grad->reset_for(q);
    return likelihood_.evaluate(q, grad) + prior_.evaluate(q, grad);
  }
  void hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) override {
    out.setZero(d.size());
    likelihood_.hessian_times(d, out);
    prior_.hessian_times(d, out);
  }
  std::vector<Index> parents() const override { return prior_.parents(); }
  std::vector<Index> scale_columns() const override { return model_.group_scale_columns(); }
  // The pattern, when the caller made it already (make_block_pattern).
  void set_sparse_pattern(std::shared_ptr<const vi::BlockPattern> pattern) { pattern_ = std::move(pattern); }
  std::shared_ptr<const vi::BlockPattern> sparse_pattern() override {
    if (!pattern_) pattern_ = make_block_pattern(model_, data_, comm_);
    return pattern_;
  }
  long passes() const override { return likelihood_.passes(); }
  double value_se() const override { return prior_.value_se(); }
  const ExpectedPrior& prior() const { return prior_; }
  Eigen::VectorXd initial_mean() { return likelihood_.initial_mean(); }

 private:
  const Model& model_;
  DataView<T> data_;
  reduce::Communicator& comm_;
  std::shared_ptr<const vi::BlockPattern> pattern_;
  ExpectedLikelihood<T> likelihood_;
  ExpectedPrior prior_;
};

}  // namespace bvi::models
