#include "cli/compare_command.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <limits>
#include <sstream>

#include "cli/common_options.hpp"
#include "cli/logging.hpp"
#include "cli/loo_command.hpp"
#include "cli/loo_run.hpp"
#include "common/error.hpp"
#include "common/number_text.hpp"
#include "common/read_file.hpp"
#include "inference/diagnostics/loo.hpp"
#include "inference/diagnostics/loo_compare.hpp"
#include "models/data/parse_number.hpp"

namespace bvi::cli {

CLI::App* setup_compare(CLI::App& app, CompareOptions& o) {
  CLI::App* cmd = app.add_subcommand("compare",
                                     "Compare models by PSIS-LOO as R's loo_compare does (best first: "
                                     "elpd_diff, se_diff, elpd_loo, p_loo, looic)");
  cmd->add_option(
         "inputs", o.inputs,
         "Two or more loo documents (loo --output FILE --pointwise P) or fit folders (fit --output DIR)")
      ->required()
      ->expected(2, -1)
      ->check(non_empty_path())
      ->type_name("LOO.json|DIR");
  cmd->add_option("--format", o.format,
                  "json: the comparison as JSON on stdout, the table on stderr; table: the table on stdout")
      ->check(CLI::IsMember({"json", "table"}))
      ->type_name("FORMAT");
  cmd->add_option("--weights", o.weights, "Also the models' stacking weights (loo_model_weights)")
      ->check(CLI::IsMember({"stacking"}))
      ->type_name("METHOD");
  add_threads_option(*cmd, o.threads);
  add_log_level_option(*cmd, o.log_level);
  return cmd;
}

namespace {

using CompareJson = nlohmann::ordered_json;

struct CompareModel {
  std::string name;       // the argument as given
  std::string criterion;  // "loo" (PSIS-LOO, full or subsampled) or "kfold" (kfold's refits)
  long long folds = 0;    // kfold's K (0: not recorded, or a loo)
  double elpd_loo = 0, se_elpd_loo = 0, p_loo = 0, se_p_loo = 0, looic = 0, se_looic = 0;
  std::string response_hash;
  std::string row_hash;    // the responses in their order (empty: written before row hashes)
  std::vector<long> rows;  // the data rows (1-based records), in order
  Eigen::VectorXd elpd;    // pointwise elpd_loo (NaN where a subsampled loo did not sample)
  // A subsampled loo (loo --subsample): every row's approximation, which rows were sampled, and
  // the subsampling se of its estimates.
  bool subsampled = false;
  Eigen::VectorXd approx;
  std::vector<char> sampled;
  double sub_se_elpd_loo = 0, sub_se_p_loo = 0, sub_se_looic = 0;
};

double json_number(const CompareJson& d, const char* key, const std::string& where) {
  if (!d.contains(key) || !d.at(key).is_number())
    throw data_error(where,
                     std::string("not a bayes-vi loo document ('") + key + "' is missing or not a number)");
  return d.at(key).get<double>();
}

// The pointwise CSV loo --pointwise writes: row,elpd_loo,... (elpd_loo is all compare needs), or
// kfold's DIR/pointwise.csv: row,elpd_kfold,...; or loo --subsample's
// row,elpd_loo_approx,subsampled,elpd_loo,... (NA where not sampled).
void read_pointwise(const std::string& path, CompareModel& m) {
  const std::string text = read_text_file(path);
  std::istringstream in(text);
  std::string line;
  long number = 0;
  std::vector<double> elpd, approx;
  bool sub = false;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      sub = line.rfind("row,elpd_loo_approx,subsampled,elpd_loo,", 0) == 0;
      if (!sub && line.rfind("row,elpd_loo,", 0) != 0 && line.rfind("row,elpd_kfold,", 0) != 0)
        throw data_error(file_line(path, 1),
                         "not a loo pointwise file (expected the header row,elpd_loo,...)");
      if (sub != m.subsampled)
        throw data_error(file_line(path, 1), sub ? "is a subsampled loo's pointwise file, its document is not"
                                                 : "is not the pointwise file of a subsampled loo");
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> f;
    for (std::size_t a = 0, b = 0; f.size() < (sub ? 4u : 2u); a = b + 1) {
      b = line.find(',', a);
      f.push_back(line.substr(a, b == std::string::npos ? std::string::npos : b - a));
      if (b == std::string::npos) break;
    }
    double row = 0, v = 0, a = 0;
    const auto number_ok = [](const std::string& t, double& x) {
      return bvi::data::parse_number(t, x) == bvi::data::NumberStatus::ok;
    };
    bool ok = f.size() == (sub ? 4u : 2u) && number_ok(f[0], row) && row >= 1 && row == std::floor(row);
    bool sampled = true;
    if (ok && sub) {
      sampled = f[2] == "1";
      ok = number_ok(f[1], a) && (f[2] == "0" || f[2] == "1") && (sampled ? number_ok(f[3], v) : f[3] == "NA");
      if (!sampled) v = std::numeric_limits<double>::quiet_NaN();
    } else if (ok) {
      ok = number_ok(f[1], v);
    }
    if (!ok)
      throw data_error(file_line(path, number), sub ? "expected a row number, a finite elpd_loo_approx, 0 or 1, "
                                                      "and a finite elpd_loo (NA when not sampled)"
                                                    : "expected a row number and a finite elpd_loo");
    m.rows.push_back(static_cast<long>(row));
    elpd.push_back(v);
    approx.push_back(a);
    m.sampled.push_back(sampled ? 1 : 0);
  }
  m.elpd = Eigen::Map<const Eigen::VectorXd>(elpd.data(), static_cast<Eigen::Index>(elpd.size()));
  if (sub) m.approx = Eigen::Map<const Eigen::VectorXd>(approx.data(), static_cast<Eigen::Index>(approx.size()));
}

// The pointwise file must be the document's own: the paired differences come from the file and
// the table's totals from the document, so another model's file (pointed to, or copied in its
// place) or an edited value would give a comparison of numbers no loo produced. loo and kfold
// write every pointwise value with 17 significant digits and the JSON total as a round-trip
// double, so the file's values give the document's total back up to the summation's rounding:
// loo's total is N times a running mean (LooAccumulator), kfold's a plain sum, each within
// N eps sum_i |elpd_i| of a compensated sum at worst (about sqrt(N) eps in practice). 1e-9 of
// that magnitude is above the worst case up to N ~ 10^7 rows and far below any change that
// matters to a comparison. A subsampled loo's total is the difference estimator,
// N (mean_i a_i + mean_j (elpd_j - a_j)) over every row's approximation a_i and the sampled rows
// j, recomputed the same way.
void check_pointwise_total(const CompareModel& m, const std::string& pw, const std::string& doc,
                           const char* key) {
  // Neumaier's compensated sum: the file's order and N do not move the result past an ulp or so.
  struct Sum {
    double s = 0, c = 0, magnitude = 0;
    void add(double x) {
      const double t = s + x;
      c += std::abs(s) >= std::abs(x) ? (s - t) + x : (x - t) + s;
      s = t;
      magnitude += std::abs(x);
    }
    double value() const { return s + c; }
  };
  const auto n = static_cast<std::size_t>(m.elpd.size());
  double total = 0, magnitude = 0;
  if (!m.subsampled) {
    Sum e;
    for (std::size_t i = 0; i < n; ++i) e.add(m.elpd[static_cast<Eigen::Index>(i)]);
    total = e.value();
    magnitude = e.magnitude;
  } else {
    Sum a, d;
    long sampled = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto k = static_cast<Eigen::Index>(i);
      a.add(m.approx[k]);
      if (m.sampled[i]) {
        d.add(m.elpd[k] - m.approx[k]);
        ++sampled;
      }
    }
    if (sampled < 2)
      throw data_error(pw, "has " + std::to_string(sampled) + " sampled rows (a subsampled loo has 2 or more)");
    const double scale = static_cast<double>(n) / static_cast<double>(sampled);
    total = a.value() + scale * d.value();
    magnitude = a.magnitude + scale * d.magnitude;
  }
  if (!(std::abs(total - m.elpd_loo) <= 1e-9 * std::max(magnitude, std::abs(m.elpd_loo))))
    throw data_error(pw, std::string("its ") + (m.subsampled ? "rows give elpd_loo " : "values add up to ") +
                             shortest_text(total) + " where " + doc + " says " + key + " " + shortest_text(m.elpd_loo) +
                             ": not that document's pointwise file (another model's, or edited)");
}

