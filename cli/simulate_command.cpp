#include "cli/simulate_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include "cli/common_options.hpp"
#include "cli/output_paths.hpp"
#include "common/atomic_file_writer.hpp"
#include "common/error.hpp"
#include "common/number_text.hpp"
#include "models/data/simulated_csv.hpp"

namespace bvi::cli {

namespace {

// A number in (low, high] or, when `low` is -high, in [-high, high]; NaN never is (CLI::Range
// lets it through, and CLI::PositiveNumber's message prints its bound as a 300-digit number).
CLI::Validator number_in(double low, double high, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          const bool above = low == -high ? v >= low : v > low;
          if (used == text.size() && above && v <= high) return "";
        } catch (const std::exception&) {
        }
        return "must be " + what + ", got '" + text + "'";
      },
      "NUMBER");
}

CLI::Validator positive_number() {
  return number_in(0, std::numeric_limits<double>::max(), "a positive number");
}

}  // namespace

CLI::App* setup_simulate(CLI::App& app, SimulateOptions& o) {
  CLI::App* cmd = app.add_subcommand("simulate",
                                     "Write a synthetic regression dataset: x ~ N(0, 1), beta ~ N(0, 1), "
                                     "eta = [alpha +] x . beta, y from --likelihood at eta (by default "
                                     "Bernoulli(sigmoid(eta))); CSV on stdout or in --output");
  cmd->add_option("--rows", o.rows, "Rows (observations)")
      ->required()
      ->check(CLI::Range(1LL, 1000000000000LL))
      ->type_name("N");
  cmd->add_option("--features", o.features, "Feature columns x1 ... xD")
      ->required()
      ->check(CLI::Range(1, 1000000))
      ->type_name("D");
  cmd->add_option("--seed", o.seed, "Random seed: the same seed gives the same bytes")
      ->required()
      ->check(CLI::Range(0LL, 9007199254740991LL))
      ->type_name("S");
  cmd->add_option("--output", o.output, "Write the CSV to this file instead of stdout")
      ->check(non_empty_path())
      ->type_name("FILE");
  cmd->add_option("--truth", o.truth,
                  "Write the true values (name,true_value: alpha, beta.j, the likelihood's parameter) to "
                  "this file; default with --output: "
                  "FILE with .csv replaced by .truth.csv")
      ->check(non_empty_path())
      ->type_name("FILE");
  cmd->add_option(
         "--likelihood", o.likelihood,
         "The response's likelihood (default bernoulli_logit): bernoulli_logit, bernoulli_probit, "
         "binomial_logit, poisson_log, negative_binomial_log, normal, lognormal, gamma_log, beta_logit, "
         "student_t, ordinal_logit, ordinal_probit, categorical_logit")
      ->type_name("NAME");
  cmd->add_option("--intercept", o.intercept, "Add an intercept alpha with this true value (default: none)")
      ->check(number_in(-1e6, 1e6, "a number in [-1e6, 1e6]"))
      ->type_name("A");
  cmd->add_option("--sigma", o.sigma, "normal, lognormal, student_t: the true sigma (default 1)")
      ->check(positive_number())
      ->type_name("S");
  cmd->add_option(
         "--phi", o.phi,
         "negative_binomial_log: the true phi, Var = mu + mu^2/phi (default 2); beta_logit: the true "
         "precision phi (default 10)")
      ->check(positive_number())
      ->type_name("P");
  cmd->add_option("--shape", o.shape, "gamma_log: the true shape (default 2)")
      ->check(positive_number())
      ->type_name("K");
  cmd->add_option("--nu", o.nu, "student_t: the true degrees of freedom nu (default 4)")
      ->check(positive_number())
      ->type_name("NU");
  cmd->add_option("--trials", o.trials, "binomial_logit: trials in every row (default 10)")
      ->check(CLI::Range(1LL, 100000LL))
      ->type_name("T");
  cmd->add_option("--levels", o.levels,
                  "ordinal_logit, ordinal_probit: the categories K (default 4), with true cutpoints F^-1(k/K); "
                  "categorical_logit: the categories K (default 3), category 1 the reference")
      ->check(CLI::Range(2, 100))
      ->type_name("K");
  add_threads_option(*cmd, o.threads);
  return cmd;
}

std::string default_truth_path(const std::string& output) {
  const std::string suffix = ".csv";
  if (output.size() > suffix.size() &&
      output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0)
    return output.substr(0, output.size() - suffix.size()) + ".truth.csv";
  return output + ".truth.csv";
}

