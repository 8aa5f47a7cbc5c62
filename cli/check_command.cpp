#include "cli/check_command.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "cli/common_options.hpp"
#include "cli/dropped_rows.hpp"
#include "cli/logging.hpp"
#include "cli/memory_check.hpp"
#include "cli/preflight.hpp"
#include "cli/response_summary.hpp"
#include "cli/sparse_fill.hpp"
#include "common/error.hpp"
#include "common/memory_limits.hpp"
#include "common/number_text.hpp"
#include "inference/exact/exact_cost.hpp"
#include "inference/reduce/collective_error.hpp"
#include "inference/sparse/hessian_probes.hpp"
#include "models/crossed_curvature.hpp"
#include "models/design/design.hpp"
#include "models/expected_prior.hpp"
#include "models/priors/prior_family.hpp"
#include "models/problem.hpp"
#include "models/sparse_pattern.hpp"
#include "models/spec/config_reference.hpp"

namespace bvi::cli {

CLI::App* setup_check(CLI::App& app, CheckOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "check", "Validate the config and the data and print what was found, without fitting");
  // Required unless --reference is given (checked in run_check).
  cmd->add_option("config", o.config, "Config file (JSON)")
      ->check(non_empty_path())
      ->type_name("CONFIG.json");
  cmd->add_flag("--explain", o.explain,
                "Print the resolved config instead: every key, with the defaults filled in, as JSON");
  cmd->add_flag(
      "--reference", o.reference,
      "Print the reference of every config key (Markdown, as docs/config.md) and exit; needs no config");
  add_log_level_option(*cmd, o.log_level);
  return cmd;
}

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep, size_t max_items = 12) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i == max_items && items.size() > max_items + 1) {
      out += sep + "... (" + std::to_string(items.size() - max_items) + " more)";
      break;
    }
    out += (i ? sep : "") + items[i];
  }
  return out;
}

std::string format_hyper(const spec::HyperValue& h) {
  std::ostringstream os;
  os.precision(6);
  if (h.is_expression()) {
    if (h.factor != 1.0) os << h.factor << " * ";
    for (size_t i = 0; i < h.names.size(); ++i) os << (i ? " * " : "") << h.names[i];
  } else if (h.values.size() == 1) {
    os << h.values[0];
  } else {
    os << "[";
    for (size_t i = 0; i < h.values.size() && i < 6; ++i) os << (i ? ", " : "") << h.values[i];
    if (h.values.size() > 6) os << ", ... (" << h.values.size() << " values)";
    os << "]";
  }
  return os.str();
}

// "county (85 levels: Aitkin, Anoka, ... ; reference Aitkin)".
std::string describe_levels(const models::design::Variable& v) {
  std::string out = std::to_string(v.levels.size()) + (v.levels.size() == 1 ? " level: " : " levels: ");
  out += join(v.levels, ", ", 12);
  out += v.numeric_levels ? "; numeric order" : "; byte order";
  if (!v.reference_level.empty() && !v.levels.empty())
    out += ", " + v.levels.front() + " first (/data/reference_levels)";
  return out;
}

// Like fit and eval: a report that cannot be written (a full disk under a redirected stdout)
// is an output error, not a silent success.
void print(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw output_error("stdout", "cannot write the report");
}

}  // namespace

