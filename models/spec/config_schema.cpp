#include "models/spec/config_schema.hpp"

#include "common/error.hpp"

namespace bvi::spec {

const Section& root_section() {
  static const Section s{
      "",
      "The config file: one JSON object.",
      {
          {"data", Kind::object, nullptr, true, {}, {}, "The dataset: a CSV file and its columns."},
          {"model", Kind::object, nullptr, true, {}, {}, "Likelihood and priors."},
          {"inference",
           Kind::object,
           Json::object(),
           false,
           {},
           {},
           "How the variational approximation is fitted (all optional)."},
      }};
  return s;
}

const Section& data_section() {
  static const Section s{
      "/data",
      "The dataset: a CSV file with a header row.",
      {
          {"csv",
           Kind::string,
           nullptr,
           true,
           {},
           {},
           "Path of the CSV file, relative to the config file's folder (absolute paths as they are)."},
          {"response",
           Kind::string,
           nullptr,
           false,
           {},
           {},
           "Name of the response column. Required, unless `/model/formula` names it (then it must be "
           "absent)."},
          {"features",
           Kind::string_array,
           nullptr,
           false,
           {},
           {},
           "The population-level terms, in the order of the coefficients: a column name (`x`; a categorical "
           "column becomes one coefficient per level but the reference one), or an interaction of columns "
           "joined by `:` (`x:z`, `x:sex`). Default: every column but the response, the trials, offset, "
           "exposure and weights columns and the grouping columns of `/model/groups`, in file order; `[]` "
           "for none (an "
           "intercept-only model). Absent when `/model/formula` is given.",
           true},
          {"categorical",
           Kind::string_array,
           nullptr,
           false,
           {},
           {},
           "Numeric columns to treat as categories (IDs such as `county_id`). Any other column's kind comes "
           "from all of its present values in the file: numeric when every one is a number; a data error "
           "(exit 65 at the first cell that is not, naming up to 3) when they are mostly numbers, more than "
           "90 % of them, or all but at most 3 and more numbers than not (a spreadsheet's `#DIV/0!`, a "
           "`1,234`, a `-` placeholder); else categorical (`fit` logs it at info level, `check` lists its "
           "levels). Levels are sorted: by number when every level is a number, else byte by byte (C "
           "locale); the first is the reference level."},
          {"reference_levels",
           Kind::object,
           nullptr,
           false,
           {},
           {},
           "Per categorical column, its reference level, `{\"trt\": \"placebo\"}` (R's `relevel`): that "
           "level "
           "comes first, so treatment contrasts are against it, and the others keep their sorted order. A "
           "column that is not a categorical variable of the model, or a level it does not have, is a config "
           "error (exit 78 at `/data/reference_levels/COLUMN`)."},
          {"allow_many_levels",
           Kind::string_array,
           nullptr,
           false,
           {},
           {},
           "Categorical columns allowed nearly one level per row in a population-level term. Without it, "
           "such a term (at least 10 levels, and at least half as many levels as rows used: an ID column, "
           "or numbers read as text) is a data error (exit 65 at the CSV's line 1) that suggests a group "
           "term `(1 | column)`. Group terms are not limited."},
          {"missing",
           Kind::choice,
           "error",
           false,
           {},
           {"error", "drop"},
           "Rows with a missing cell (empty, `NA` or `NaN`) in a column the model uses: `error` stops with "
           "the number of such rows and the first one's FILE:LINE (exit 65); `drop` leaves them out, with a "
           "warning giving their number. Columns the model does not use never matter."},
          {"standardize",
           Kind::boolean,
           false,
           false,
           {},
           {},
           "Centre each feature and divide it by its sample standard deviation before fitting."},
          {"dtype",
           Kind::choice,
           "float64",
           false,
           {},
           {"float64", "float32"},
           "Storage of the features: float32 halves the memory and runs the matrix products in single "
           "precision, accumulating in double."},
          {"trials",
           Kind::string,
           nullptr,
           false,
           {},
           {},
           "Name of the column with each row's number of trials (non-negative integers, read as double). "
           "Required for binomial_logit, an error for the other likelihoods."},
          {"offset",
           Kind::string,
           nullptr,
           false,
           {},
           {},
           "Name of a column added to the linear predictor as it is (poisson_log, negative_binomial_log, "
           "lognormal and gamma_log; read as double)."},
          {"exposure",
           Kind::string,
           nullptr,
           false,
           {},
           {},
           "Name of a column of positive exposures whose log is added to the linear predictor, so the rate "
           "is exposure * exp(alpha + x . beta) (poisson_log, negative_binomial_log, lognormal (the median) "
           "and "
           "gamma_log (the mean); read as double). "
           "With `offset` too, both "
           "are added."},
          {"weights",
           Kind::string,
           nullptr,
           false,
           {},
           {},
           "Name of a column of non-negative row weights (any likelihood; read as double): row i's log "
           "likelihood is multiplied by w_i, as brms's `y | weights(w)` and statsmodels' GLM `freq_weights` "
           "do, "
           "so an integer weight k is the row repeated k times and 0 leaves the row out. Never a feature."},
          {"levels",
           Kind::string_array,
           nullptr,
           false,
           {},
           {},
           "ordinal_logit, ordinal_probit, categorical_logit, bernoulli_logit, bernoulli_probit only: the "
           "response's categories in order (ordinal: lowest first, `[\"poor\", \"fair\", \"good\"]`; "
           "categorical: the reference category first unless `/model/reference_category` gives another "
           "position; binary: exactly two, failure then success, `[\"No\", \"Yes\"]`, read as 0 and 1). The "
           "response column then holds these labels (compared as text, surrounding spaces ignored), read as "
           "categories 1 ... K with K the list's length, so a level no row takes is still a category; a "
           "label "
           "not in the list is a data error (exit 65 at its line). At least 2 distinct labels, none empty, "
           "`NA` or NaN. Without it the "
           "response is integers 1 ... K. The cutpoints are labelled `poor|fair`, ..., categorical_logit's "
           "parameters `mucar_Intercept`, `mucar_x` (brms's names), `predict` names its columns `p_poor`, "
           "... "
           "and writes labels in `category`, and the summary records the list (`data.levels`)."},
      }};
  return s;
}

const Section& model_section() {
  static const Section s{
      "/model",
      "The model: likelihood and priors.",
      {
          {"likelihood",
           Kind::choice,
           nullptr,
           true,
           {},
           {"bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal",
            "negative_binomial_log", "lognormal", "gamma_log", "beta_logit", "student_t", "ordinal_logit",
            "ordinal_probit", "categorical_logit"},
           "The observation model, with linear predictor eta = alpha + x . beta. bernoulli_logit: logistic "
           "regression, y in {0, 1}, P(y = 1) = sigmoid(eta). bernoulli_probit: probit regression, y in {0, "
           "1}, "
           "P(y = 1) = Phi(eta). binomial_logit: y successes out of the `/data/trials` column's n, "
           "y in {0, ..., n}, success probability sigmoid(eta). poisson_log: counts y in {0, 1, ...} with "
           "rate "
           "exp(eta + offset), `/data/offset` and log `/data/exposure` both optional. normal: linear "
           "regression, "
           "y ~ Normal(eta, sigma), any real y, with a positive parameter `sigma` that needs a prior in "
           "`/model/priors/sigma`. negative_binomial_log: overdispersed counts y in {0, 1, ...}, NB2 with "
           "mean mu = exp(eta + offset) and variance mu + mu^2 / phi, offset and exposure as poisson_log, "
           "with a positive shape parameter `phi` (prior at `/model/priors/phi`, default gamma(0.01, 0.01)). "
           "lognormal: positive y > 0 with log y ~ Normal(eta, sigma), density scipy.stats.lognorm(s = "
           "sigma, "
           "scale = exp(eta)) (the Jacobian -log y included), with a positive scale `sigma` (prior at "
           "`/model/priors/sigma`, default exponential(1 / sd(log y))). gamma_log: positive y > 0, "
           "Gamma with mean mu = exp(eta) and variance mu^2 / shape, density scipy.stats.gamma(a = shape, "
           "scale = mu / shape), with a positive parameter `shape` (prior at `/model/priors/shape`, default "
           "brms's gamma(0.01, 0.01)). beta_logit: proportions 0 < y < 1, Beta with mean mu = expit(eta) and "
           "variance mu (1 - mu) / (1 + phi), density scipy.stats.beta(mu phi, (1 - mu) phi), with a "
           "positive "
           "precision `phi` (prior at `/model/priors/phi`, default brms's gamma(0.01, 0.01)). student_t: "
           "robust "
           "linear regression, any real y, y ~ StudentT(nu, eta, sigma) as scipy.stats.t(df = nu, loc = eta, "
           "scale = sigma), with positive parameters `sigma` (default as normal's) and `nu` (default brms's "
           "gamma(2, 0.1)); fitted by the monte_carlo method only. ordinal_logit, "
           "ordinal_probit: ordered categories y in {1, ..., K} (K the largest in the data or "
           "`/model/categories`), or labels in the order of `/data/levels` (K their number), cumulative "
           "model "
           "P(y = k) = F(c_k - eta) - F(c_{k-1} - eta) with F = expit or Phi (brms's cumulative, stan_polr), "
           "K - 1 increasing `cutpoints` (prior at `/model/priors/cutpoints`, default brms's student_t(3, 0, "
           "2.5)), no intercept (the cutpoints take its place), fitted by the monte_carlo method. "
           "categorical_logit: unordered categories y in {1, ..., K}, or labels listed in `/data/levels` "
           "(multinomial logit, brms's categorical, "
           "statsmodels' MNLogit): P(y = k) = exp(eta_k) / sum_j exp(eta_j) with eta_k = alpha_k + x . "
           "beta_k "
           "for every category k but the reference (`/model/reference_category`, whose eta is 0); the "
           "parameters are `alpha.k` and `beta.k.j` (feature j), the `alpha` and `beta` priors applying to "
           "every category's; group terms give each such category its own effects, sds and correlations "
           "(`r_F.k.l.e`, `sd_F.k.e`, `cor_F.k.i.j`, brms's sd_F__muk_...); fitted by the monte_carlo "
           "method, "
           "no offset or exposure yet."},
          {"categories",
           Kind::auto_integer,
           nullptr,
           false,
           between(2, 1000),
           {},
           "categorical_logit, ordinal_logit, ordinal_probit only: the number of categories K (a response "
           "above it is a data error; with /data/levels it must be their number). null: the largest category "
           "in the data (or the number of /data/levels)."},
          {"reference_category",
           Kind::integer,
           1,
           false,
           between(1, 1000),
           {},
           "categorical_logit only: the category whose linear predictor is fixed at 0 (brms's and "
           "statsmodels' first category by default; with /data/levels, a position in that list); the other "
           "categories' coefficients are relative to it."},
          {"formula",
           Kind::string,
           nullptr,
           false,
           {},
           {},
           "The model as a formula, `y ~ x + z + x:z + (1 + x | g)` (see README \"Formulas\"): a shorthand "
           "for `/data/response`, `/data/features`, `/data/offset` (`offset(z)`), `/data/exposure` "
           "(`offset(log(t))`), `/model/intercept` and `/model/groups`, which must then be absent, and adds "
           "`factor(x)`'s columns to `/data/categorical`. "
           "`check --explain` prints the structured form it stands for."},
          {"intercept",
           Kind::boolean,
           false,
           false,
           {},
           {},
           "Add an intercept `alpha` to the linear predictor (a formula has one unless it says `0 +` or "
           "`- 1`)."},
          {"groups",
           Kind::object_array,
           Json::array(),
           false,
           {},
           {},
           "Group-level (varying) effects: one object per grouping factor (see /model/groups/N below)."},
          {"parameters",
           Kind::object,
           Json::object(),
           false,
           {},
           {},
           "Further parameters, by name: each an object with `size` and a constraint (see "
           "/model/parameters/NAME below). They can serve as hyperparameters of other priors."},
          {"priors",
           Kind::object,
           Json::object(),
           false,
           {},
           {},
           "One prior per parameter: `beta` (the coefficients), `alpha` when `intercept` is true, `sigma` "
           "for "
           "the normal likelihood, `sd_F` and `cor_F` for each grouping factor F, and each declared "
           "parameter; `beta[TERM]` overrides `beta` for the coefficients of one term (`beta[sex]`, "
           "`beta[x:sex]`). Each is an object with one key, the distribution, holding its hyperparameters "
           "(`alpha` and `cutpoints` may also hold `\"centered\": true`). A missing prior gets the default (README "
           "\"Default priors\"), which `check` prints."},
      }};
  return s;
}

const Section& parameter_section() {
  static const Section s{
      "/model/parameters/NAME",
      "A declared parameter. Inference runs on the unconstrained scale (log, logit or bounded "
      "transforms, with the log-Jacobian added); every output is on the constrained scale.",
      {
          {"size", Kind::integer, 1, false, between(1, 1e7), {},
           "Number of entries: an integer, or the string \"features\" for one per feature (like beta). "
           "A vector parameter is named NAME.1 ... NAME.size in outputs."},
          {"constraint", Kind::choice, "none", false, {}, {"none", "positive", "unit_interval"},
           "none: any real; positive: > 0 (log transform); unit_interval: in (0, 1) (logit transform)."},
          {"lower", Kind::nullable_number, nullptr, false, any_real(), {},
           "A lower bound (with constraint none); with `upper`, an interval (scaled logit transform)."},
          {"upper", Kind::nullable_number, nullptr, false, any_real(), {}, "An upper bound (with constraint none)."},
      }};
  return s;
}

const Section& group_section() {
  static const Section s{
      "/model/groups/N",
      "A group-level term, as `(1 + x | county)` in a formula: effects that vary by the levels of a "
      "grouping factor, centred at 0 (they add to the population-level ones). Parameters: `r_F` (every "
      "level's effects), `sd_F` (their sds) and, when correlated with 2 or more effects, `L_F` (reported "
      "as the correlations `cor_F.i.j`), F being the factor's columns joined by `_`.",
      {
          {"by",
           Kind::string_array,
           nullptr,
           true,
           {},
           {},
           "The grouping column, or several whose combinations are the groups (`[\"school\", \"class\"]` "
           "is `school:class`). Read as categories whatever they hold."},
          {"intercept", Kind::boolean, true, false, {}, {}, "A varying intercept."},
          {"terms",
           Kind::string_array,
           Json::array(),
           false,
           {},
           {},
           "Varying slopes: columns or interactions, as in `/data/features`.",
           true},
          {"correlated",
           Kind::boolean,
           true,
           false,
           {},
           {},
           "Correlated effects (multivariate normal, LKJ prior on the correlation matrix), as `|`; false "
           "makes them independent, as `||`."},
      }};
  return s;
}

const Section& lkj_section() {
  static const Section s{
      "/model/priors/cor_F/lkj",
      "The correlation matrix Omega of a group term's effects ~ LKJ(eta), as Stan's lkj_corr_cholesky on "
      "its Cholesky factor: log p(L) = sum_{i=2..K} (K - i + 2 eta - 2) log L_ii - log c_K(eta), with "
      "the normalizing constant c_K of Lewandowski, Kurowicka & Joe (2009).",
      {{"eta",
        Kind::number,
        1.0,
        false,
        positive(),
        {},
        "Shape: 1 is uniform over correlation matrices; larger values favour weaker correlations."}}};
  return s;
}

const Section& inference_section() {
  static const Section s{
      "/inference",
      "How the Gaussian approximation is fitted. Every key is optional.",
      {
          {"method",
           Kind::choice,
           "auto",
           false,
           {},
           {"auto", "exact", "monte_carlo"},
           "How the ELBO is maximized. exact: the ELBO and its gradient computed without Monte Carlo noise "
           "(each row's expected log likelihood is a one- or two-dimensional Gaussian integral), maximized "
           "by natural-gradient Newton steps until the fixed-point residual is below tol_grad. monte_carlo: "
           "stochastic gradient steps from draws of q (ADVI), with the optimizer below. auto: exact, unless "
           "the config sets a Monte Carlo setting (optimizer, draws_per_step, eval_elbo, elbo_samples) or "
           "the "
           "likelihood has no exact ELBO (student_t, ordinal_logit, ordinal_probit, categorical_logit: "
           "monte_carlo)."},
          {"algorithm",
           Kind::choice,
           "auto",
           false,
           {},
           {"auto", "meanfield", "fullrank", "structured", "sparse"},
           "Variational family on the unconstrained space: independent normals (meanfield), a multivariate "
           "normal with a full covariance (fullrank, its Cholesky factor), structured (exact method): "
           "meanfield with every group effect tied linearly to its group's log sd, which keeps the "
           "group sds from shrinking towards 0 when groups have few rows, at meanfield's cost, or sparse: "
           "a multivariate normal whose precision is zero where the posterior's is "
           "(between the effects of different groups that share no row), which reaches fullrank's optimum "
           "at a cost linear in the number of groups (monte_carlo: with the natural optimizer; crossed "
           "grouping factors only for student_t, ordinal_logit and ordinal_probit). auto: sparse for models with group effects it "
           "can fit (exact method: independent effects under their sds or up to four correlated ones, as "
           "(1 + x | g) or (1 + x + z | g), crossed and nested factors; monte_carlo with the natural "
           "optimizer: the same group terms beyond fullrank's bounds below, crossed factors as above), else "
           "fullrank when it is affordable (exact method, P <= 500 parameters and N P^2 <= 2e10 for N rows; "
           "for a likelihood only the monte_carlo method fits (student_t, ordinal_logit, ordinal_probit, "
           "categorical_logit) P <= 100, or with group effects and the natural optimizer the exact method's "
           "bounds), "
           "else structured for models with group effects under their sds (exact method), else meanfield; "
           "the summary says which ran and why."},
          {"tol_grad",
           Kind::number,
           1e-8,
           false,
           positive(),
           {},
           "exact: stop when every fixed-point residual, in q's own units (sd_j dE/dm_j, Sigma_jj Lambda'_jj "
           "- 1, "
           "and their fullrank forms), is below this, or below 16 spacings of doubles at each mean in its sd "
           "where "
           "that is larger (a response near 1e8 with sd 5: the residual cannot fall further in double "
           "precision)."},
          {"draws_per_step",
           Kind::auto_integer,
           nullptr,
           false,
           between(1, 1e6),
           {},
           "monte_carlo: draws per gradient step, evaluated as one batch. null: 128 for natural with "
           "meanfield, 16 with sparse (each draw also takes a Hessian-vector product per global parameter "
           "and "
           "per group effect of a factor), "
           "max(128, 2 P + 32) for natural with fullrank (P parameters; its curvature estimate needs more "
           "draws than parameters; 4 P + 32 for categorical_logit with group terms, whose gradients are "
           "noisier), 64 for the other optimizers."},
          {"optimizer",
           Kind::object,
           Json{{"name", "natural"}},
           false,
           {},
           {},
           "monte_carlo: the stochastic optimizer; its keys depend on `name`. Null under the exact method, "
           "which has its own."},
          {"max_iterations",
           Kind::auto_integer,
           nullptr,
           false,
           between(1, 1e9),
           {},
           "Upper bound on iterations. null: 200 for the exact method and for natural (which stops sooner "
           "once q "
           "has stopped moving: tol_step), 10000 for the other optimizers."},
          {"tol_rel_obj",
           Kind::nullable_number,
           nullptr,
           false,
           positive(),
           {},
           "Stop when the relative ELBO change falls below this: monte_carlo, the mean or median over recent "
           "evaluations (Stan's rule); exact, between iterations (an extra rule beside tol_grad). null: "
           "monte_carlo runs every iteration, exact stops on tol_grad."},
          {"tol_step",
           Kind::nullable_number,
           nullptr,
           false,
           {0, 1, true, false},
           {},
           "monte_carlo with the natural optimizer: stop once q has stopped moving, when 10 steps in a row "
           "each move q's means by at most this many of its sds and its log sds "
           "(fullrank: and the logs of its Cholesky diagonal) by at most this, every move divided by its "
           "step "
           "size rho (so: the distance to the optimum each step estimates; its Monte Carlo noise keeps a "
           "noisy "
           "fit running). Not given: 0.05 when neither max_iterations nor tol_rel_obj is given, else null "
           "(which runs as before). null: off."},
          {"init",
           Kind::choice,
           "auto",
           false,
           {},
           {"auto", "origin", "mode"},
           "monte_carlo: where q starts. origin: mean 0, scale 1, Stan's ADVI initialization; with the "
           "natural optimizer scale 0.1, each group effect at its group's sd, and the likelihood's scale "
           "where the exact method starts it (sigma of normal, lognormal and student_t at the response's "
           "sd) with the group sds there, as that scale is eta's (lme4's start), and student_t's nu at "
           "10. mode (natural optimizer, models "
           "without group terms, whose joint mode lies "
           "at a group sd of 0): q's mean at the posterior mode and its precision the negative Hessian there "
           "(the diagonal of it for meanfield), found by damped Newton steps from the origin (each a batch "
           "of P + 1 gradients, the Hessian by their differences); where they do not converge, the origin. "
           "auto: mode where it applies and P <= 100 parameters (each Newton iteration costs about a "
           "fullrank "
           "step then), else origin."},
          {"eval_elbo",
           Kind::auto_integer,
           nullptr,
           false,
           between(1, 1e9),
           {},
           "monte_carlo: estimate the ELBO every this many iterations (for the stopping rule and elbo.csv). "
           "null: max(1, max_iterations / 50). (exact computes it at every iteration.)"},
          {"elbo_samples",
           Kind::auto_integer,
           nullptr,
           false,
           between(1, 1e7),
           {},
           "monte_carlo: draws per ELBO estimate during the run. null: 100."},
          {"final_elbo_draws",
           Kind::auto_integer,
           nullptr,
           false,
           between(1000, 1e8),
           {},
           "monte_carlo: draws for the ELBO reported in the summary, estimated at the final approximation "
           "from fresh draws as mean log p + entropy (exact reports the exact ELBO, and uses these draws "
           "only "
           "for PSIS k-hat when output_draws < 100). null: with the natural optimizer and output_draws >= "
           "1000, the output draws themselves (no further pass over the data), the ELBO as their mean of log "
           "p "
           "- log q, whose Monte Carlo error is far smaller when q is close to the posterior (not for models "
           "whose correlation or cutpoint summaries come from the ELBO's draws); else 4000 fresh draws. The "
           "summary's elbo_draws says how many were used."},
          {"seed",
           Kind::integer,
           10003,
           false,
           between(0, 9.007199254740991e15),
           {},
           "Seed of the counter-based random stream (overridden by --seed)."},
          {"output_draws",
           Kind::integer,
           1000,
           false,
           between(0, 1e8),
           {},
           "Draws from the approximation written to draws.csv (and used for PSIS k-hat)."},
      }};
  return s;
}

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names{"natural", "adam", "sgd", "adaptive"};
  return names;
}