CompareModel model_from_document(const std::string& path) {
  CompareModel m;
  m.name = path;
  CompareJson d;
  try {
    d = CompareJson::parse(read_text_file(path));
  } catch (const nlohmann::json::exception&) {
    throw data_error(path, "not valid JSON (a loo document or a fit folder was expected)");
  }
  if (!d.is_object()) throw data_error(path, "not a bayes-vi loo document");
  // A kfold document (bayes-vi kfold) names its estimates elpd_kfold, p_kfold, kfoldic, as R's
  // kfold() does; loo_compare ranks either kind by elpd.
  const bool kfold = d.contains("method") && d.at("method") == "kfold";
  m.criterion = kfold ? "kfold" : "loo";
  if (kfold && d.contains("folds") && d.at("folds").is_number_integer()) m.folds = d.at("folds").get<long long>();
  m.elpd_loo = json_number(d, kfold ? "elpd_kfold" : "elpd_loo", path);
  m.se_elpd_loo = json_number(d, kfold ? "se_elpd_kfold" : "se_elpd_loo", path);
  m.p_loo = json_number(d, kfold ? "p_kfold" : "p_loo", path);
  m.se_p_loo = json_number(d, kfold ? "se_p_kfold" : "se_p_loo", path);
  m.looic = json_number(d, kfold ? "kfoldic" : "looic", path);
  m.se_looic = json_number(d, kfold ? "se_kfoldic" : "se_looic", path);
  const double rows = json_number(d, "rows", path);
  m.subsampled = d.contains("subsample") && d.at("subsample").is_object();
  if (m.subsampled) {
    m.sub_se_elpd_loo = json_number(d, "subsampling_se_elpd_loo", path);
    m.sub_se_p_loo = json_number(d, "subsampling_se_p_loo", path);
    m.sub_se_looic = json_number(d, "subsampling_se_looic", path);
  }
  if (d.contains("response_hash") && d.at("response_hash").is_string())
    m.response_hash = d.at("response_hash");
  if (d.contains("row_hash") && d.at("row_hash").is_string()) m.row_hash = d.at("row_hash");
  if (!d.contains("pointwise_file") || !d.at("pointwise_file").is_string())
    throw data_error(
        path, "has no pointwise values, which the paired differences need (run loo with --pointwise FILE)");
  std::filesystem::path pw = d.at("pointwise_file").get<std::string>();
  if (pw.is_relative()) pw = std::filesystem::path(path).parent_path() / pw;
  read_pointwise(pw.string(), m);
  if (static_cast<double>(m.elpd.size()) != rows)
    throw data_error(pw.string(), "holds " + std::to_string(m.elpd.size()) + " rows where " + path +
                                      " says " + std::to_string(static_cast<long>(rows)));
  check_pointwise_total(m, pw.string(), path, kfold ? "elpd_kfold" : "elpd_loo");
  return m;
}

