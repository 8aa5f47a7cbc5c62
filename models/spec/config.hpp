#pragma once
// The typed, validated config (SPEC.md "The config file"). Produced by parse_config(); every
// default is filled in and every value has been range-checked against the schema tables.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/spec/schema.hpp"

namespace bvi::spec {

struct DataConfig {
  std::string csv;  // resolved path (relative paths are taken from the config's folder)
  std::string response;
  // The population-level terms: a column ("x"), or an interaction of columns ("x:sex"). Default:
  // every column but the response, the trials, offset and exposure columns and the grouping
  // columns.
  std::optional<std::vector<std::string>> features;
  // Numeric columns to read as categories (IDs); text columns are categorical anyway.
  std::vector<std::string> categorical;
  // Categorical columns whose population-level terms may have nearly one level per row
  // (models/design/many_levels.hpp).
  std::vector<std::string> allow_many_levels;
  // Per categorical column, the level to take as its reference (first) instead of the first in
  // sorted order (R's relevel).
  std::map<std::string, std::string> reference_levels;
  std::string missing = "error";  // "error" | "drop": rows with NA, empty or NaN cells in used columns
  bool standardize = false;
  std::string dtype = "float64";  // "float64" | "float32"
  // Columns some likelihoods read besides (binomial_logit: trials; poisson_log: offset, exposure).
  std::optional<std::string> trials, offset, exposure;
  // Non-negative row weights multiplying each row's log likelihood (every likelihood).
  std::optional<std::string> weights;
  // The ordinal likelihoods' categories in order, lowest first: the response column holds these
  // labels, read as category 1 ... K (K = their number). Empty: the response is integers 1 ... K.
  std::vector<std::string> levels;
};

// A hyperparameter as written: one number, one per coefficient, or a product of numbers and
// parameter names ("tau", "0.5 * tau * lambda": a hierarchical prior).
struct HyperValue {
  std::vector<double> values;      // numbers: size 1 (broadcast) or one per coefficient
  std::vector<std::string> names;  // an expression's parameter names (empty for numbers)
  double factor = 1.0;             // an expression's numeric factors, multiplied
  std::string pointer;             // where it was given, for messages
  bool is_expression() const { return !names.empty(); }
  static HyperValue numbers(std::vector<double> v, std::string at = "") {
    HyperValue h;
    h.values = std::move(v);
    h.pointer = std::move(at);
    return h;
  }
};

// A parameter declared in /model/parameters (beside alpha and beta).
struct ParameterConfig {
  std::string name;
  long long size = 1;          // ignored when size_is_features
  bool size_is_features = false;
  std::string constraint = "none";  // none | positive | unit_interval
  std::optional<double> lower, upper;
  std::string pointer;
};

struct PriorConfig {
  std::string family;                        // e.g. "normal"
  std::map<std::string, HyperValue> hypers;  // e.g. {"loc": ..., "scale": ...}
  std::string pointer;                       // "/model/priors/beta"
};

// A group-level term: varying intercept and slopes by a grouping factor.
struct GroupConfig {
  std::vector<std::string> by;     // the grouping column(s); several make a combined factor
  bool intercept = true;           // a varying intercept
  std::vector<std::string> terms;  // varying slopes: columns or interactions ("x", "x:z")
  bool correlated = true;          // correlated effects (an LKJ prior on their correlations)
  std::string label;               // "county", "school:class": the factor as outputs show it
  std::string ident;               // "county", "school_class": in parameter names (r_, sd_, L_)
  std::string pointer;             // "/model/groups/0"
  std::size_t formula_column = 0;  // where the formula wrote it (0: not from a formula)
};

// Where a name of the model was written, for errors: a formula column or a config pointer.
struct NamePlace {
  std::string pointer;             // e.g. "/data/features/2"
  std::size_t formula_column = 0;  // 1-based, when the model came from a formula
};

// ordinal_logit and ordinal_probit: K - 1 cutpoints take the intercept's place (brms's cumulative,
// stan_polr), so the model has no intercept parameter but its design is coded as if it had one.
inline bool has_cutpoints(const std::string& likelihood) {
  return likelihood == "ordinal_logit" || likelihood == "ordinal_probit";
}

// The value the first of /data/levels reads as: 0 for the binary likelihoods (their list is
// [failure, success]), 1 for the categorical ones (categories 1 ... K).
inline double first_level_value(const std::string& likelihood) {
  return likelihood == "bernoulli_logit" || likelihood == "bernoulli_probit" ? 0.0 : 1.0;
}

struct ModelConfig {
  std::string likelihood = "bernoulli_logit";
  bool intercept = false;
  std::vector<GroupConfig> groups;
  std::vector<ParameterConfig> parameters;  // declared, in name order
  // By parameter name ("beta", "alpha", "sigma", "sd_county", "cor_county", a declared one), or
  // "beta[TERM]" for the coefficients of one population-level term. Missing ones get the
  // defaults (models/default_priors.hpp) once the data is read.
  std::map<std::string, PriorConfig> priors;
  bool alpha_prior_centered = false;  // /model/priors/alpha/centered
  // /model/priors/cutpoints/centered: the prior on the cutpoints at the feature means, c_k - means . beta
  bool cutpoints_prior_centered = false;
  // categorical_logit: the number of categories K (0: the largest in the data) and the reference
  // category, whose linear predictor is 0 (1 ... K).
  long long categories = 0;
  long long reference_category = 1;
  // The formula the model was written as (empty: the structured form), and where each feature
  // term and column name sits in it, for errors found once the data is read.
  std::string formula;
  std::vector<NamePlace> feature_places;               // one per data.features entry
  std::map<std::string, std::size_t> formula_columns;  // column name -> first column it is at
};

struct OptimizerConfig {
  std::string name;
  double learning_rate = 0.0;                         // sgd, adam
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // adam
  double decay = 0.0;                                 // adam: step size lr / (1 + decay t)^(1/2)
  std::optional<double> eta;                          // adaptive: null = adapt eta
  long long adapt_iterations = 50;                    // adaptive
  double tau = 1.0, alpha = 0.1;                      // adaptive
  double min_learning_rate = 0.05, half_life = 50;    // natural: rho decays from learning_rate
};

struct InferenceConfig {
  std::string method = "exact";        // "exact" | "monte_carlo" (resolved from "auto" when parsed)
  std::string method_reason;           // why: "given in the config", "auto: ..."
  // The likelihood has no exact ELBO (student_t, the ordinal ones), so the method is monte_carlo:
  // the automatic family is then fullrank while P is small.
  bool method_for_likelihood = false;
  std::string algorithm = "meanfield";  // "meanfield" | "fullrank" | "structured" | "sparse" (resolved from "auto" by resolve_automatic)
  std::string algorithm_reason;
  bool algorithm_auto = false;
  double tol_grad = 1e-8;
  long long draws_per_step = 0;  // 0: automatic until resolve_automatic()
  bool draws_per_step_auto = false;  // it was (so a family's fallback after the data is read resets it)
  OptimizerConfig optimizer;
  long long max_iterations = 0;  // 0: automatic
  std::optional<double> tol_rel_obj;
  // monte_carlo with the natural optimizer: stop once q has stopped moving (NaturalConvergence);
  // null: off. Automatic (absent from the config): on when max_iterations and tol_rel_obj are not given.
  std::optional<double> tol_step;
  long long eval_elbo = 0;  // 0: automatic
  long long elbo_samples = 0;
  long long seed = 0;
  long long output_draws = 0;
  long long final_elbo_draws = 0;
  // final_elbo_draws was null: the natural optimizer's summary ELBO may come from the output draws
  // (final_elbo_draws is then 4000, what is drawn where they do not serve).
  bool final_elbo_automatic = false;
  // init: the natural optimizer starts at the posterior mode (resolved from "auto").
  bool start_at_mode = false;
  bool init_auto = false;  // init was "auto" (settled by resolve_automatic: mode only for P <= 100)
};

struct Config {
  std::string path;  // the config file as given
  std::string dir;   // its folder, against which data paths resolve
  Json resolved;     // the whole config with defaults filled in (`check --explain`)
  DataConfig data;
  ModelConfig model;
  InferenceConfig inference;
};

// Fills in the keys left automatic once the number of parameters and rows is known (the family,
// draws, iterations), in the struct and in `resolved` (so `check --explain` and the summary show
// what is used).
// `group_scales`: the model has group effects with independent priors under their sds (what
// the structured family ties).
// sparse_fits: the model has group effects and the sparse family can fit it.
void resolve_automatic(Config& config, long long parameters, long long rows, bool group_scales = false,
                       bool sparse_fits = false);

// The natural optimizer's automatic draws per step for meanfield (each coordinate's curvature is a
// regression on the draws).
inline constexpr long long kMeanfieldNaturalDraws = 128;
// ... and for the sparse family (its curvature is the Hessian at each draw, not a regression).
inline constexpr long long kSparseNaturalDraws = 16;

// The automatic family: sparse for a model with group effects that it fits (exact method);
// else fullrank while its cost is moderate (exact method, P <= 500 and rows P^2 <= 2e10); beyond,
// structured when the model has group effects under their sds (exact method), else meanfield (and
// meanfield for the Monte Carlo method, but fullrank for P <= 100 when the likelihood chose that
// method: likelihood_monte_carlo, and for a model with group effects under the natural optimizer
// (natural_optimizer) fullrank within the exact method's bounds, sparse beyond them unless
// monte_carlo_sparse is false, for crossed factors the rows reveal). Sets *reason.
std::string automatic_algorithm(const std::string& method, long long parameters, long long rows,
                                std::string* reason, bool group_scales = false, bool sparse_fits = false,
                                bool likelihood_monte_carlo = false, bool natural_optimizer = true,
                                bool monte_carlo_sparse = true);

// The natural optimizer's automatic draws per step for the family config.inference.algorithm
// (monte_carlo), as resolve_automatic sets them.
long long automatic_draws_per_step(const Config& config, long long parameters);

// Reads, validates and resolves a config file. Throws Error: no_input (66) when the file cannot
// be read, config (78) for invalid JSON, unknown keys, wrong types or out-of-range values.
Config parse_config(const std::string& path);
// The same from text, with `dir` the folder relative data paths are taken from.
Config parse_config_text(const std::string& text, const std::string& path, const std::string& dir);

}  // namespace bvi::spec
