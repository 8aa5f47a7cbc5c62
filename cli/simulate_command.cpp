#include "cli/simulate_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "cli/common_options.hpp"
#include "common/atomic_file_writer.hpp"
#include "common/error.hpp"
#include "models/data/simulated_csv.hpp"

namespace bvi::cli {

CLI::App* setup_simulate(CLI::App& app, SimulateOptions& o) {
  CLI::App* cmd =
      app.add_subcommand("simulate",
                         "Write a synthetic logistic-regression dataset: x ~ N(0, 1), beta ~ N(0, 1), "
                         "y ~ Bernoulli(sigmoid(x . beta)); CSV on stdout or in --output");
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
                  "Write the true coefficients (name,true_value) to this file; default with --output: "
                  "FILE with .csv replaced by .truth.csv")
      ->check(non_empty_path())
      ->type_name("FILE");
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

// The same path spelled two ways (`a.csv`, `./a.csv`), or two links to one file.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  if (!ea && !eb && ca == cb) return true;
  return fs::equivalent(a, b, ea) && !ea;
}

}  // namespace

int run_simulate(const SimulateOptions& o) {
  const std::string truth_path =
      !o.truth.empty() ? o.truth : (o.output.empty() ? std::string() : default_truth_path(o.output));
  if (!o.output.empty() && !truth_path.empty() && same_file(o.output, truth_path))
    throw usage_error("--output and --truth name the same file '" + o.output + "'");

  data::SimulationSpec spec;
  spec.rows = o.rows;
  spec.features = o.features;
  spec.seed = static_cast<std::uint64_t>(o.seed);

  // Both files are created before any work, so an output that cannot be made fails at once,
  // and neither replaces its target until both are complete.
  std::unique_ptr<AtomicFileWriter> data_file, truth_file;
  if (!o.output.empty()) data_file = std::make_unique<AtomicFileWriter>(o.output);
  if (!truth_path.empty()) truth_file = std::make_unique<AtomicFileWriter>(truth_path);

  if (truth_file)
    truth_file->write(data::true_coefficients_csv(data::simulated_coefficients(spec.seed, spec.features)));
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
