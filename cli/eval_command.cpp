#include "cli/eval_command.hpp"

#include <cstdio>

#include "cli/common_options.hpp"
#include "cli/dropped_rows.hpp"
#include "cli/logging.hpp"
#include "cli/number_format.hpp"
#include "common/error.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "inference/reduce/collective_error.hpp"
#include "models/log_joint.hpp"
#include "models/params_file.hpp"
#include "models/problem.hpp"

namespace bvi::cli {

CLI::App* setup_eval(CLI::App& app, EvalOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "eval", "Evaluate the log joint density (and its gradient) at parameter values, many rows at once");
  cmd->add_option("config", o.config, "Config file (JSON)")
      ->required()
      ->check(non_empty_path())
      ->type_name("CONFIG.json");
  cmd->add_option("--params", o.params,
                  "CSV of parameter values, one point per row, with a header naming the parameters "
                  "(alpha, beta.1, ...); - reads stdin")
      ->required()
      ->check(non_empty_path())
      ->type_name("FILE|-");
  cmd->add_flag("--grad", o.grad, "Also print the gradient: one column grad.NAME per parameter");
  add_threads_option(*cmd, o.threads);
  add_log_level_option(*cmd, o.log_level);
  return cmd;
}

int run_eval(const EvalOptions& o, reduce::Communicator& comm) {
  setup_logging(o.log_level, comm.is_root() ? Verbosity::normal : Verbosity::quiet);
  const spec::Config config = reduce::collectively(comm, [&] { return spec::parse_config(o.config); });
  return models::with_dtype(config, [&](auto tag) {
    using T = decltype(tag);
    const int threads = resolve_threads(o.threads);
    models::Problem<T> problem = models::load_problem<T>(config, comm, {true, 0, threads});
    const models::ParameterLayout& layout = problem.model.layout();
    // Rank 0 reads the points (under mpirun only it has stdin) and sends them to the others.
    models::ParamsFile params;
    reduce::collectively(comm, [&] {
      if (!comm.is_root()) return;
      params = models::read_params_file(o.params, layout);
      if (!params.ignored_columns.empty()) {
        std::string list;
        for (const auto& c : params.ignored_columns) list += (list.empty() ? "" : ", ") + c;
        cli_logger().warn(params.display_name + ": ignoring columns that are not parameters: " + list);
      }
    });
    reduce::broadcast_matrix(comm, params.values, 0);
    comm.broadcast(params.display_name, 0);
    warn_dropped_rows(problem.data, comm.is_root());

    // Correlations come as Omega's entries (cor_F.i.j); the model holds their Cholesky factor.
    const models::Model& model = problem.model;
    const Eigen::MatrixXd points = reduce::collectively(comm, [&] {
      return model.from_output(params.values, [&](Eigen::Index row) {
        return file_line(params.display_name, static_cast<long>(row) + 2);
      });
    });
    reduce::ChunkReducer reducer(problem.plan, comm, threads);
    models::LogJoint<T> log_joint(model, problem.view(), reducer);
    const Eigen::Index S = points.rows();
    Eigen::VectorXd lp(S);
    Eigen::MatrixXd grad;
    log_joint.evaluate(points, lp, o.grad ? &grad : nullptr, models::Scale::constrained);
    if (o.grad) model.gradient_to_output(points, grad);

    std::string out = "log_joint";
    const auto names = layout.column_names();
    if (o.grad)
      for (const auto& n : names) out += ",grad." + n;
    out += '\n';
    for (Eigen::Index s = 0; s < S; ++s) {
      append_number(out, lp[s]);
      if (o.grad)
        for (Eigen::Index j = 0; j < grad.cols(); ++j) {
          out += ',';
          append_number(out, grad(s, j));
        }
      out += '\n';
    }
    reduce::collectively(comm, [&] {
      if (comm.is_root() && (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0))
        throw output_error("stdout", "cannot write the result");
    });
    return 0;
  });
}

}  // namespace bvi::cli
