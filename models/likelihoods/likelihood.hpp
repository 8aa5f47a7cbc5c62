#pragma once
// An observation model as one self-contained piece: what responses it accepts, and the per-draw
// log likelihood of a block of rows on the AD tape. Adding a likelihood means adding one
// implementation of this interface and one entry in make_likelihood.cpp (its name, its own
// parameters, the data columns it reads, its constructor); the config schema lists the name.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "inference/ad/ops/glm_rows.hpp"
#include "inference/ad/var.hpp"
#include "inference/quadrature/gaussian_expectation.hpp"
#include "models/data/group_data.hpp"
#include "models/parameter_layout.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

// The response's pooled moments, weighted by the rows' weights, from which the exact method takes
// its start (Likelihood::initial_eta).
struct ResponseMoments {
  double mean = 0.0;                                                // of y
  double log_mean = std::numeric_limits<double>::quiet_NaN();       // of log y; NaN when some y <= 0
  double log_half_mean = std::numeric_limits<double>::quiet_NaN();  // of log(y + 1/2); NaN when some y < -1/2
};

// The intercept-only fit's linear predictor through the log link, for initial_eta (NaN for a mean
// <= 0: every count 0 leaves the start at 0).
namespace start {
inline double log_link(double mean) {
  return mean > 0.0 ? std::log(mean) : std::numeric_limits<double>::quiet_NaN();
}
// Counts: the lower of log(mean y) and mean log(y + 1/2). The first is the intercept-only fit, the
// second the log scale's own centre: where the predictors spread the rates over orders of
// magnitude the mean is the upper tail's (log mean y = 13 where the intercept is 3), and a rate
// too high costs exp(eta) per row where one too low costs y eta.
inline double count_log_link(const ResponseMoments& m) {
  const double a = log_link(m.mean);
  return std::isnan(m.log_half_mean) ? a : std::min(a, m.log_half_mean);
}
}  // namespace start

// A block of m consecutive data rows: features row-major (m x D), responses, and the columns
// some likelihoods read besides (null when the model has none).
template <class T>
struct DataBlock {
  const T* x = nullptr;
  const double* y = nullptr;
  Index rows = 0;
  Index cols = 0;
  const double* trials = nullptr;  // binomial: trials per row
  const double* offset = nullptr;  // added to the linear predictor: offset + log(exposure)
  // Each row's weight w_n: the block's log likelihood is sum_n w_n log p(y_n | eta_n) (null: every
  // w_n = 1, and the unweighted code runs). Every likelihood's log_lik honours it.
  const double* weight = nullptr;
  // The likelihood's per-row data-only terms (Likelihood::log_constants), when the caller
  // computed them once; null: log_lik computes them itself.
  const double* log_constant = nullptr;
  // The grouping factors (whole local arrays) and where this block starts in them: row n of the
  // block is local row first_local + n of each factor's `level` and `slopes`.
  const data::GroupData<T>* groups = nullptr;
  int n_groups = 0;
  Index first_local = 0;
  // A chunk's own columns (models/chunk_columns.hpp), when not null: the params hold each factor
  // f's effects for local_groups[f] levels only, and row n's level in that numbering is
  // local_level[f][first_local + n] (group_term_columns in models/likelihoods/linear_predictor.hpp).
  const std::int32_t* const* local_level = nullptr;
  const Index* local_groups = nullptr;
};

// Under a Gaussian q the linear predictor of row i, offset included, is eta_i ~ N(mean_i, var_i):
// the moments the exact expected log likelihood is a function of.
struct EtaMoments {
  const double* mean = nullptr;
  const double* var = nullptr;
  Index rows = 0;
  // A likelihood with its own scale parameter (normal's sigma, sampled as u = log sigma): u's
  // mean and variance under q and Cov(eta_i, u) per row (null: independent, as under meanfield).
  double u_mean = 0.0, u_var = 0.0;
  const double* cov_u = nullptr;

  // Var(eta_i | u) for c = Cov(eta_i, u) and u's sd s: var_i - c^2 / s^2, or var_i itself when
  // s = 0 (c is then 0, and c^2 / s^2 would be 0 / 0), for the likelihoods whose quadrature
  // conditions eta on u.
  double var_given_u(Index i, double c, double s) const {
    return std::max(0.0, s > 0.0 ? var[i] - c * (c / (s * s)) : var[i]);
  }
};