CompareModel model_from_fit(const std::string& dir, int threads) {
  const std::string summary_path = (std::filesystem::path(dir) / "summary.json").string();
  CompareJson s;
  try {
    s = CompareJson::parse(read_text_file(summary_path));
  } catch (const nlohmann::json::exception&) {
    throw data_error(summary_path, "not valid JSON");
  }
  if (!s.is_object() || !s.contains("data") || !s.at("data").is_object() ||
      !s.at("data").contains("config") || !s.at("data").at("config").is_string())
    throw data_error(summary_path,
                     "records no config (a fit made before loo existed): run bayes-vi loo CONFIG --fit " +
                         dir + " --output FILE --pointwise P and compare FILE");
  LooRequest req;
  req.config = s.at("data").at("config").get<std::string>();
  req.fit = dir;
  req.threads = threads;
  req.pointwise = true;
  reduce::SerialCommunicator alone;  // compare runs in one process
  const LooRun run = compute_loo(req, alone);
  CompareModel m;
  m.name = dir;
  m.criterion = "loo";
  m.elpd_loo = run.totals.elpd_loo.estimate;
  m.se_elpd_loo = run.totals.elpd_loo.se;
  m.p_loo = run.totals.p_loo.estimate;
  m.se_p_loo = run.totals.p_loo.se;
  m.looic = run.totals.looic.estimate;
  m.se_looic = run.totals.looic.se;
  m.response_hash = run.response_hash;
  m.row_hash = run.row_hash;
  m.elpd.resize(static_cast<Eigen::Index>(run.pointwise.size()));
  for (std::size_t i = 0; i < run.pointwise.size(); ++i) {
    m.rows.push_back(run.pointwise[i].row);
    m.elpd[static_cast<Eigen::Index>(i)] = run.pointwise[i].elpd_loo;
  }
  return m;
}

