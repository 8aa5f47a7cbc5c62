#include "cli/kfold_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "bvi_version.hpp"
#include "cli/common_options.hpp"
#include "cli/fit_rows.hpp"
#include "cli/kfold_folds.hpp"
#include "cli/kfold_run_record.hpp"
#include "cli/logging.hpp"
#include "cli/number_format.hpp"
#include "cli/refuse_weights.hpp"
#include "cli/signals.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/output_lock.hpp"
#include "common/read_file.hpp"
#include "inference/reduce/collective_error.hpp"
#include "models/categorical_prediction.hpp"
#include "models/ordinal_prediction.hpp"
#include "models/prediction.hpp"
#include "models/response_hash.hpp"
#include "models/spec/config.hpp"

extern char** environ;

namespace bvi::cli {

namespace fs = std::filesystem;
using KfoldJson = nlohmann::ordered_json;

CLI::App* setup_kfold(CLI::App& app, KfoldOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "kfold",
      "K-fold cross-validation by refitting: elpd_kfold, its se and p_kfold (JSON on stdout, and in DIR)");
  cmd->add_option("config", o.config, "The model's config")
      ->required()
      ->check(non_empty_path())
      ->type_name("CONFIG.json");
  cmd->add_option("--folds", o.folds, "Folds (at least 2; with --group, default: one per level)")
      ->check(CLI::Range(2, 1000000))
      ->type_name("K");
  cmd->add_option("--group", o.group,
                  "Leave-group-out: every row of a level of this data column in the same fold")
      ->type_name("COLUMN");
  cmd->add_option("--seed", o.seed, "Seed of the random partition (default: the config's inference.seed)")
      ->check(CLI::Range(0LL, 9007199254740991LL))
      ->type_name("N");
  cmd->add_option("--output", o.output,
                  "Folder of the folds' data, fits and values; a run stopped part way resumes from it")
      ->required()
      ->check(non_empty_path())
      ->type_name("DIR");
  add_threads_option(*cmd, o.threads);
  add_log_level_option(*cmd, o.log_level);
  return cmd;
}

namespace {

std::string kfold_absolute(const std::string& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

void kfold_mkdir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw output_error(dir.string(), "cannot create the folder (" + ec.message() + ")");
}

// SIGINT and SIGTERM stop kfold as they stop fit (README, "Errors": one line placed `signal`), at
// the next fold or as soon as the running fold's fit has stopped: what is finished stays in DIR,
// where the same command resumes.
void kfold_stop_if_signalled(const std::string& where, const fs::path& dir) {
  const int sig = stop_signal();
  if (sig == 0) return;
  throw Error(sig == SIGINT ? ExitCode::interrupted : ExitCode::terminated, "signal",
              "stopped by " + std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") + " at " + where +
                  "; the folds done are kept in " + dir.string() + " (run the same command again to resume)");
}

// Runs `bayes-vi fit CONFIG --output OUT --quiet` in a process of its own (the fit's stdout
// discarded, its stderr in LOG) and turns a failure into the fit's own error, placed in `fold`.
// A signal to kfold is passed on to the fit (a `kill PID` or a scheduler's SIGTERM reaches kfold
// alone), whose own stop kfold waits for: no fit is left running in DIR to race a resumed run.
void kfold_fit(const std::string& config, const fs::path& out, const fs::path& log, int threads,
               const std::string& fold, const fs::path& dir) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  const std::string t = std::to_string(threads), out_s = out.string(), log_s = log.string();
  std::vector<std::string> args = {exe, "fit", config, "--output", out_s, "--quiet", "--threads", t};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_s.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = 0;
  // The fit is a process of its own, not a rank of this job: under mpirun the launcher's variables
  // (OMPI_*, PMIX_*, PMI_*) would make it join an MPI job it is not part of.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string v(*e);
    if (v.rfind("OMPI_", 0) == 0 || v.rfind("PMIX_", 0) == 0 || v.rfind("PMI_", 0) == 0) continue;
    env_text.push_back(v);
  }
  std::vector<char*> envp;
  for (std::string& v : env_text) envp.push_back(v.data());
  envp.push_back(nullptr);
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw inference_error(fold, std::string("cannot start its fit (") + std::strerror(rc) + ")");
  int status = 0;
  bool passed_on = false;
  for (;;) {
    // Checked before each wait too: a signal between the spawn and the wait interrupts nothing.
    if (!passed_on && stop_signal() != 0) {
      ::kill(pid, stop_signal());
      passed_on = true;
    }
    if (waitpid(pid, &status, 0) >= 0) break;
    if (errno != EINTR) throw inference_error(fold, "lost its fit's process");
  }
  // Whatever the fit made of the signal (stopped, or finished just before it), kfold stops here.
  kfold_stop_if_signalled(fold, dir);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string message = "its fit failed (log: " + log_s + ")";
  std::ifstream in(log_s);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("bayes-vi: error: ", 0) == 0) message = line.substr(17);
  if (!WIFEXITED(status))
    throw inference_error(fold, "its fit was stopped by signal " + std::to_string(WTERMSIG(status)));
  throw Error(static_cast<ExitCode>(WEXITSTATUS(status)), fold, message);
}