int run_check(const CheckOptions& o, reduce::Communicator& comm) {
  setup_logging(o.log_level, comm.is_root() ? Verbosity::normal : Verbosity::quiet);
  if (o.reference) {
    if (!o.config.empty() || o.explain)
      throw usage_error("check --reference takes no config and no --explain");
    print(spec::config_reference_markdown());
    return 0;
  }
  if (o.config.empty()) throw usage_error("check: a CONFIG.json argument is required");
  const spec::Config config = reduce::collectively(comm, [&] { return spec::parse_config(o.config); });
  const double program_bytes = process_memory().resident;
  return models::with_dtype(config, [&](auto tag) {
    using T = decltype(tag);
    models::Problem<T> p = models::load_problem<T>(config, comm);
    // The Monte Carlo sparse family's fallback for crossed factors depends on the data alone, so
    // the explained config already holds the family fit will run (a config asking for sparse
    // there is a config error, as in fit).
    if (p.config.inference.method != "exact" && p.config.inference.algorithm == "sparse") {
      const auto crossed = models::make_block_pattern(p.model, p.view(), comm);
      reduce::collectively(comm,
                           [&] { return fall_back_from_crossed(p.config, *crossed, p.data.total_rows,
                                                                   models::crossed_curvature_fits(p.model));
                           });
    }
    if (o.explain) {
      reduce::collectively(comm, [&] {
        if (comm.is_root()) print(p.config.resolved.dump(2) + "\n");
      });
      return 0;
    }
    // What a fit of this config would need, with the default threads and draws.csv written. On
    // stderr: it depends on the machine and the launch (threads, ranks), where the report on
    // stdout depends on the config and the data alone.
    vi::RunSizes sizes = fit_run_sizes(models::shape_of(p, comm), resolve_threads(0), comm, false, true);
    sizes.program_bytes = program_bytes;
    const MemoryVerdict memory = judge_memory(sizes, comm);
    // The sparse family's pattern as the fit makes it (the level pairs of crossed factors from the
    // rows), and its factor's size against the budget: auto falls back as fit would.
    std::shared_ptr<const vi::BlockPattern> pattern;
    std::optional<SparseFill> fill;
    std::string sparse_refusal;
    int sparse_refusal_code = 0;
    if (p.config.inference.algorithm == "sparse") {
      pattern = models::make_block_pattern(p.model, p.view(), comm);
      fill = judge_sparse_fill(*pattern, memory, memory_check_skipped(false), sparse_factors_held(p.config), comm);
      try {
        if (fall_back_from_sparse(p.config, *fill)) pattern.reset();
      } catch (const Error& e) {
        sparse_refusal = e.detail();
        sparse_refusal_code = static_cast<int>(e.code());
      }
    }
    const auto& d = p.data;
    const Eigen::Index n = d.total_rows;
    std::ostringstream os;
    os.precision(4);
    os << "config      " << config.path << ": ok\n";
    os << "data        " << d.path << ": " << n << " rows, " << d.feature_names.size() << " features ("
       << config.data.dtype << (config.data.standardize ? ", standardized" : "") << ")\n";
    if (d.dropped_rows > 0) os << "missing     " << dropped_rows_note(d) << "\n";
    const int K = p.model.layout().categories();
    // The ordinal likelihoods' K: their cutpoints and one (/model/categories may exceed the data's).
    const models::ParameterBlock* cut = p.model.layout().find("cutpoints");
    os << response_summary(d, p.model.likelihood().response_kind(), config.data.trials.has_value(),
                           config.data.offset.has_value() || config.data.exposure.has_value(), comm,
                           cut ? static_cast<int>(cut->size + 1) : K,
                           K > 0 ? p.model.layout().reference_category() : 0);
    if (config.data.weights) os << weights_summary(d, *config.data.weights, comm);
    for (const auto& v : p.design.variables)
      if (v.categorical) os << "categorical " << v.name << ": " << describe_levels(v) << "\n";
    os << "features    " << join(d.feature_names, " ") << "\n";
    for (std::size_t f = 0; f < d.groups.size(); ++f) {
      const auto& g = p.design.groups[f];
      os << "groups      " << g.label << ": " << d.groups[f].levels.size() << " groups, effects "
         << join(g.effect_names(), " ")
         << (g.effects() >= 2 ? (g.correlated ? ", correlated" : ", uncorrelated") : "") << "\n";
    }
    if (config.model.likelihood == "categorical_logit" && !d.groups.empty())
      os << "groups      the effects above are per non-reference category: " << K - 1 << " sets of each\n";
    os << "model       " << config.model.likelihood << ", " << (config.model.intercept ? "with" : "no")
       << " intercept\n";
    const auto names = p.model.layout().column_names();
    os << "parameters  " << names.size() << ": " << join(names, " ") << "\n";
    // Every prior, the defaults included (p.config has them filled in).
    for (const auto& [param, prior] : p.config.model.priors) {
      os << "prior       " << param << " ~ " << prior.family << "(";
      // In the family's order (student_t(df, loc, scale), gamma(shape, rate)), as the docs write it.
      bool first = true;
      std::vector<std::string> order;
      if (const auto* family = models::find_prior_family(prior.family))
        for (const auto& field : family->hyperparameters) order.push_back(field.name);
      else
        for (const auto& [name, value] : prior.hypers) order.push_back(name);
      for (const auto& name : order) {
        const auto it = prior.hypers.find(name);
        if (it == prior.hypers.end()) continue;
        os << (first ? "" : ", ") << name << "=" << format_hyper(it->second);
        first = false;
      }
      os << ")";
      if (param == "alpha" && p.config.model.alpha_prior_centered)
        os << " on the intercept at the feature means (centered)";
      if (param == "cutpoints" && p.config.model.cutpoints_prior_centered)
        os << " on the cutpoints at the feature means (centered)";
      if (!config.model.priors.count(param)) os << " (default)";
      os << "\n";
    }
    const auto& inf = p.config.inference;
    const std::string tol_rel_obj = inf.tol_rel_obj ? shortest_text(*inf.tol_rel_obj) : std::string("null");
    if (inf.method == "exact") {
      os << "inference   exact (" << inf.method_reason << "), " << inf.algorithm << " ("
         << inf.algorithm_reason << "), tol_grad " << inf.tol_grad << ", up to " << inf.max_iterations
         << " iterations, tol_rel_obj " << tol_rel_obj << ", seed " << inf.seed << "\n";
      // How each prior term's expectation is taken, and what an iteration costs.
      const models::ExpectedPrior prior(p.model, static_cast<std::uint64_t>(inf.seed));
      os << "expectation likelihood: "
         << (config.model.likelihood == "poisson_log" || config.model.likelihood == "normal" ||
                     config.model.likelihood == "lognormal"
                 ? "closed form"
                 : config.model.likelihood == "negative_binomial_log"
                       ? "Gauss-Hermite quadrature per row over (eta, log phi)"
                   : config.model.likelihood == "beta_logit"
                       ? "a 2-D Gauss-Hermite rule per row over (eta, log phi)"
                   : config.model.likelihood == "gamma_log"
                       ? "closed form in eta, one Gauss-Hermite rule in log shape"
                       : "Gauss-Hermite quadrature per row")
         << "; priors:";
      for (const auto& [name, how] : prior.methods()) os << " " << name << " " << how << ";";
      os << "\n";
      const Eigen::Index linear =
          static_cast<Eigen::Index>(d.feature_names.size()) + (config.model.intercept ? 1 : 0);
      if (pattern) {
        // Its factor's non-zeros under the fill-reducing ordering, counted (fill_count.hpp).
        double effects = 0;
        for (const auto& g : d.groups) effects += double(g.effects());
        os << "precision   sparse: " << pattern->size() << " values on the pattern (" << pattern->n_global()
           << " global coordinates, " << pattern->dim() - pattern->n_global() << " group effects";
        for (const auto& pr : pattern->pairs())
          os << ", " << pr.levels.size() << " level pairs of " << d.groups[static_cast<std::size_t>(pr.f1)].label
             << " and " << d.groups[static_cast<std::size_t>(pr.f2)].label;
        if (fill->fits())
          os << "), " << fill->nonzeros << " in its Cholesky factor\n";
        else
          os << "); " << sparse_refusal << " (fit would stop with exit " << sparse_refusal_code << ")\n";
        os << "cost        sparse: "
           << vi::sparse_exact_cost(double(n), double(linear), double(p.model.dim()), effects,
                                    double(pattern->size()), double(std::min(fill->nonzeros, fill->cap)))
                  .describe()
           << "\n";
      } else {
        os << "cost        " << inf.algorithm << ": "
           << vi::exact_cost(double(n), double(linear), double(p.model.dim()), inf.algorithm == "fullrank")
                  .describe()
           << "\n";
      }
    } else {
      os << "inference   monte_carlo (" << inf.method_reason << "), " << inf.algorithm << ", "
         << inf.optimizer.name << ", " << inf.draws_per_step << " draws per step, up to "
         << inf.max_iterations << " iterations, tol_rel_obj " << tol_rel_obj;
      if (inf.optimizer.name == "natural")
        os << ", tol_step " << (inf.tol_step ? shortest_text(*inf.tol_step) : std::string("null"));
      os << ", seed " << inf.seed << "\n";
      if (pattern && fill->fits()) {
        os << "precision   sparse: " << pattern->size() << " values on the pattern (" << pattern->n_global()
           << " global coordinates, " << pattern->dim() - pattern->n_global() << " group effects), "
           << fill->nonzeros << " in its Cholesky factor; its curvature from "
           << vi::HessianProbes(pattern, true).count() << " Hessian-vector products per draw";
        const auto crossed = vi::HessianProbes::crossed_pairs(*pattern);
        if (!crossed.empty())
          os << " and, for the " << crossed.size() << " crossed factor pair" << (crossed.size() > 1 ? "s" : "")
             << ", the rows' curvature in eta";
        os << "\n";
        // The step samples the likelihood and takes the prior's expectation as fit does
        // (fit_command.cpp), or samples the whole log density.
        os << "expectation likelihood: sampled; priors:";
        if (models::sparse_family_fits(p.model)) {
          const models::ExpectedPrior prior(p.model, static_cast<std::uint64_t>(inf.seed), 2000,
                                            p.model.block_prior_terms());
          for (const auto& [name, how] : prior.methods()) os << " " << name << " " << how << ";";
        } else {
          os << " sampled with the likelihood (some term has no closed form);";
        }
        os << "\n";
      } else if (!sparse_refusal.empty())
        os << "precision   " << sparse_refusal << " (fit would stop with exit " << sparse_refusal_code
           << ")\n";
    }
    reduce::collectively(comm, [&] {
      if (comm.is_root()) print(os.str());
    });
    // After the report: a report that cannot be written is then the one line on stderr.
    if (comm.is_root())
      std::fprintf(stderr, "memory      fit would need %s%s%s\n", describe(memory).c_str(),
                   comm.size() > 1 ? ", per rank" : "",
                   memory.fits() ? "" : " (too much: fit would stop with exit 71)");
    return 0;
  });
}

}  // namespace bvi::cli
