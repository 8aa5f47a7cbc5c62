#include "cli/fit_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bvi_version.hpp"
#include "cli/number_format.hpp"
#include "common/number_text.hpp"

namespace bvi::cli {

namespace {

using Json = nlohmann::ordered_json;

// JSON has no infinities; a non-finite number is written as null.
Json number(double x) {
  return std::isfinite(x) ? Json(x) : Json(nullptr);
}

// Group-level parameters are labelled by their factor and level, not by a feature.
bool group_level(const std::string& name) {
  return name.compare(0, 2, "r_") == 0 || name.compare(0, 3, "sd_") == 0 || name.compare(0, 4, "cor_") == 0;
}

double quantile_sorted(const std::vector<double>& v, double q) {
  const double h = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

void summarize_from_draws(std::vector<vi::ParameterSummary>& summaries, const Eigen::MatrixXd& draws,
                          const std::vector<Eigen::Index>& columns, Eigen::Index first) {
  const Eigen::Index S = draws.rows();
  if (S == 0) return;
  for (Eigen::Index j : columns) {
    std::vector<double> v(draws.col(j - first).data(), draws.col(j - first).data() + S);
    double sum = 0;
    for (double x : v) sum += x;
    const double mean = sum / static_cast<double>(S);
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    std::sort(v.begin(), v.end());
    vi::ParameterSummary& p = summaries[static_cast<size_t>(j)];
    p.mean = mean;
    p.sd = S > 1 ? std::sqrt(ss / static_cast<double>(S - 1)) : 0.0;
    p.q05 = quantile_sorted(v, 0.05);
    p.q50 = quantile_sorted(v, 0.5);
    p.q95 = quantile_sorted(v, 0.95);
  }
}

Json summary_json(const FitRecord& r) {
  const auto& inf = r.config->inference;
  Json params = Json::array();
  for (const auto& p : r.parameters) {
    Json j{{"name", p.name}};
    // "feature" as before for population-level parameters; "label" for every labelled one
    // (sex[male], county[Boston]:(Intercept), county: sd(x), county: cor((Intercept), x)).
    if (!p.label.empty() && !group_level(p.name)) j["feature"] = p.label;
    if (!p.label.empty()) j["label"] = p.label;
    j["mean"] = number(p.mean);
    j["sd"] = number(p.sd);
    j["q05"] = number(p.q05);
    j["q50"] = number(p.q50);
    j["q95"] = number(p.q95);
    params.push_back(std::move(j));
  }
  Json s;
  s["parameters"] = std::move(params);
  s["elbo"] = number(r.final->elbo.value);
  s["elbo_se"] = number(r.final->elbo.se);
  s["iterations"] = r.run->iterations;
  s["converged"] = r.run->converged;
  s["pareto_k"] = number(r.final->pareto.k);
  s["algorithm"] = inf.algorithm;
  s["seed"] = r.seed;
  s["threads"] = r.threads;
  s["ranks"] = r.ranks;
  s["seconds"] = r.seconds;
  // Beyond SPEC.md: how the numbers above came about.
  const bool exact = inf.method == "exact";
  s["method"] = inf.method;
  s["method_choice"] = inf.method_reason;
  s["algorithm_choice"] = inf.algorithm_reason;
  s["elbo_draws"] = exact ? Json(nullptr) : Json(static_cast<long long>(r.final->elbo_draw_count));
  if (exact)
    s["convergence"] = r.run->convergence.empty() ? Json(nullptr) : Json(r.run->convergence);
  else if (r.run->convergence == "mean" || r.run->convergence == "median")
    s["convergence"] = r.run->convergence + " relative ELBO change below tol_rel_obj";
  else  // the natural optimizer's rule (tol_step): why it stopped, or why it ran to max_iterations
    s["convergence"] = r.run->convergence.empty() ? Json(nullptr) : Json(r.run->convergence);
  s["interrupted"] = r.run->interrupted;
  s["pareto_k_status"] = diagnostics::to_string(r.final->pareto.status);
  s["pareto_k_draws"] = r.final->pareto_draws;
  if (exact) {
    s["tol_grad"] = inf.tol_grad;
    s["grad_residual"] = number(r.grad_residual);
    s["passes"] = r.passes;
    Json priors = Json::object();
    for (const auto& [name, how] : r.prior_methods) priors[name] = how;
    s["prior_expectations"] = std::move(priors);
    s["optimizer"] = nullptr;
    s["draws_per_step"] = nullptr;
  } else {
    nlohmann::json opt = r.config->resolved.at("inference").at("optimizer");
    if (r.run->eta) opt["eta"] = *r.run->eta;
    s["optimizer"] = Json::parse(opt.dump());
    s["draws_per_step"] = inf.draws_per_step;
  }
  s["max_iterations"] = inf.max_iterations;
  s["tol_rel_obj"] = inf.tol_rel_obj ? Json(*inf.tol_rel_obj) : Json(nullptr);
  s["tol_step"] = inf.tol_step ? Json(*inf.tol_step) : Json(nullptr);
  s["redrawn"] = r.run->redrawn + r.final->elbo.redrawn;
  s["rows"] = r.rows;
  s["dropped_rows"] = r.dropped_rows;
  s["features"] = r.features;
  s["version"] = kVersion;
  // The data the fit was made on, as `predict` needs it to treat new rows the same way.
  Json data;
  data["response"] = r.response;
  data["features"] = r.feature_names;
  data["likelihood"] = r.config->model.likelihood;
  data["intercept"] = r.config->model.intercept;
  if (!r.response_hash.empty()) data["response_hash"] = r.response_hash;
  if (!r.row_hash.empty()) data["row_hash"] = r.row_hash;
  // A weighted fit names its weights column (absent: unweighted).
  if (r.config->data.weights) data["weights"] = *r.config->data.weights;
  // An ordinal response read as labels: their order (absent: integer categories).
  if (!r.config->data.levels.empty()) data["levels"] = r.config->data.levels;
  if (!r.config_path.empty()) data["config"] = r.config_path;
  if (r.center.size() > 0) {
    data["standardization"] = {{"center", std::vector<double>(r.center.data(), r.center.data() + r.center.size())},
                               {"scale", std::vector<double>(r.scale.data(), r.scale.data() + r.scale.size())}};
  } else {
    data["standardization"] = nullptr;
  }
  if (r.design) data["design"] = Json::parse(models::design::to_json(*r.design).dump());
  s["data"] = std::move(data);
  return s;
}

std::string draws_csv(const FitRecord& r) {
  const auto& inf = r.config->inference;
  std::string out;
  // The comment block and the two lines after the header follow CmdStan's variational output, so
  // rstan::read_stan_csv and cmdstanpy read the file as Stan's own.
  out += "# Sample generated by bayes-vi (Variational Bayes)\n";
  out += std::string("# bayes_vi_version=") + kVersion + "\n";
  out += "# algorithm=" + inf.algorithm + "\n";
  out += "# vi_method=" + inf.method + "\n";  // not "method=": rstan reads that key itself
  out += "# iter=" + std::to_string(inf.max_iterations) + "\n";
  out += "# grad_samples=" + std::to_string(inf.draws_per_step) + "\n";
  out += "# elbo_samples=" + std::to_string(inf.elbo_samples) + "\n";
  out += "# eval_elbo=" + std::to_string(inf.eval_elbo) + "\n";
  out += "# output_samples=" + std::to_string(r.constrained_draws.rows()) + "\n";
  out += "# optimizer=" + (inf.method == "exact" ? std::string("exact_newton") : inf.optimizer.name) + "\n";
  if (inf.method == "exact") {
    char tol[64];
    std::snprintf(tol, sizeof tol, "# tol_grad=%g\n", inf.tol_grad);
    out += tol;
  } else if (inf.optimizer.name != "adaptive") {
    char lr[64];
    std::snprintf(lr, sizeof lr, "# learning_rate=%g\n", inf.optimizer.learning_rate);
    out += lr;
  }
  // Stan writes "# tol_rel_obj=0.01"; std::to_string's %f wrote 0.010000 and 1e-7 as 0.000000.
  out += "# tol_rel_obj=" + (inf.tol_rel_obj ? shortest_text(*inf.tol_rel_obj) : std::string("null")) + "\n";
  out += "# seed=" + std::to_string(r.seed) + "\n";
  out += "# iterations_run=" + std::to_string(r.run->iterations) + "\n";
  out += "# log_g__ includes every normalizing constant, so mean(log_p__ - log_g__) estimates the ELBO\n";
  out += "#\n";
  out += "lp__,log_p__,log_g__";
  for (const auto& n : r.names) out += "," + n;
  out += "\n";
  // Stan's two lines. cmdstanpy expects exactly these; eta means something only for the
  // adaptive optimizer and is written as 1 for the others, whose step sizes are in the comments
  // above. (A "method=variational" line would make rstan's summary() look for a k-hat column that
  // only its own vb() adds, so the comments follow rstan's vb output instead of CmdStan's.)
  out += "# Stepsize adaptation complete.\n";
  char eta_line[64];
  std::snprintf(eta_line, sizeof eta_line, "# eta = %g\n", r.run->eta ? *r.run->eta : 1.0);
  out += eta_line;
  // First row: the mean of the approximation, with 0 for lp__, log_p__ and log_g__.
  out += "0,0,0";
  for (const auto& p : r.parameters) {
    out += ',';
    append_number(out, p.mean);
  }
  out += '\n';
  const auto& d = r.final->draws;
  // At most 25 characters a number (17 significant digits, sign, point, exponent, comma): one
  // allocation rather than doublings, each of which briefly holds the old text beside the new.
  out.reserve(out.size() + static_cast<std::size_t>(r.constrained_draws.rows()) *
                               static_cast<std::size_t>(r.constrained_draws.cols() + 3) * 25);
  for (Eigen::Index s = 0; s < r.constrained_draws.rows(); ++s) {
    out += "0,";
    append_number(out, d.log_p[s]);
    out += ',';
    append_number(out, d.log_q[s]);
    for (Eigen::Index j = 0; j < r.constrained_draws.cols(); ++j) {
      out += ',';
      append_number(out, r.constrained_draws(s, j));
    }
    out += '\n';
  }
  return out;
}

std::string elbo_csv(const FitRecord& r) {
  std::string out = "iteration,seconds,elbo,rel_change\n";
  for (const auto& row : r.run->trace) {
    out += std::to_string(row.iteration) + ",";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", row.seconds);
    out += buf;
    out += ',';
    append_number(out, row.elbo);
    out += ',';
    if (std::isfinite(row.rel_change)) append_number(out, row.rel_change);  // empty: no predecessor
    out += '\n';
  }
  return out;
}

}  // namespace bvi::cli