// log mean_s p(y_i | theta_s) of the rows of `csv` under the fit in `fit_dir` made with `config`,
// keyed by the rows' record in `csv`; the responses' hash when `hash` is given.
std::vector<std::pair<Eigen::Index, double>> kfold_lpd(const std::string& config_path,
                                                       const std::string& fit_dir, const std::string& csv,
                                                       int threads, models::ResponseHash* hash) {
  spec::Config config = spec::parse_config(config_path);
  FitForConfig applied = load_fit_for_config(config, fit_dir);
  const models::PredictionRows rows = read_fit_rows(applied, config, csv, "they are left out");
  const models::PredictRows prows =
      predict_rows_of(applied, rows, static_cast<std::uint64_t>(applied.fit.seed));
  // categorical_logit and the ordinal likelihoods: log of the mean over draws of the row's category
  // probability, as predict's.
  const models::ParameterLayout& layout = applied.model->layout();
  const Eigen::VectorXd lpd = applied.fit.likelihood == "categorical_logit"
                                  ? models::predict_categorical(applied.fit, prows, layout.categories(),
                                                                layout.reference_category(), threads)
                                        .lpd
                              : models::is_ordinal(applied.fit.likelihood)
                                  ? models::predict_ordinal(applied.fit, prows, threads).lpd
                                  : models::predict(applied.fit, prows, threads).lpd;
  std::vector<std::pair<Eigen::Index, double>> out;
  for (Eigen::Index i = 0; i < rows.x.rows(); ++i) {
    out.emplace_back(rows.record[static_cast<std::size_t>(i)], lpd[i]);
    if (hash) hash->add(rows.y[i]);
  }
  return out;
}

// The values of a fold (row,lpd per held-out record of the original file), written last.
void kfold_write_values(const fs::path& path, const std::vector<std::pair<Eigen::Index, double>>& v) {
  std::string text = "row,lpd\n";
  for (const auto& [row, lpd] : v) {
    text += std::to_string(row + 1) + ",";
    append_number(text, lpd);
    text += "\n";
  }
  write_file_atomically(path.string(), text);
}

std::vector<std::pair<Eigen::Index, double>> kfold_read_values(const fs::path& path) {
  std::istringstream in(read_text_file(path.string()));
  std::string line;
  std::getline(in, line);
  std::vector<std::pair<Eigen::Index, double>> v;
  long number = 1;
  while (std::getline(in, line)) {
    ++number;
    const auto c = line.find(',');
    char* end = nullptr;
    const double row = c == std::string::npos ? 0 : std::strtod(line.c_str(), nullptr);
    const double lpd = c == std::string::npos ? NAN : std::strtod(line.c_str() + c + 1, &end);
    if (row < 1 || std::isnan(lpd))
      throw data_error(file_line(path.string(), number),
                       "not a kfold values file (row,lpd); remove the fold's folder to redo it");
    v.emplace_back(static_cast<Eigen::Index>(row) - 1, lpd);
  }
  return v;
}