namespace {

namespace fs = std::filesystem;

void write_stdout(std::string_view text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDOUT_FILENO, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw output_error("stdout", std::string("cannot write (") + std::strerror(errno) + ")");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The likelihood's own parameter from --sigma, --phi or --shape; any of them given to a
// likelihood that has another (or none) is a usage error rather than silently ignored.
data::SimulationSpec simulation_spec(const SimulateOptions& o) {
  const std::vector<std::string>& names = data::simulated_likelihoods();
  if (std::find(names.begin(), names.end(), o.likelihood) == names.end())
    throw usage_error("--likelihood '" + o.likelihood + "' is not one of: " + joined(names));
  data::SimulationSpec spec;
  spec.rows = o.rows;
  spec.features = o.features;
  spec.seed = static_cast<std::uint64_t>(o.seed);
  spec.likelihood = o.likelihood;
  spec.intercept = !std::isnan(o.intercept);
  if (spec.intercept) spec.alpha = static_cast<float>(o.intercept);
  const std::string own = data::simulated_parameter_name(o.likelihood);
  spec.parameter = data::default_simulated_parameter(o.likelihood);
  const struct {
    const char* name;
    double value;
  } given[] = {{"sigma", o.sigma}, {"phi", o.phi}, {"shape", o.shape}};
  for (const auto& g : given) {
    if (std::isnan(g.value)) continue;
    if (own != g.name)
      throw usage_error(std::string("--") + g.name + " does not apply to --likelihood " + o.likelihood +
                        (own.empty() ? std::string(" (it has no parameter of its own)")
                                     : " (its parameter is --" + own + ")"));
    spec.parameter = static_cast<float>(g.value);
    if (!(spec.parameter > 0) || !std::isfinite(spec.parameter))
      throw usage_error(std::string("--") + g.name + " " + shortest_text(g.value) +
                        " is not a positive float32");
  }
  if (o.likelihood == "student_t") {
    spec.nu = std::isnan(o.nu) ? 4.0f : static_cast<float>(o.nu);
    if (!(spec.nu > 0) || !std::isfinite(spec.nu))
      throw usage_error("--nu " + shortest_text(o.nu) + " is not a positive float32");
  } else if (!std::isnan(o.nu)) {
    throw usage_error("--nu applies to --likelihood student_t only");
  }
  if (o.trials != 0 && o.likelihood != "binomial_logit")
    throw usage_error("--trials applies to --likelihood binomial_logit only");
  spec.trials = o.likelihood == "binomial_logit" ? (o.trials != 0 ? o.trials : 10) : 0;
  const bool ordinal = spec::has_cutpoints(o.likelihood);
  const bool categorical = o.likelihood == "categorical_logit";
  if (o.levels != 0 && !ordinal && !categorical)
    throw usage_error("--levels applies to --likelihood ordinal_logit, ordinal_probit and categorical_logit only");
  if (ordinal && spec.intercept)
    throw usage_error("--intercept does not apply to --likelihood " + o.likelihood + " (its cutpoints take the intercept's place)");
  spec.levels = ordinal ? (o.levels != 0 ? o.levels : 4) : categorical ? (o.levels != 0 ? o.levels : 3) : 0;
  return spec;
}

}  // namespace

int run_simulate(const SimulateOptions& o) {
  const std::string truth_path =
      !o.truth.empty() ? o.truth : (o.output.empty() ? std::string() : default_truth_path(o.output));
  refuse_clashing_paths({{"--output", o.output}, {"--truth", truth_path}}, {});

  const data::SimulationSpec spec = simulation_spec(o);

  // Both files are created before any work, so an output that cannot be made fails at once,
  // and neither replaces its target until both are complete.
  std::unique_ptr<AtomicFileWriter> data_file, truth_file;
  if (!o.output.empty()) data_file = std::make_unique<AtomicFileWriter>(o.output);
  if (!truth_path.empty()) truth_file = std::make_unique<AtomicFileWriter>(truth_path);

  if (truth_file)
    truth_file->write(data::true_values_csv(spec, data::simulated_coefficients(spec.seed, data::simulated_coefficient_count(spec))));
  const data::TextSink sink = data_file ? data::TextSink([&](std::string_view t) { data_file->write(t); })
                                        : data::TextSink(write_stdout);
  data::write_simulated_csv(spec, resolve_threads(o.threads), sink);

  if (data_file) data_file->finish();
  if (truth_file) truth_file->finish();
  if (data_file) data_file->commit();
  if (truth_file) truth_file->commit();
  return 0;
}

}  // namespace bvi::cli