// E_q log p(y_i | eta_i) per row (every constant included) and its partial derivatives in the
// moments, each `rows` long: by Bonnet's and Price's theorems d/dmean = E[l'] and
// d/dvar = E[l'']/2, so -2 d_var is also the row's expected curvature.
struct RowExpectations {
  double* value = nullptr;
  double* d_mean = nullptr;
  double* d_var = nullptr;
  double* d_cov_u = nullptr;  // with a scale parameter: d/dCov(eta_i, u) (also when cov_u is null)
  // With a scale parameter, summed over the rows: d/du_mean and d/du_var.
  double d_u_mean = 0.0, d_u_var = 0.0;
};

// Row weights under the exact method: E_q[w_i log p] = w_i E_q log p, so the caller multiplies
// each row's value, d_mean, d_var and d_cov_u by w_i after Likelihood::expected_log_lik (nothing
// without weights). The summed d_u_mean and d_u_var are the likelihood's own: it weights each
// row's term by ad::row_weight(rows, i).
inline void weight_row_expectations(const ad::GlmRows& rows, RowExpectations& out) {
  if (!rows.weight) return;
  for (Index i = 0; i < rows.rows; ++i) {
    const double w = rows.weight[i];
    out.value[i] *= w;
    out.d_mean[i] *= w;
    out.d_var[i] *= w;
    if (out.d_cov_u) out.d_cov_u[i] *= w;
  }
}

// What the response is, for reports (`check`): 0/1, counts, real numbers, or positive ones
// (lognormal, gamma_log: reported on the log scale too).
enum class ResponseKind { binary, count, real, positive, ordinal, categorical };

// The largest category an ordinal response may take (K at most this; /data/levels at most this long).
inline constexpr int kMaxOrdinalLevels = 1000;

class Likelihood {
 public:
  virtual ~Likelihood() = default;
  virtual std::string name() const = 0;
  virtual ResponseKind response_kind() const = 0;
  // "" when y is a valid response, else why not ("response must be 0 or 1, got 2").
  virtual std::string check_response(double y) const = 0;
  // The same against the row's number of trials (binomial: y <= trials); called only for
  // likelihoods that read a trials column, after both values passed their own checks.
  virtual std::string check_response(double /*y*/, double /*trials*/) const { return ""; }
  // Writes the per-row terms of the log density that depend on the data alone (binomial's
  // log C(n, y), poisson's -log y!) for `rows` rows and returns true; false (writing nothing)
  // when there are none. The log joint computes them once per dataset, so a pass over the rows
  // spends no lgamma on them.
  virtual bool log_constants(const double* /*y*/, const double* /*trials*/, Index /*rows*/,
                             double* /*out*/) const {
    return false;
  }
  // Per-draw log likelihood of the block, S x 1, with every constant. `params` holds the S draws
  // of all parameters on the constrained scale, in the layout's columns.
  virtual ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const = 0;
  virtual ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const = 0;