// A folder an earlier version made holds the partition but no run record: what can tell whether
// its folds are of this config and data are the folds' own config.json (the config with data.csv
// and /model/categories written in) and records. "" when they agree, else what differs. (The fit
// of all rows, when one was made, is of the same config and data file as the folds.)
std::string kfold_legacy_difference(const fs::path& dir, int K, const nlohmann::json& raw,
                                    const KfoldData& data, const std::vector<int>& fold_of) {
  for (int k = 0; k < K; ++k) {
    const fs::path fd = dir / ("fold_" + std::to_string(k + 1));
    const std::string name = "fold_" + std::to_string(k + 1);
    if (fs::exists(fd / "config.json")) {
      nlohmann::json c;
      try {
        c = nlohmann::json::parse(read_text_file((fd / "config.json").string()));
      } catch (const nlohmann::json::exception&) {
        return name + "/config.json is not JSON";
      }
      if (c.is_object() && c.contains("data") && c["data"].is_object() && raw["data"].contains("csv"))
        c["data"]["csv"] = raw["data"]["csv"];
      if (c.is_object() && c.contains("model") && c["model"].is_object() &&
          !raw["model"].contains("categories"))
        c["model"].erase("categories");
      if (c != raw) return name + "/config.json differs from the config";
    }
    // One file at a time: each is at most the data file's size, whose records are in memory anyway.
    for (const bool held_out : {false, true}) {
      const fs::path f = fd / (held_out ? "heldout.csv" : "train.csv");
      if (fs::exists(f) && read_text_file(f.string()) != kfold_file_text(data, fold_of, k, held_out))
        return name + "/" + f.filename().string() + " differs from the data file";
    }
  }
  return "";
}

// Mean and sqrt(n var) of per-row values, as loo reports an estimate and its se.
std::pair<double, double> kfold_total(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / n;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {sum, n > 1 ? std::sqrt(n * ss / (n - 1)) : 0.0};
}

}  // namespace

