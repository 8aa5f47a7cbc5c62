#pragma once
// The prior part of the exact expected log joint, E_q[log p(theta) + log-Jacobian], term by term,
// each the exact way its form allows:
//   closed form  numeric hyperparameters on an unconstrained parameter, when the family has one
//                (normal, laplace): PriorFamily::gaussian_expectation;
//   quadrature   other numeric-hyperparameter terms, and every constrained column's Jacobian:
//                each coordinate's density depends on that coordinate alone, whose q-marginal is
//                N(m_j, Sigma_jj), so one Gauss–Hermite grid zeta_kj = m_j + sd_j z_k evaluates all
//                of a term's coordinates at once (on the AD tape, which gives the derivatives);
//                the number of points doubles until halving it changes the value by < 1e-12;
//   hierarchical normal  x ~ normal(loc, c * t1 * ... * tm) with loc a number or a real parameter
//                and the t's positive parameters (log scale): with u = log t1 + ... + log tm,
//                (x - loc, u) is bivariate normal under q and
//                E[(x - loc)^2 e^{-2u}] = e^{-2 E u + 2 Var u} ((E(x - loc) - 2 Cov(x - loc, u))^2 + Var(x -
//                loc)), closed form (the exponential tilt), for meanfield and fullrank alike;
//   sample average  anything else with parameters as hyperparameters: the mean over K draws
//                zeta_k = m + L eps_k with eps fixed for the whole run (DADVI, Giordano, Ingram
//                & Broderick 2023), so the objective stays deterministic; these terms never touch
//                the data, so K can be large.
// Gradients: dE/dmean and G = dE/dSigma (diagonal for meanfield, plus the off-diagonal entries of
// the hierarchical terms kept sparse for Hessian-vector products; dense for fullrank).
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "inference/ad/ops/constrain.hpp"
#include "inference/ad/tape.hpp"
#include "inference/exact/expected_log_density.hpp"
#include "models/correlated_tilt.hpp"
#include "models/model.hpp"

namespace bvi::models {

class ExpectedPrior {
 public:
  // `sample_draws`: K for the sample-average terms.
  // `left_out`: prior terms (indexes into model.prior_terms()) whose density the caller samples with
  // the likelihood (the Monte Carlo sparse step: Model::block_prior_terms, whose density no
  // per-coordinate grid takes); their columns' Jacobian stays here.
  ExpectedPrior(const Model& model, std::uint64_t seed, Index sample_draws = 2000,
                const std::vector<std::size_t>& left_out = {});

  // Adds E and, with `grad`, its gradient into *grad; returns E.
  double evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  // Meanfield: adds (d^2 E / dmean^2) d, from the last evaluate() with a gradient (the sample
  // average terms' share estimated by Stein's identity from their own draws).
  void hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) const;
  // For the structured family: each group effect r_F[g, k] with independent effects (a
  // hierarchical-normal entry under the single scale sd_F[k]) has log sd_F[k] as its parent; -1
  // elsewhere. Two effects with one parent never share a row (one level per factor per row).
  const std::vector<Index>& parents() const { return parent_; }
  // The Monte Carlo standard error of the sample-average terms (0 when there are none).
  double value_se() const { return se_; }
  bool exact() const { return sampled_.empty(); }
  // How each parameter's prior term is taken, for reports: "closed form", "quadrature",
  // "sample average (K fixed draws)"; a constrained parameter whose prior is not by quadrature
  // has a second entry for its Jacobian.
  std::vector<std::pair<std::string, std::string>> methods() const;
  // For the memory estimate (inference/memory_estimate.hpp): the draws of the sample-average
  // terms, and the columns each such term reads under this family (a correlated factor under
  // meanfield: its sds and correlations alone, its effects being exact).
  Index sample_draws() const { return sample_draws_; }
  std::vector<Index> sampled_widths(bool dense) const;

