#pragma once
// A model built from the config and the shape of its data: the parameter layout (alpha, beta,
// the likelihood's own parameters, the declared ones, then per grouping factor F the group sds
// sd_F and correlations L_F, then every group's effects r_F), one prior term per parameter (the
// group effects' prior being their normal or multivariate normal given sd_F and L_F), the
// likelihood. It writes its log density on the AD tape for S draws at once; the sum over data
// rows is LogJoint's business.
//
// Group-level parameters, per factor F with G groups (levels) and K effects per group (the
// varying intercept first, then the slopes):
//   r_F   G K reals, level-major: column offset + g K + k; CSV names r_F.g.k (1-based); labels
//         "F[level]:(Intercept)", "F[level]:x";
//   sd_F  K positive (log transform), sd_F.k, labels "F: sd((Intercept))";
//   L_F   when correlated and K >= 2: K (K - 1) / 2 free entries of the Cholesky factor of the
//         correlation matrix (the cholesky_corr block transform: canonical partial correlations
//         through tanh, Stan's log-Jacobian); outputs show the correlations Omega_ij, i > j, as
//         cor_F.i.j (output_values, to_output).
// r_F | sd_F ~ Normal(0, sd_F[k]) entry by entry, or r_F[g] | sd_F, L_F ~ MVN(0, diag(sd) L L^T
// diag(sd)) per group; L_F ~ lkj_corr_cholesky(eta) (/model/priors/cor_F).
#include <functional>
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
  // A prior at the feature means: on x + beta M instead of x (alpha's on the intercept there,
  // alpha + means . beta; the cutpoints' on c_k - means . beta). M is beta's size x the term's.
  bool centered = false;
  Eigen::MatrixXd centered_matrix;
};

// The prior of one factor's group effects, and of its correlations.
struct GroupPrior {
  Index r_offset = 0, sd_offset = 0;
  Index L_offset = -1;  // -1: independent effects
  Index groups = 0, effects = 0;
  double eta = 1.0;  // LKJ shape
};

// A population-level term's columns among beta's.
struct TermColumns {
  std::string text;  // as data.features writes it
  Index first = 0, count = 0;
};

// A grouping factor as the model sees it.
struct GroupShape {
  std::string ident, label;
  std::vector<std::string> levels;   // the groups
  std::vector<std::string> effects;  // "(Intercept)", the slope columns
  bool correlated = true;
  Index groups() const { return static_cast<Index>(levels.size()); }
  Index effects_count() const { return static_cast<Index>(effects.size()); }
  bool has_correlations() const { return correlated && effects.size() >= 2; }
};

// What the model needs to know of its data.
struct ModelShape {
  std::vector<std::string> features;  // beta's columns
  std::vector<TermColumns> terms;     // for beta[TERM] priors (empty: none allowed)
  std::vector<GroupShape> groups;
  Eigen::VectorXd column_means;  // of beta's columns, for a centered intercept prior (empty: 0)
  // The ordinal likelihoods' number of categories K (the cutpoints are K - 1); 0: unknown, or
  // not ordinal (then 2 is assumed: the fewest there can be).
  Index response_levels = 0;
  // Their labels in order (/data/levels), response_levels of them, naming the cutpoints
  // ("poor|fair"); empty: categories 1 ... K ("1|2").
  std::vector<std::string> response_level_names;
  static ModelShape plain(std::vector<std::string> features) {
    ModelShape s;
    s.features = std::move(features);
    return s;
  }
};

class Model {
 public:
  // Throws config errors (78) for a missing prior, hyperparameters that fit no parameter, priors
  // whose support does not match the parameter's constraint, and priors that depend on each other
  // in a cycle.
  static Model build(const spec::ModelConfig& config, const ModelShape& shape,
                     const LikelihoodOptions& options = {});
  static Model build(const spec::ModelConfig& config, const std::vector<std::string>& feature_names,
                     const LikelihoodOptions& options = {}) {
    return build(config, ModelShape::plain(feature_names), options);
  }

