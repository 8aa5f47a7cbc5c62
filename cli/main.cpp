// bayes-vi: wires the subcommands, and is the one place where failures become the one-line
// message and exit code of SPEC.md ("bayes-vi: error: WHERE: WHAT").
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "bvi_version.hpp"
#include "cli/check_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/eval_command.hpp"
#include "cli/fit_command.hpp"
#include "cli/kfold_command.hpp"
#include "cli/loo_command.hpp"
#include "cli/predict_command.hpp"
#include "cli/simulate_command.hpp"
#include "common/error.hpp"
#include "inference/reduce/mpi_communicator.hpp"

namespace {

void print_error(const std::string& where, const std::string& what) {
  std::string line = "bayes-vi: error: " + (where.empty() ? what : where + ": " + what);
  // One line, whatever the message held.
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // A write past RLIMIT_FSIZE (ulimit -f) raises SIGXFSZ, whose default action kills the process
  // before it can say why or clean up; ignored, the write fails with EFBIG and is reported as
  // the output error it is (73), with the previous file intact.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"bayes-vi: Bayesian inference by variational approximation (ADVI) from a JSON model spec.",
               "bayes-vi"};
  app.set_version_flag("--version", bvi::kVersionLong);
  app.require_subcommand(1, 1);
  app.fallthrough(false);

  bvi::cli::FitOptions fit_opts;
  bvi::cli::PredictOptions predict_opts;
  bvi::cli::EvalOptions eval_opts;
  bvi::cli::CheckOptions check_opts;
  bvi::cli::SimulateOptions simulate_opts;
  bvi::cli::LooOptions loo_opts;
  bvi::cli::CompareOptions compare_opts;
  bvi::cli::KfoldOptions kfold_opts;
  CLI::App* fit_cmd = bvi::cli::setup_fit(app, fit_opts);
  CLI::App* eval_cmd = bvi::cli::setup_eval(app, eval_opts);
  CLI::App* predict_cmd = bvi::cli::setup_predict(app, predict_opts);
  CLI::App* check_cmd = bvi::cli::setup_check(app, check_opts);
  CLI::App* simulate_cmd = bvi::cli::setup_simulate(app, simulate_opts);
  CLI::App* loo_cmd = bvi::cli::setup_loo(app, loo_opts);
  CLI::App* compare_cmd = bvi::cli::setup_compare(app, compare_opts);
  CLI::App* kfold_cmd = bvi::cli::setup_kfold(app, kfold_opts);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    // CLI11 reports a word it does not know as a command as "A subcommand is required", which
    // reads as if none was given.
    if (argc > 1 && argv[1][0] != '-') {
      const std::string first = argv[1];
      const bool known = first == fit_cmd->get_name() || first == eval_cmd->get_name() ||
                         first == predict_cmd->get_name() || first == check_cmd->get_name() ||
                         first == simulate_cmd->get_name() || first == loo_cmd->get_name() ||
                         first == compare_cmd->get_name() || first == kfold_cmd->get_name();
      if (!known)
        what = "unknown command '" + first +
               "'; the commands are fit, eval, predict, check, simulate, loo, compare and kfold";
    }
    // Under mpirun every rank parses the same command line; one message is enough.
    if (bvi::reduce::launcher_rank() == 0) print_error("command line", what + " (see bayes-vi --help)");
    return static_cast<int>(bvi::ExitCode::usage);
  }

  // MPI starts only when a launcher started this process; otherwise the communicator is serial.
  bvi::reduce::MpiRuntime mpi(&argc, &argv);
  bvi::reduce::Communicator& comm = mpi.comm();
  // An error every rank holds (see reduce::collectively) is reported once, by rank 0, and all
  // ranks finalize and exit with its code. Any other error under MPI ends the whole job with
  // MPI_Abort, so that no rank is left waiting in a collective.
  auto fail = [&](const std::string& where, const std::string& what, bvi::ExitCode code, bool collective) {
    if (comm.size() > 1 && !collective) {
      print_error(where.empty() ? "rank " + std::to_string(comm.rank()) : where, what);
      std::fflush(stderr);
      comm.abort(static_cast<int>(code));
    }
    if (comm.rank() == 0) print_error(where, what);
    return static_cast<int>(code);
  };
  try {
    if (fit_cmd->parsed()) return bvi::cli::run_fit(fit_opts, comm);
    if (eval_cmd->parsed()) return bvi::cli::run_eval(eval_opts, comm);
    if (check_cmd->parsed()) return bvi::cli::run_check(check_opts, comm);
    // Writing a dataset is one process's job; under mpirun the other ranks have nothing to do.
    if (predict_cmd->parsed()) return comm.is_root() ? bvi::cli::run_predict(predict_opts) : 0;
    if (simulate_cmd->parsed()) return comm.is_root() ? bvi::cli::run_simulate(simulate_opts) : 0;
    if (loo_cmd->parsed()) return bvi::cli::run_loo(loo_opts, comm);
    if (kfold_cmd->parsed()) return bvi::cli::run_kfold(kfold_opts, comm);
    if (compare_cmd->parsed()) return comm.is_root() ? bvi::cli::run_compare(compare_opts) : 0;
  } catch (const bvi::Error& e) {
    return fail(e.where(), e.detail(), e.code(), e.collective());
  } catch (const std::bad_alloc&) {
    return fail("memory", "out of memory (an allocation failed)", bvi::ExitCode::os_error, false);
  } catch (const std::exception& e) {
    return fail("internal error", e.what(), bvi::ExitCode::software, false);
  }
  return 0;
}
