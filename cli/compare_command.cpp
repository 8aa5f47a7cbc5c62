#include "cli/compare_command.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/common_options.hpp"
#include "cli/logging.hpp"
#include "cli/loo_command.hpp"
#include "cli/loo_run.hpp"
#include "common/error.hpp"
#include "common/read_file.hpp"
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
  std::string name;  // the argument as given
  double elpd_loo = 0, se_elpd_loo = 0, p_loo = 0, se_p_loo = 0, looic = 0, se_looic = 0;
  std::string response_hash;
  std::vector<long> rows;  // the data rows (1-based records), in order
  Eigen::VectorXd elpd;    // pointwise elpd_loo
};

double json_number(const CompareJson& d, const char* key, const std::string& where) {
  if (!d.contains(key) || !d.at(key).is_number())
    throw data_error(where,
                     std::string("not a bayes-vi loo document ('") + key + "' is missing or not a number)");
  return d.at(key).get<double>();
}

// The pointwise CSV loo --pointwise writes: row,elpd_loo,... (elpd_loo is all compare needs), or
// kfold's DIR/pointwise.csv: row,elpd_kfold,...
void read_pointwise(const std::string& path, CompareModel& m) {
  const std::string text = read_text_file(path);
  std::istringstream in(text);
  std::string line;
  long number = 0;
  std::vector<double> elpd;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      if (line.rfind("row,elpd_loo,", 0) != 0 && line.rfind("row,elpd_kfold,", 0) != 0)
        throw data_error(file_line(path, 1),
                         "not a loo pointwise file (expected the header row,elpd_loo,...)");
      continue;
    }
    if (line.empty()) continue;
    const auto c1 = line.find(','), c2 = line.find(',', c1 == std::string::npos ? c1 : c1 + 1);
    double row = 0, v = 0;
    if (c1 == std::string::npos || c2 == std::string::npos ||
        bvi::data::parse_number(line.substr(0, c1), row) != bvi::data::NumberStatus::ok ||
        bvi::data::parse_number(line.substr(c1 + 1, c2 - c1 - 1), v) != bvi::data::NumberStatus::ok ||
        row < 1 || row != std::floor(row))
      throw data_error(file_line(path, number), "expected a row number and a finite elpd_loo");
    m.rows.push_back(static_cast<long>(row));
    elpd.push_back(v);
  }
  m.elpd = Eigen::Map<const Eigen::VectorXd>(elpd.data(), static_cast<Eigen::Index>(elpd.size()));
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
  m.elpd_loo = json_number(d, kfold ? "elpd_kfold" : "elpd_loo", path);
  m.se_elpd_loo = json_number(d, kfold ? "se_elpd_kfold" : "se_elpd_loo", path);
  m.p_loo = json_number(d, kfold ? "p_kfold" : "p_loo", path);
  m.se_p_loo = json_number(d, kfold ? "se_p_kfold" : "se_p_loo", path);
  m.looic = json_number(d, kfold ? "kfoldic" : "looic", path);
  m.se_looic = json_number(d, kfold ? "se_kfoldic" : "se_looic", path);
  const double rows = json_number(d, "rows", path);
  if (d.contains("response_hash") && d.at("response_hash").is_string())
    m.response_hash = d.at("response_hash");
  if (!d.contains("pointwise_file") || !d.at("pointwise_file").is_string())
    throw data_error(
        path, "has no pointwise values, which the paired differences need (run loo with --pointwise FILE)");
  std::filesystem::path pw = d.at("pointwise_file").get<std::string>();
  if (pw.is_relative()) pw = std::filesystem::path(path).parent_path() / pw;
  read_pointwise(pw.string(), m);
  if (static_cast<double>(m.elpd.size()) != rows)
    throw data_error(pw.string(), "holds " + std::to_string(m.elpd.size()) + " rows where " + path +
                                      " says " + std::to_string(static_cast<long>(rows)));
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
  m.elpd_loo = run.totals.elpd_loo.estimate;
  m.se_elpd_loo = run.totals.elpd_loo.se;
  m.p_loo = run.totals.p_loo.estimate;
  m.se_p_loo = run.totals.p_loo.se;
  m.looic = run.totals.looic.estimate;
  m.se_looic = run.totals.looic.se;
  m.response_hash = run.response_hash;
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
  // The same data: the same rows (count and records) and the same responses.
  const CompareModel& first = models.front();
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
  }
  const auto K = static_cast<Eigen::Index>(models.size());
  const Eigen::Index N = first.elpd.size();
  Eigen::MatrixXd elpd(N, K);
  for (Eigen::Index k = 0; k < K; ++k) elpd.col(k) = models[static_cast<std::size_t>(k)].elpd;
  const std::vector<diagnostics::ComparedModel> ranked = diagnostics::loo_compare(elpd);
  Eigen::VectorXd weights;
  if (o.weights == "stacking") weights = diagnostics::stacking_weights(elpd);

  CompareJson doc;
  CompareJson rows = CompareJson::array();
  // The table: loo_compare's columns (print(..., simplify = FALSE)), one decimal as R prints.
  std::vector<std::string> header = {"",      "elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo",
                                     "p_loo", "se_p_loo",  "looic",   "se_looic"};
  if (weights.size() > 0) header.push_back("weight");
  std::vector<std::vector<std::string>> cells = {header};
  for (const auto& r : ranked) {
    const CompareModel& m = models[static_cast<std::size_t>(r.index)];
    CompareJson j;
    j["model"] = m.name;
    j["elpd_diff"] = r.elpd_diff;
    j["se_diff"] = r.se_diff;
    j["elpd_loo"] = m.elpd_loo;
    j["se_elpd_loo"] = m.se_elpd_loo;
    j["p_loo"] = m.p_loo;
    j["se_p_loo"] = m.se_p_loo;
    j["looic"] = m.looic;
    j["se_looic"] = m.se_looic;
    std::vector<std::string> line = {
        m.name,          fixed1(r.elpd_diff), fixed1(r.se_diff), fixed1(m.elpd_loo), fixed1(m.se_elpd_loo),
        fixed1(m.p_loo), fixed1(m.se_p_loo),  fixed1(m.looic),   fixed1(m.se_looic)};
    if (weights.size() > 0) {
      j["stacking_weight"] = weights[r.index];
      char w[32];
      std::snprintf(w, sizeof w, "%.3f", weights[r.index]);
      line.emplace_back(w);
    }
    rows.push_back(std::move(j));
    cells.push_back(std::move(line));
  }
  doc["models"] = std::move(rows);
  doc["rows"] = N;
  doc["weights"] = weights.size() > 0 ? CompareJson("stacking") : CompareJson(nullptr);

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
  const std::string out = o.format == "table" ? table : doc.dump(2) + "\n";
  if (o.format == "json") std::fputs(table.c_str(), stderr);
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw output_error("stdout", "cannot write the comparison");
  return 0;
}

}  // namespace bvi::cli
