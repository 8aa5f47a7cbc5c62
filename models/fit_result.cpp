#include "models/fit_result.hpp"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.hpp"
#include "common/read_file.hpp"
#include "models/data/parse_number.hpp"

namespace bvi::models {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

void read_draws(const std::string& path, FitResult& fit) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const Error& e) {
    throw input_error(path, e.detail() + " (was the fit made with --output?)");
  }
  std::istringstream in(text);
  std::string line;
  long number = 0;
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  bool mean_row_seen = false;
  long declared = -1;  // "# output_samples=N", as fit writes it
  const std::string kDeclared = "# output_samples=";
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.compare(0, kDeclared.size(), kDeclared) == 0) {
      data::NumberStatus status = data::NumberStatus::ok;
      double n = 0;
      status = data::parse_number(line.substr(kDeclared.size()), n);
      if (status == data::NumberStatus::ok && n >= 0 && n == std::floor(n)) declared = static_cast<long>(n);
    }
    if (line.empty() || line[0] == '#') continue;
    // A last line without its newline is where a copy or a write was cut short; its last number
    // may have lost digits and still parse.
    if (in.eof() && !text.empty() && text.back() != '\n')
      throw data_error(file_line(path, number), "the last line has no end: the file is cut short");
    if (header.empty()) {
      header = split(line);
      if (header.size() < 4 || header[0] != "lp__" || header[1] != "log_p__" || header[2] != "log_g__")
        throw data_error(file_line(path, number),
                         "not a bayes-vi draws.csv (expected lp__,log_p__,log_g__,...)");
      continue;
    }
    const std::vector<std::string> fields = split(line);
    if (fields.size() != header.size())
      throw data_error(file_line(path, number), "expected " + std::to_string(header.size()) +
                                                    " fields, found " + std::to_string(fields.size()));
    if (!mean_row_seen) {  // the first row is the mean of the approximation, not a draw
      mean_row_seen = true;
      continue;
    }
    std::vector<double> row;
    for (size_t j = 1; j < 3; ++j) {  // log_p__, log_g__: what loo's importance ratios need
      double v;
      row.push_back(data::parse_number(fields[j], v) == data::NumberStatus::ok ? v : std::nan(""));
    }
    for (size_t j = 3; j < fields.size(); ++j) {
      double v;
      if (data::parse_number(fields[j], v) != data::NumberStatus::ok)
        throw data_error(file_line(path, number), "column '" + header[j] + "': not a finite number");
      row.push_back(v);
    }
    rows.push_back(std::move(row));
  }
  if (header.empty()) throw data_error(path, "no header: not a bayes-vi draws.csv");
  if (rows.empty()) throw data_error(path, "no draws (was the fit run with output_draws 0?)");
  if (declared >= 0 && static_cast<long>(rows.size()) != declared)
    throw data_error(path, "holds " + std::to_string(rows.size()) + " draws where its header says " +
                               std::to_string(declared) + ": the file is cut short or was edited");
  fit.names.assign(header.begin() + 3, header.end());
  const auto S = static_cast<Eigen::Index>(rows.size());
  fit.draws.resize(S, static_cast<Eigen::Index>(fit.names.size()));
  fit.log_p.resize(S);
  fit.log_g.resize(S);
  for (size_t s = 0; s < rows.size(); ++s) {
    fit.log_p[static_cast<Eigen::Index>(s)] = rows[s][0];
    fit.log_g[static_cast<Eigen::Index>(s)] = rows[s][1];
    for (size_t j = 0; j < fit.names.size(); ++j)
      fit.draws(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(j)) = rows[s][j + 2];
  }
}

}  // namespace

FitResult read_fit(const std::string& dir) {
  namespace fs = std::filesystem;
  FitResult fit;
  fit.dir = dir;
  const std::string summary_path = (fs::path(dir) / "summary.json").string();
  nlohmann::json s;
  try {
    s = nlohmann::json::parse(read_text_file(summary_path));
  } catch (const nlohmann::json::exception&) {
    throw data_error(summary_path, "not valid JSON");
  }
  try {
    const auto& d = s.at("data");
    fit.features = d.at("features").get<std::vector<std::string>>();
    fit.response = d.at("response").get<std::string>();
    fit.likelihood = d.at("likelihood").get<std::string>();
    fit.intercept = d.at("intercept").get<bool>();
    if (d.contains("design")) fit.design = d.at("design");
    if (d.contains("response_hash")) fit.response_hash = d.at("response_hash").get<std::string>();
    if (d.contains("row_hash")) fit.row_hash = d.at("row_hash").get<std::string>();
    if (d.contains("levels")) fit.levels = d.at("levels").get<std::vector<std::string>>();
    if (s.contains("rows") && s.at("rows").is_number_integer()) fit.rows = s.at("rows").get<long long>();
    if (s.contains("seed") && s.at("seed").is_number_integer()) fit.seed = s.at("seed").get<long long>();
    if (!d.at("standardization").is_null()) {
      const auto c = d.at("standardization").at("center").get<std::vector<double>>();
      const auto k = d.at("standardization").at("scale").get<std::vector<double>>();
      if (c.size() != fit.features.size() || k.size() != fit.features.size())
        throw std::invalid_argument("standardization of the wrong size");
      // New rows are divided by the scales: a zero, negative or non-finite one is not a fit's.
      for (std::size_t j = 0; j < c.size(); ++j)
        if (!std::isfinite(c[j]) || !std::isfinite(k[j]) || !(k[j] > 0))
          throw std::invalid_argument("standardization of feature " + std::to_string(j + 1) +
                                      " is not a finite center and a positive scale");
      fit.center = Eigen::Map<const Eigen::VectorXd>(c.data(), static_cast<Eigen::Index>(c.size()));
      fit.scale = Eigen::Map<const Eigen::VectorXd>(k.data(), static_cast<Eigen::Index>(k.size()));
    }
  } catch (const std::exception& e) {
    throw data_error(summary_path, std::string("not the summary of a bayes-vi fit (") + e.what() + ")");
  }
  read_draws((fs::path(dir) / "draws.csv").string(), fit);
  return fit;
}

}  // namespace bvi::models