int run_kfold(const KfoldOptions& o, reduce::Communicator& comm) {
  setup_logging(o.log_level);
  install_stop_signals();
  if (o.folds == 0 && o.group.empty()) throw usage_error("--folds K is required without --group");
  spec::Config config = spec::parse_config(o.config);
  refuse_weights(config, "kfold");
  const int threads = resolve_threads(o.threads);
  const fs::path dir(o.output);
  // Under mpirun the ranks share the folds out (rank r refits folds r, r + ranks, ...; the output
  // folder must be one every rank sees) and the root writes the results. A fold's values do not
  // depend on who computed them: every rank reads them back from the folds' values.csv, so any
  // number of ranks gives the same bytes. Errors are agreed on (collectively) and reported once.
  const bool root = comm.is_root();
  // Two runs in one folder would refit the same folds and write each other's files: the root
  // holds the folder's lock (fit's own, common/output_lock.hpp) until the run ends, and a second
  // run fails at the start (73). The folds' fits lock their own folders below it.
  std::optional<OutputLock> lock;
  reduce::collectively(comm, [&] {
    if (!root) return;
    kfold_mkdir(dir);
    lock.emplace(folder_lock_path(dir.string()), dir.string());
    if (!lock->held())
      cli_logger().warn(lock->why_not() + "; another kfold writing the same folder would not be stopped");
  });

  // Leave-group-out by the response would train each fold on the other responses only (with a
  // binary one, on one class): a cross-validation of nothing the model is for.
  if (!o.group.empty() && o.group == config.data.response)
    throw data_error(file_line(config.data.csv, 1),
                     "--group " + o.group + ": '" + o.group +
                         "' is the response; leave-group-out needs a column that groups the rows");
  const KfoldData data = read_kfold_data(config.data.csv, o.group);
  // A column of (nearly) one value per row (a continuous x, an ID) makes leave-group-out
  // leave-one-out or close to it, silently: refused once its levels outnumber half the rows.
  if (!o.group.empty() && 2 * data.levels.size() > data.records.size())
    throw data_error(file_line(config.data.csv, 1),
                     "--group " + o.group + " has " + std::to_string(data.levels.size()) + " levels in " +
                         std::to_string(data.records.size()) +
                         " rows; leave-group-out needs a grouping column with repeated values (at most one "
                         "level per two rows; for K-fold by row use --folds K alone)");
  const std::size_t units = o.group.empty() ? data.records.size() : data.levels.size();
  const int K = o.folds > 0 ? o.folds : static_cast<int>(units);
  if (static_cast<std::size_t>(K) > units || K < 2)
    throw usage_error("--folds " + std::to_string(K) + ": " + config.data.csv + " has " +
                      std::to_string(units) + (o.group.empty() ? " rows" : " levels of " + o.group) +
                      ", at least 2 and one per fold needed");
  const auto seed = static_cast<std::uint64_t>(o.seed ? *o.seed : config.inference.seed);
  const std::vector<int> fold_of = kfold_assign(data, K, seed);

  // Each fold's config: the config's own JSON with data.csv its training rows (absolute).
  nlohmann::json raw;
  try {
    raw = nlohmann::json::parse(read_text_file(o.config));
  } catch (const nlohmann::json::exception&) {
    throw config_error("", "not valid JSON");  // parse_config has already refused it
  }

  // What a resumed run must find unchanged: the model and data its folds' fits were made from
  // (DIR/run.json) and the partition (DIR/folds.csv). The root checks, and every rank gets its
  // outcome. The record is written before the partition: a folder with a partition and no record
  // is one an earlier version made, checked by its folds' files instead and then given a record.
  std::string folds_text = "row,fold\n";
  for (std::size_t i = 0; i < fold_of.size(); ++i)
    folds_text += std::to_string(i + 1) + "," + std::to_string(fold_of[i] + 1) + "\n";
  const fs::path folds_csv = dir / "folds.csv", run_json = dir / "run.json";
  reduce::collectively(comm, [&] {
    if (!root) return;
    const auto refuse = [&](const std::string& what) {
      throw output_error(dir.string(), "holds the folds of another model or data (" + what +
                                           "); use another --output or remove it");
    };
    const spec::Json record = kfold_run_record(config);
    const bool had_record = fs::exists(run_json), had_folds = fs::exists(folds_csv);
    if (had_record) {
      spec::Json before;
      try {
        before = spec::Json::parse(read_text_file(run_json.string()));
      } catch (const nlohmann::json::exception&) {
        refuse("its run.json is not JSON");
      }
      const std::string what = kfold_run_difference(before, record);
      if (!what.empty()) refuse(what);
    }
    if (had_folds && read_text_file(folds_csv.string()) != folds_text)
      throw output_error(
          folds_csv.string(),
          "holds the folds of another run (other data, --folds, --group or --seed); use another --output");
    if (!had_record && had_folds) {
      const std::string what = kfold_legacy_difference(dir, K, raw, data, fold_of);
      if (!what.empty()) refuse(what);
    }
    if (!had_record) write_file_atomically(run_json.string(), record.dump(2) + "\n");
    if (!had_folds) write_file_atomically(folds_csv.string(), folds_text);
  });
  // The fit of all rows (made once: a resumed run finds it), for p_kfold = lpd - elpd_kfold as loo's
  // kfold reports it.
  const fs::path full = dir / "full";
  const auto fit_all_rows = [&] {
    kfold_mkdir(full);
    if (!fs::exists(full / "fit" / "summary.json"))
      kfold_fit(kfold_absolute(o.config), full / "fit", full / "fit.log", threads, "the fit of all rows",
                dir);
  };
  // categorical_logit's and the ordinal likelihoods' K is /model/categories (or the number of
  // /data/levels), else the largest category of the rows a fit uses: a fold's training rows may
  // lack it, and that fold's model would then have fewer categories than its held-out rows (and
  // another parameter layout). So the fit of all rows is made first (the root's; the other ranks
  // wait) and its K written into every fold's config, as brms keeps a factor's levels in every fold.
  double categories = 0;
  const bool ordinal = models::is_ordinal(config.model.likelihood);
  if ((config.model.likelihood == "categorical_logit" || (ordinal && config.data.levels.empty())) &&
      config.model.categories == 0) {
    reduce::collectively(comm, [&] {
      if (!root) return;
      fit_all_rows();
      spec::Config c = spec::parse_config(o.config);
      const FitForConfig f = load_fit_for_config(c, (full / "fit").string());
      // The ordinal likelihoods' K - 1 cutpoints and one.
      const models::ParameterBlock* cut = ordinal ? f.model->layout().find("cutpoints") : nullptr;
      categories = cut ? static_cast<double>(cut->size + 1) : f.model->layout().categories();
    });
    comm.broadcast(&categories, 1, 0);
  }
  std::vector<double> elpd(data.records.size(), NAN);
  const auto fold_where = [K](int k) { return "fold " + std::to_string(k + 1) + " of " + std::to_string(K); };
  reduce::collectively(comm, [&] {
    for (int k = comm.rank(); k < K; k += comm.size()) {
      const std::string where = fold_where(k);
      kfold_stop_if_signalled(where, dir);
      const fs::path fd = dir / ("fold_" + std::to_string(k + 1));
      const fs::path values = fd / "values.csv";
      if (fs::exists(values)) {
        cli_logger().info(where + ": done in an earlier run");
        continue;
      }
      kfold_mkdir(fd);
      write_file_atomically((fd / "train.csv").string(), kfold_file_text(data, fold_of, k, false));
      write_file_atomically((fd / "heldout.csv").string(), kfold_file_text(data, fold_of, k, true));
      nlohmann::json c = raw;
      c["data"]["csv"] = kfold_absolute((fd / "train.csv").string());
      if (categories > 0) c["model"]["categories"] = static_cast<long>(categories);
      write_file_atomically((fd / "config.json").string(), c.dump(2) + "\n");
      if (!fs::exists(fd / "fit" / "summary.json"))
        kfold_fit((fd / "config.json").string(), fd / "fit", fd / "fit.log", threads, where, dir);
      std::vector<std::pair<Eigen::Index, double>> v;
      try {
        v = kfold_lpd((fd / "config.json").string(), (fd / "fit").string(), (fd / "heldout.csv").string(),
                      threads, nullptr);
      } catch (const Error& e) {
        throw Error(e.code(), where, e.where() + ": " + e.detail());
      }
      // Records of the held-out file back to records of the data file.
      std::vector<Eigen::Index> original;
      for (std::size_t i = 0; i < fold_of.size(); ++i)
        if (fold_of[i] == k) original.push_back(static_cast<Eigen::Index>(i));
      for (auto& [row, lpd] : v) row = original[static_cast<std::size_t>(row)];
      kfold_write_values(values, v);
      cli_logger().info(where + " done (" + std::to_string(v.size()) + " rows held out)");
    }
  });
  // Every fold's values as written (the text round-trips: the same doubles whoever computed them).
  reduce::collectively(comm, [&] {
    for (int k = 0; k < K; ++k)
      for (const auto& [row, lpd] : kfold_read_values(dir / ("fold_" + std::to_string(k + 1)) / "values.csv"))
        elpd[static_cast<std::size_t>(row)] = lpd;
  });
  // The full data's fit and the results: the root's (the other ranks wait for its outcome).
  reduce::collectively(comm, [&] {
    if (!root) return;
    kfold_stop_if_signalled("the fit of all rows", dir);
    fit_all_rows();
    models::ResponseHash hash;
    const auto full_lpd = kfold_lpd(o.config, (full / "fit").string(), config.data.csv, threads, &hash);

    std::vector<double> e, p;
    std::string pointwise = "row,elpd_kfold,p_kfold,kfoldic,fold\n";
    for (const auto& [row, lpd] : full_lpd) {
      const double ek = elpd[static_cast<std::size_t>(row)];
      if (std::isnan(ek))
        throw data_error(file_line(config.data.csv, static_cast<long>(row) + 2),
                         "a row the fit of all rows uses and no fold predicted");
      e.push_back(ek);
      p.push_back(lpd - ek);
      pointwise += std::to_string(row + 1) + ",";
      append_number(pointwise, ek);
      pointwise += ",";
      append_number(pointwise, lpd - ek);
      pointwise += ",";
      append_number(pointwise, -2 * ek);
      pointwise += "," + std::to_string(fold_of[static_cast<std::size_t>(row)] + 1) + "\n";
    }
    // The results are written whole or not at all: a signal now stops the run before them.
    kfold_stop_if_signalled("the results", dir);
    const auto [elpd_sum, elpd_se] = kfold_total(e);
    const auto [p_sum, p_se] = kfold_total(p);
    const fs::path pointwise_csv = dir / "pointwise.csv";
    write_file_atomically(pointwise_csv.string(), pointwise);
    KfoldJson d;
    d["elpd_kfold"] = elpd_sum;
    d["se_elpd_kfold"] = elpd_se;
    d["p_kfold"] = p_sum;
    d["se_p_kfold"] = p_se;
    d["kfoldic"] = -2 * elpd_sum;
    d["se_kfoldic"] = 2 * elpd_se;
    d["rows"] = e.size();
    d["folds"] = K;
    d["group"] = o.group.empty() ? KfoldJson(nullptr) : KfoldJson(o.group);
    d["seed"] = seed;
    d["method"] = "kfold";
    d["config"] = kfold_absolute(o.config);
    d["likelihood"] = config.model.likelihood;
    d["response"] = models::read_fit((full / "fit").string()).response;
    d["response_hash"] = hash.text();
    d["row_hash"] = hash.row_text();  // the full data's rows in file order, as the fit's
    d["pointwise_file"] = kfold_absolute(pointwise_csv.string());
    d["version"] = kVersion;
    const std::string doc = d.dump(2) + "\n";
    write_file_atomically((dir / "kfold.json").string(), doc);
    if (std::fwrite(doc.data(), 1, doc.size(), stdout) != doc.size() || std::fflush(stdout) != 0)
      throw output_error("stdout", "cannot write the result");
  });
  return 0;
}

}  // namespace bvi::cli
