#pragma once
// A model built from the config and the data's columns: the parameter layout (alpha, beta, the
// likelihood's own parameters, then the declared ones), one prior term per parameter, the
// likelihood. It writes its log density on the AD tape for S draws at once; the sum over data
// rows is LogJoint's business.
#include <memory>
#include <string>
#include <vector>

#include "inference/ad/var.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/parameter_layout.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

// A hyperparameter: a constant row (1 x 1 or 1 x K), or factor times a product of parameters
// (each 1 or K entries), evaluated per draw: a hierarchical prior.
struct HyperTerm {
  Eigen::RowVectorXd constant;
  double factor = 1.0;
  std::vector<Index> offsets, sizes;  // the referenced parameters' columns
  bool is_expression() const { return !offsets.empty(); }
};

struct PriorTerm {
  const PriorFamily* family = nullptr;
  Index offset = 0, size = 0;  // the parameter's columns
  std::vector<HyperTerm> hypers;  // in the family's order
};

class Model {
 public:
  // Throws config errors (78) for hyperparameters that fit no parameter, priors whose support
  // does not match the parameter's constraint, and priors that depend on each other in a cycle.
  static Model build(const spec::ModelConfig& config, const std::vector<std::string>& feature_names,
                     const LikelihoodOptions& options = {});

  const ParameterLayout& layout() const { return layout_; }
  Index dim() const { return layout_.dim(); }
  const Likelihood& likelihood() const { return *likelihood_; }

  // The constrained draws for unconstrained ones; sets *log_jacobian (S x 1) to the log
  // |det d constrained / d unconstrained| of each draw when any parameter is constrained (and
  // leaves it empty otherwise).
  ad::Var constrain(const ad::Var& theta, ad::Var* log_jacobian) const;
  // The same, values only.
  Eigen::MatrixXd constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& theta) const;
  // Per-draw log prior density (S x 1) of constrained draws, every constant included.
  ad::Var log_prior(const ad::Var& params) const;

  // The prior terms, one per parameter block in layout order, and each column's transform
  // (for the exact method, which takes each term's expectation its own way).
  const std::vector<PriorTerm>& prior_terms() const { return priors_; }
  const std::vector<ad::ColumnTransform>& transforms() const { return transforms_; }

 private:
  ParameterLayout layout_;
  std::vector<ad::ColumnTransform> transforms_;  // one per column
  std::vector<PriorTerm> priors_;
  std::shared_ptr<const Likelihood> likelihood_;
};

}  // namespace bvi::models