std::string fixed1(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

}  // namespace

int run_compare(const CompareOptions& o) {
  setup_logging(o.log_level);
  const int threads = resolve_threads(o.threads);
  std::vector<CompareModel> models;
  for (const std::string& in : o.inputs) {
    std::error_code ec;
    models.push_back(std::filesystem::is_directory(in, ec) ? model_from_fit(in, threads)
                                                           : model_from_document(in));
  }
  // The same data: the same rows (count and records), the same responses and in the same order.
  // The response hash is order-free and rows are numbered by each fit's own file, so a fit of the
  // same file with its rows shuffled passes those checks while compare would pair different rows;
  // the row hash tells it. Documents and summaries of earlier versions have no row hash: checked
  // against the first model that has one.
  const CompareModel& first = models.front();
  const CompareModel* ordered = nullptr;
  for (const CompareModel& m : models)
    if (!ordered && !m.row_hash.empty()) ordered = &m;
  for (const CompareModel& m : models) {
    if (m.elpd.size() != first.elpd.size())
      throw data_error(m.name, "has " + std::to_string(m.elpd.size()) + " rows, " + first.name + " has " +
                                   std::to_string(first.elpd.size()) +
                                   ": models of different data cannot be compared");
    if (m.rows != first.rows)
      throw data_error(
          m.name, "leaves out other rows than " + first.name +
                      " (missing values dropped differently): models of different data cannot be compared");
    if (!m.response_hash.empty() && !first.response_hash.empty() && m.response_hash != first.response_hash)
      throw data_error(m.name, "was evaluated on other responses than " + first.name + " (response hash " +
                                   m.response_hash + " against " + first.response_hash +
                                   "): models of different data cannot be compared");
    if (ordered && !m.row_hash.empty() && m.row_hash != ordered->row_hash)
      throw data_error(m.name, "holds other rows than " + ordered->name + " at the same positions (row hash " +
                                   m.row_hash + " against " + ordered->row_hash +
                                   ": the same responses in another order?): models of different data cannot "
                                   "be compared");
  }
  const auto K = static_cast<Eigen::Index>(models.size());
  const Eigen::Index N = first.elpd.size();
  bool any_sub = false;
  for (const CompareModel& m : models) any_sub = any_sub || m.subsampled;
  if (any_sub) {
    for (const CompareModel& m : models)
      if (!m.subsampled)
        throw data_error(m.name, std::string(m.criterion == "kfold" ? "is a kfold result" : "is a full loo") +
                                     " and others are subsampled loo results (loo --subsample): run loo on "
                                     "every model with the same --subsample M --seed S, or on none");
    if (o.weights == "stacking")
      throw usage_error("--weights stacking needs every row's elpd_loo; subsampled loo documents have some");
  }
  // kfold and loo results estimate the same elpd by different cross-validations (refits against
  // importance sampling of one fit), so their difference carries both estimators' errors, not only
  // the models'. R's loo_compare warns ("Comparing LOO-CV to K-fold-CV") and goes on; so does this,
  // and the output names each model's criterion.
  bool mixed = false;
  for (const CompareModel& m : models) mixed = mixed || m.criterion != first.criterion;
  if (mixed) {
    const auto of = [&models](const char* c) {
      return std::find_if(models.begin(), models.end(), [c](const CompareModel& m) { return m.criterion == c; })->name;
    };
    cli_logger().warn("comparing LOO-CV to K-fold-CV (" + of("kfold") + " is a kfold result, " + of("loo") +
                      " a loo one): for a more accurate comparison use kfold with the same folds, or loo, "
                      "for all models compared");
  }
  // kfold results of different K: each fold's fit sees another share of the rows, so their elpd
  // estimates differ in bias as well (R's loo_compare warns "Not all kfold objects have the same K").
  const CompareModel* k_first = nullptr;
  for (const CompareModel& m : models) {
    if (m.folds == 0) continue;
    if (!k_first) {
      k_first = &m;
    } else if (m.folds != k_first->folds) {
      cli_logger().warn("kfold results with different numbers of folds (" + k_first->name + ": " +
                        std::to_string(k_first->folds) + ", " + m.name + ": " + std::to_string(m.folds) +
                        "): a fold's fit sees another share of the rows in each; use the same --folds");
      break;
    }
  }
  struct Ranked {
    Eigen::Index index = 0;
    double elpd_diff = 0, se_diff = 0, sub_se_diff = 0;
  };
  std::vector<Ranked> ranked;
  Eigen::VectorXd weights;
  if (!any_sub) {
    Eigen::MatrixXd elpd(N, K);
    for (Eigen::Index k = 0; k < K; ++k) elpd.col(k) = models[static_cast<std::size_t>(k)].elpd;
    for (const auto& r : diagnostics::loo_compare(elpd)) ranked.push_back({r.index, r.elpd_diff, r.se_diff, 0.0});
    if (o.weights == "stacking") weights = diagnostics::stacking_weights(elpd);
  } else {
    // As loo_compare() does for psis_loo_ss objects: best first by the estimated elpd_loo (ties in
    // argument order); against the best, on the same sampled rows, the difference estimator on
    // the paired differences (approximations of every row, elpd_loo of the sampled ones); on
    // different samples the naive difference with se added in quadrature, and a warning.
    std::vector<Eigen::Index> order(static_cast<std::size_t>(K));
    for (Eigen::Index k = 0; k < K; ++k) order[static_cast<std::size_t>(k)] = k;
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
      return models[static_cast<std::size_t>(a)].elpd_loo > models[static_cast<std::size_t>(b)].elpd_loo;
    });
    const CompareModel& best = models[static_cast<std::size_t>(order[0])];
    for (Eigen::Index k : order) {
      const CompareModel& m = models[static_cast<std::size_t>(k)];
      Ranked r;
      r.index = k;
      if (&m == &best) {
        ranked.push_back(r);
        continue;
      }
      if (m.sampled == best.sampled) {
        diagnostics::LooSubsampleAccumulator acc;
        for (Eigen::Index i = 0; i < N; ++i) {
          const double a = m.approx[i] - best.approx[i];
          acc.add_approximation(a);
          if (m.sampled[static_cast<std::size_t>(i)]) {
            diagnostics::LooPoint p;
            p.elpd_loo = m.elpd[i] - best.elpd[i];
            acc.add_sampled(a, p);
          }
        }
        const diagnostics::LooSubsampleTotals t = acc.totals();
        r.elpd_diff = t.elpd_loo.estimate;
        r.se_diff = t.elpd_loo.se;
        r.sub_se_diff = t.elpd_loo.subsampling_se;
      } else {
        cli_logger().warn(m.name + " and " + best.name +
                          " were subsampled on different rows (another --subsample or --seed): the naive "
                          "difference and se are used, as loo_compare does");
        r.elpd_diff = m.elpd_loo - best.elpd_loo;
        r.se_diff = std::hypot(m.se_elpd_loo, best.se_elpd_loo);
        r.sub_se_diff = std::hypot(m.sub_se_elpd_loo, best.sub_se_elpd_loo);
      }
      ranked.push_back(r);
    }
  }

  CompareJson doc;
  CompareJson rows = CompareJson::array();
  // The table: loo_compare's columns (print(..., simplify = FALSE)), one decimal as R prints;
  // subsampled loos add the subsampling se columns R's psis_loo_ss comparison prints.
  std::vector<std::string> header = {"",      "elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo",
                                     "p_loo", "se_p_loo",  "looic",   "se_looic"};
  if (any_sub)
    header = {"",      "elpd_diff", "se_diff",  "subsampling_se_diff", "elpd_loo", "se_elpd_loo", "subsampling_se_elpd_loo",
              "p_loo", "se_p_loo",  "looic",   "se_looic"};
  if (weights.size() > 0) header.push_back("weight");
  if (mixed) header.push_back("criterion");
  std::vector<std::vector<std::string>> cells = {header};
  for (const auto& r : ranked) {
    const CompareModel& m = models[static_cast<std::size_t>(r.index)];
    CompareJson j;
    j["model"] = m.name;
    j["criterion"] = m.criterion;
    j["elpd_diff"] = r.elpd_diff;
    j["se_diff"] = r.se_diff;
    if (any_sub) j["subsampling_se_diff"] = r.sub_se_diff;
    j["elpd_loo"] = m.elpd_loo;
    j["se_elpd_loo"] = m.se_elpd_loo;
    if (any_sub) j["subsampling_se_elpd_loo"] = m.sub_se_elpd_loo;
    j["p_loo"] = m.p_loo;
    j["se_p_loo"] = m.se_p_loo;
    if (any_sub) j["subsampling_se_p_loo"] = m.sub_se_p_loo;
    j["looic"] = m.looic;
    j["se_looic"] = m.se_looic;
    if (any_sub) j["subsampling_se_looic"] = m.sub_se_looic;
    std::vector<std::string> line = {m.name, fixed1(r.elpd_diff), fixed1(r.se_diff)};
    if (any_sub) line.push_back(fixed1(r.sub_se_diff));
    line.push_back(fixed1(m.elpd_loo));
    line.push_back(fixed1(m.se_elpd_loo));
    if (any_sub) line.push_back(fixed1(m.sub_se_elpd_loo));
    for (double v : {m.p_loo, m.se_p_loo, m.looic, m.se_looic}) line.push_back(fixed1(v));
    if (weights.size() > 0) {
      j["stacking_weight"] = weights[r.index];
      char w[32];
      std::snprintf(w, sizeof w, "%.3f", weights[r.index]);
      line.emplace_back(w);
    }
    if (mixed) line.push_back(m.criterion);
    rows.push_back(std::move(j));
    cells.push_back(std::move(line));
  }
  doc["models"] = std::move(rows);
  doc["rows"] = N;
  doc["weights"] = weights.size() > 0 ? CompareJson("stacking") : CompareJson(nullptr);
  doc["subsampled"] = any_sub;

  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& line : cells)
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string table;
  for (const auto& line : cells) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      table += c == 0 ? line[c] + pad : " " + pad + line[c];  // names left, numbers right
    }
    table += '\n';
  }
  if (any_sub) {
    long m = 0;
    for (char c : first.sampled) m += c;
    table += "subsampled loo (loo --subsample): elpd_loo by the difference estimator on " + std::to_string(m) +
             " of " + std::to_string(N) + " rows\n";
  }
  const std::string out = o.format == "table" ? table : doc.dump(2) + "\n";
  if (o.format == "json") std::fputs(table.c_str(), stderr);
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw output_error("stdout", "cannot write the comparison");
  return 0;
}

}  // namespace bvi::cli
