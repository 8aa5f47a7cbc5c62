#pragma once
// A model built from the config and the data's columns: the parameter layout, one prior term per
// parameter, the likelihood. It knows how to write its log density on the AD tape for S draws at
// once; the sum over data rows is LogJoint's business.
#include <memory>
#include <string>
#include <vector>

#include "inference/ad/var.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/parameter_layout.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

struct PriorTerm {
  const PriorFamily* family = nullptr;
  Index offset = 0, size = 0;              // the parameter's columns
  std::vector<Eigen::RowVectorXd> hypers;  // each 1 x 1 or 1 x size, in the family's order
};

class Model {
 public:
  // Throws config errors (78) for hyperparameter arrays whose length fits no parameter.
  static Model build(const spec::ModelConfig& config, const std::vector<std::string>& feature_names,
                     const LikelihoodOptions& options = {});

  const ParameterLayout& layout() const { return layout_; }
  Index dim() const { return layout_.dim(); }
  const Likelihood& likelihood() const { return *likelihood_; }

  // The constrained draws for unconstrained ones. Adds log |d constrained / d unconstrained| per
  // draw to *log_jacobian (an S x 1 Var) when given. Every parameter is unconstrained for now.
  ad::Var constrain(const ad::Var& theta, ad::Var* log_jacobian) const;
  // Per-draw log prior density (S x 1) of constrained draws, every constant included.
  ad::Var log_prior(const ad::Var& params) const;

 private:
  ParameterLayout layout_;
  std::vector<PriorTerm> priors_;
  std::shared_ptr<const Likelihood> likelihood_;
};

}  // namespace bvi::models