  // The exact expectation of each row's log likelihood under eta_i ~ N(mean_i, var_i) (closed
  // form or Gauss–Hermite quadrature, accurate to ~1e-12 relative), for rows of at most
  // quadrature::ExpectationScratch::kRows; `rows.y` etc. are those rows' data, `rows.offset` is
  // already in `eta.mean`. Adds nothing to d_u_mean / d_u_var without a scale parameter; with
  // one, each row's term there is multiplied by ad::row_weight(rows, i) (the per-row outputs are
  // left unweighted: weight_row_expectations does those).
  virtual void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                                quadrature::ExpectationScratch& scratch) const = 0;
  // Each row's second derivative in its linear predictor, out(s, n) = d^2 [w_n log p(y_n | eta_n)]
  // / d eta_n^2 at draw s (S x m, the row weight included), for the S constrained draws in
  // `params` (S x P) and the block's rows, and true; false, writing nothing, for a likelihood
  // without it (categorical_logit's rows have K - 1 linear predictors). With it the Monte Carlo
  // method's sparse family takes crossed grouping factors: the Hessian's entry between two
  // factors' effects sums it over the rows the two levels share (models/crossed_curvature.hpp).
  // `eta` is the caller's scratch. Both keep at least m columns and grow only (a chunk's short last
  // block reallocates nothing): the block's values are their first m columns.
  virtual bool has_eta_curvature() const { return false; }
  virtual bool eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& /*params*/, const DataBlock<double>& /*block*/,
                             Eigen::MatrixXd& /*eta*/, Eigen::MatrixXd& /*out*/) const {
    return false;
  }
  virtual bool eta_curvature(const Eigen::Ref<const Eigen::MatrixXd>& /*params*/, const DataBlock<float>& /*block*/,
                             Eigen::MatrixXd& /*eta*/, Eigen::MatrixXd& /*out*/) const {
    return false;
  }
  // The column of the likelihood's own scale parameter (normal: sigma, whose unconstrained
  // coordinate is log sigma), or -1 when it has none. The exact method integrates over it with
  // eta; both methods start it at initial_scale (student_t's sigma too, which only the Monte Carlo
  // method fits).
  virtual Index scale_column() const { return -1; }
  // Sets the unconstrained starts of the likelihood's parameters that the response's moments do
  // not give (student_t's nu) in `mean`, for the Monte Carlo method's natural steps
  // (LogJoint::initial_mean); nothing by default.
  virtual void start_own_parameters(Eigen::VectorXd& /*mean*/) const {}
  // True when that scale is y's sd around eta on eta's own scale (normal, lognormal, student_t):
  // group effects, on that scale too, then start with their sds at its start (Model::start_group_scales).
  virtual bool scale_on_eta() const { return false; }
  // Where the exact method starts that scale's unconstrained coordinate, from the response's
  // pooled mean and variance: normal's log sd(y) by default.
  virtual double initial_scale(double /*y_mean*/, double y_var) const {
    return y_var > 0 ? 0.5 * std::log(y_var) : 0.0;
  }
  // True when log p(y | eta) depends on y and eta through y - eta alone (normal): the
  // exact method then hands expected_log_lik y - alpha and eta - alpha, alpha the intercept's
  // current mean, which changes nothing but the rounding (ExpectedLikelihood::location_).
  virtual bool location_family() const { return false; }
  // Where the exact method starts the intercept: at the response's centre on the link's scale (the
  // intercept-only fit's linear predictor, as IRLS starts a GLM), so that a response far from
  // the link's 0 (counts near 10^4, costs near 10^6, a mean near 10^8) costs no walk there; NaN
  // where the likelihood has none (the start stays 0). Offsets are the caller's business. The
  // logit and probit links have none: from 0 their first Newton step lands near the intercept
  // anyway, and measured starts at logit(mean y) took as many iterations or more.
  virtual double initial_eta(const ResponseMoments& /*moments*/) const {
    return std::numeric_limits<double>::quiet_NaN();
  }
};

struct LikelihoodOptions {
  bool fused = true;  // the hand-derived primitive; false: composed from the generic AD ops
};

// What a likelihood asks of the config besides alpha, beta and the response.
struct LikelihoodNeeds {
  // The parameters it brings into the model (the normal likelihood's sigma), declared as if the
  // config had listed them in /model/parameters.
  std::vector<spec::ParameterConfig> parameters;
  bool trials = false;  // reads data.trials (then required; an error for every other likelihood)
  bool offset = false;  // accepts data.offset and data.exposure
};
// Every likelihood there is, in the config reference's order.
std::vector<std::string> likelihood_names();
// For a name the config schema accepts; std::invalid_argument for any other.
const LikelihoodNeeds& likelihood_needs(const std::string& name);

// "" when the exact method can fit the likelihood (each row's expectation at most a 2-D integral),
// else why not: then `method: auto` resolves to monte_carlo and `exact` is a config error.
std::string exact_method_refusal(const std::string& name);

// likelihood_needs(name).parameters, or none for an unknown name (the schema reports those).
std::vector<spec::ParameterConfig> likelihood_parameters(const std::string& name);

// Builds the likelihood named in the config for the given parameter layout.
std::unique_ptr<Likelihood> make_likelihood(const std::string& name, const ParameterLayout& layout,
                                            const LikelihoodOptions& options);

}  // namespace bvi::models