  const ParameterLayout& layout() const { return layout_; }
  Index dim() const { return layout_.dim(); }
  const Likelihood& likelihood() const { return *likelihood_; }
  const std::vector<GroupPrior>& group_priors() const { return group_priors_; }
  // Per column, the column of the log sd that scales it in its prior (a group effect's sd_F.k),
  // or -1: where a start puts each group effect's scale at its group's sd.
  std::vector<Index> group_scale_columns() const;
  // Where a start puts the group sds: for a likelihood whose scale is y's sd on eta's scale
  // (Likelihood::scale_on_eta) every group log sd at that scale's start in `mean` (lme4 starts
  // its relative covariance factor, sd / sigma, at 1); else they stay (sd 1 on a link's scale).
  // From sd 1 a response in the thousands kept its group sd near 1 (the effects' prior holds them
  // at 0, the funnel) and the residual sd took the groups' spread: 1.3 where it is 490.
  void start_group_scales(Eigen::VectorXd& mean) const;
  // Per column, the largest move of q's mean per iteration: 1 where the column is a log or logit
  // scale (a transformed constraint; an ordered block's gaps, not its first entry), infinity
  // elsewhere.
  Eigen::VectorXd max_mean_step() const;

  // The constrained draws for unconstrained ones; sets *log_jacobian (S x 1) to the log
  // |det d constrained / d unconstrained| of each draw when any parameter is constrained (and
  // leaves it empty otherwise).
  ad::Var constrain(const ad::Var& theta, ad::Var* log_jacobian) const;
  // The same, values only (correlation blocks as L's free entries: the model's own scale).
  Eigen::MatrixXd constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& theta) const;
  // ... into `out`, resized only when its shape differs (for loops that run every step).
  void constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::MatrixXd& out) const;
  // Per-draw log prior density (S x 1) of constrained draws, every constant included.
  ad::Var log_prior(const ad::Var& params) const;
  // The prior terms (indexes into prior_terms()) over a block transform's columns (the ordinal
  // likelihoods' cutpoints), whose density is no function of each column alone, and the log density
  // of the given terms only (S x 1; zeros for none).
  std::vector<std::size_t> block_prior_terms() const;
  // The Monte Carlo sparse step's Hessian-vector products per draw: one per coordinate that is no
  // group effect, and one per effect of each group prior (inference/sparse/hessian_probes.hpp).
  Index sparse_probes() const;
  ad::Var log_prior_terms(const ad::Var& params, const std::vector<std::size_t>& terms) const;

  // The prior terms, one per parameter block in layout order, and each column's transform
  // (for the exact method, which takes each term's expectation its own way).
  const std::vector<PriorTerm>& prior_terms() const { return priors_; }
  const std::vector<ad::ColumnTransform>& transforms() const { return transforms_; }
  // beta's column means (a centered prior is at them: PriorTerm::centered) and where beta sits.
  const Eigen::VectorXd& column_means() const { return column_means_; }
  Index beta_offset() const { return beta_offset_; }
  // Outputs: constrained values with every correlation block as Omega's entries (cor_F.i.j).
  Eigen::MatrixXd output_values(const Eigen::Ref<const Eigen::MatrixXd>& theta) const;
  // Of the columns [first, first + n) only (S x n), which must hold every block they touch whole.
  Eigen::MatrixXd output_values(const Eigen::Ref<const Eigen::MatrixXd>& theta, Index first, Index n) const;
  // The same from those columns alone: `columns` are theta's columns [first, first + columns.cols()).
  Eigen::MatrixXd output_columns(const Eigen::Ref<const Eigen::MatrixXd>& columns, Index first) const;
  void to_output(Eigen::Ref<Eigen::MatrixXd> constrained) const;
  // The same for the columns from `first` on (the blocks outside them are left out).
  void to_output(Eigen::Ref<Eigen::MatrixXd> constrained, Index first) const;
  // eval's input (outputs' scale) to the model's constrained scale; `where(row)` names a row for
  // the data error (65) thrown when a correlation block is no correlation matrix.
  Eigen::MatrixXd from_output(const Eigen::Ref<const Eigen::MatrixXd>& points,
                              const std::function<std::string(Index)>& where) const;
  // A gradient on the model's constrained scale (`internal`: its points) made a gradient with
  // respect to the outputs' entries (Omega instead of L), in place.
  void gradient_to_output(const Eigen::Ref<const Eigen::MatrixXd>& internal,
                          Eigen::Ref<Eigen::MatrixXd> grad) const;
  bool has_correlations() const;

 private:
  ParameterLayout layout_;
  std::vector<ad::ColumnTransform> transforms_;  // one per column
  ad::Var prior_term_density(const ad::Var& params, const PriorTerm& term) const;
  std::vector<PriorTerm> priors_;
  std::vector<GroupPrior> group_priors_;
  Eigen::VectorXd column_means_;  // for the centered priors
  Index beta_offset_ = 0, beta_size_ = 0;
  std::shared_ptr<const Likelihood> likelihood_;
};

}  // namespace bvi::models