 private:
  struct Closed {
    const PriorTerm* term;
  };
  struct Grid {
    const PriorTerm* term;  // null: the Jacobian alone
    Index offset, size;
    std::vector<ad::ColumnTransform> transforms;
    bool constrained;
    int points = 16;
  };
  struct Scale {
    Index offset, size;
    Index loc_offset = -1, loc_size = 0;          // -1: numeric loc
    Eigen::RowVectorXd loc;                       // numeric loc (1 or size entries)
    Eigen::RowVectorXd factor;                    // c (1 or size entries)
    std::vector<std::pair<Index, Index>> scales;  // (offset, size) of each log-scale factor
    // Group effects r_F (G K entries, level-major) under sd_F (K): entry j's scale is
    // scales[.].offset + j % period. 0: entry j's is offset + j (or offset, for size 1).
    Index period = 0;
  };
  // A prior on a fixed linear combination c = w . theta: alpha's prior on the intercept at the
  // column means, alpha + means . beta. c is normal under q, so its expectation is one 1-D
  // integral (closed form or quadrature); its covariance gradient is rank one, dE/dv w w'.
  struct Combo {
    const PriorTerm* term;
    Index column = 0;                               // the term's column it is the prior of
    std::vector<std::pair<Index, double>> weights;  // (column, w_j)
    double d_var = 0.0;                             // meanfield: dE/dv at the last gradient, for hessian_times
  };
  // A factor's correlated effects r_g ~ MVN(0, diag(sd) L L' diag(sd)) with L ~ LKJ(eta), under
  // meanfield: given psi = (sd, L), sum_g E log MVN(r_g) depends on r only through
  // M = sum_g (m_g m_g' + diag(s_g^2)), so it is exact in r (the pseudo-groups chol(M) through the
  // same density op) and a sample average over fixed draws of psi alone (dimension K(K+1)/2).
  struct Correlated {
    const GroupPrior* group;
    std::vector<ad::ColumnTransform> sd_transforms, L_transforms;
    Eigen::MatrixXd xi;      // fixed standard normals, draws x (K + K(K-1)/2)
    Eigen::MatrixXd A;       // E[Sigma(psi)^-1] at the last gradient
  };
  // A factor's two correlated effects (K = 2: a varying intercept and slope, `(1 + x | g)`)
  // under sd = exp(u) and LKJ(eta) with rho = tanh(y): W = Sigma(psi)^-1 has entries
  // e^{-u_k - u_l} times cosh^2 y or -sinh y cosh y, which are sums of exponentials of linear
  // forms in (u1, u2, y), so E[r_g' W r_g] is a sum of Gaussian tilts (closed form for any q),
  // and the rest, -J log det L + log LKJ + the Jacobian = (J - 2 eta) log cosh y - log c_2(eta),
  // one Gauss–Hermite integral in y: the whole term exact (expected_correlated_pair.cpp).
  struct CorrelatedPair {
    const GroupPrior* group;
    int points = 16;
  };
  // The same for three to CorrelatedTilt::kMaxEffects correlated effects: r' W r's terms built
  // at setup for that K (models/correlated_tilt.hpp).
  struct CorrelatedBlock {
    const GroupPrior* group;
    CorrelatedTilt tilt;
    int points = 16;
  };
  struct Sampled {
    const PriorTerm* term;       // a prior term, or
    const GroupPrior* group = nullptr;  // a factor's correlated effects (fullrank)
    std::vector<Index> columns;                   // the term's and its hyperparameters' columns, sorted
    std::vector<ad::ColumnTransform> transforms;  // theirs
    Eigen::MatrixXd eps;                          // K x |columns| (meanfield) or K x P (fullrank)
    Eigen::MatrixXd adj;                          // the last gradient draws, K x |columns| (scaled 1/K)
    Eigen::VectorXd sd;                           // meanfield: the columns' sd at that point
    std::vector<std::vector<ad::ColumnTransform>> block_transforms;  // a group term's, kept for the tape
  };
  struct OffDiagonal {
    Index i, k;
    double g;  // G_ik for the ordered pair (i, k), i != k
  };

  double grid_value(const Grid& g, const vi::GaussianQ& q, int points, vi::ExpectationGradient* grad);
  double scale_value(const Scale& s, const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  double sampled_value(Sampled& s, const vi::GaussianQ& q, vi::ExpectationGradient* grad,
                       Eigen::MatrixXd* lbar);
  double combo_value(Combo& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  double correlated_value(Correlated& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  double pair_value(CorrelatedPair& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  double block_value(CorrelatedBlock& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  // Adds g to G_ik (ordered pair): meanfield keeps the diagonal in d_var and the rest here.
  void add_cov(vi::ExpectationGradient* grad, bool dense, Index i, Index k, double g);

  const Model& model_;
  std::uint64_t seed_;
  Index sample_draws_;
  std::vector<Closed> closed_;
  std::vector<Grid> grids_;
  std::vector<Scale> scales_;
  std::vector<Sampled> sampled_;
  std::vector<const PriorTerm*> left_out_;
  std::vector<Combo> combos_;
  std::vector<Correlated> correlated_;  // meanfield's way with correlated factors (sampled_ holds fullrank's)
  std::vector<CorrelatedPair> pairs_;   // correlated factors of two effects, exact for every family
  std::vector<CorrelatedBlock> blocks_;  // of three or more (up to CorrelatedTilt::kMaxEffects), exact too
  ad::Tape tape_;
  Eigen::MatrixXd z_, z_adj_;
  Eigen::VectorXd d_var_;                  // meanfield: the prior's diagonal G at the last gradient
  std::vector<OffDiagonal> off_diagonal_;  // meanfield: its off-diagonal entries
  double se_ = 0.0;
  std::vector<Index> parent_;
  Eigen::VectorXd buf_m_, buf_v_, buf_val_, buf_dm_, buf_dv_;
  vi::ExpectationGradient grid_grad_;  // a grid term's gradient before its point count is final
};

}  // namespace bvi::models