const Section& optimizer_section(const std::string& name) {
  static const Field name_field{"name",
                                Kind::choice,
                                "natural",
                                false,
                                {},
                                optimizer_names(),
                                "natural: natural-gradient steps on the mean and precision (the default); "
                                "adam: Adam; sgd: plain gradient ascent (the notebook's); adaptive: Stan's ADVI "
                                "step-size sequence with eta adaptation."};
  static const Section natural{
      "/inference/optimizer",
      "Natural-gradient VI (the improved Bayesian learning rule, Lin, Schmidt & Khan 2020) with the "
      "curvature estimated from the gradient draws (Price's theorem); the step size decays from "
      "learning_rate to min_learning_rate with the given half-life.",
      {name_field,
       {"learning_rate", Kind::number, 1.0, false, {0, 1, true, false}, {},
        "Initial step size rho (1: a full Newton-like step, inside a trust region)."},
       {"min_learning_rate", Kind::number, 0.1, false, {0, 1, true, false}, {}, "Final step size."},
       {"half_life", Kind::number, 20.0, false, positive(), {},
        "Iterations for the step size to halve its distance to min_learning_rate."}}};
  static const Section sgd{
      "/inference/optimizer",
      "Plain stochastic gradient ascent with a constant step.",
      {name_field, {"learning_rate", Kind::number, 0.01, false, positive(), {}, "Step size."}}};
  static const Section adam{
      "/inference/optimizer",
      "Adam (Kingma & Ba 2015) with the step decaying as learning_rate / sqrt(1 + decay * t).",
      {name_field,
       {"learning_rate", Kind::number, 0.1, false, positive(), {}, "Initial step size."},
       {"decay", Kind::number, 0.0, false, at_least(0), {}, "Step decay rate per iteration."},
       {"beta1", Kind::number, 0.9, false, {0, 1, false, true}, {}, "Decay of the first-moment average."},
       {"beta2", Kind::number, 0.999, false, {0, 1, false, true}, {}, "Decay of the second-moment average."},
       {"epsilon", Kind::number, 1e-8, false, positive(), {}, "Added to the root second moment."}}};
  static const Section adaptive{
      "/inference/optimizer",
      "Stan's ADVI step-size sequence rho_k = eta k^(-1/2 + 1e-16) / (tau + sqrt(s_k)), "
      "s_k = alpha g_k^2 + (1 - alpha) s_(k-1), with eta chosen by a short adaptation phase.",
      {name_field,
       {"eta",
        Kind::nullable_number,
        nullptr,
        false,
        positive(),
        {},
        "Step-size scale; null: adapt it over {100, 10, 1, 0.1, 0.01}."},
       {"adapt_iterations", Kind::integer, 50, false, between(1, 1e6), {}, "Iterations per eta tried."},
       {"tau",
        Kind::number,
        1.0,
        false,
        positive(),
        {},
        "Added to the root of the running squared gradient."},
       {"alpha",
        Kind::number,
        0.1,
        false,
        {0, 1, true, false},
        {},
        "Weight of the newest squared gradient."}}};
  if (name == "natural") return natural;
  if (name == "sgd") return sgd;
  if (name == "adam") return adam;
  if (name == "adaptive") return adaptive;
  throw config_error("/inference/optimizer/name", "unknown optimizer '" + name + "'");
}

}  // namespace bvi::spec
