#include "cli/kfold_folds.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "common/error.hpp"
#include "inference/rng/uniform_stream.hpp"
#include "models/data/field_splitter.hpp"
#include "models/data/record_stream.hpp"

namespace bvi::cli {

namespace {

// Step of the simulation stream that orders the folds: its own, apart from the new groups'
// effects (1000 + factor) and simulate's rows.
constexpr std::uint64_t kKfoldStep = 3000;

// 0 ... n - 1 in the order of their Philox uniforms, dealt to folds in turn.
std::vector<int> kfold_deal(std::size_t n, int folds, std::uint64_t seed) {
  Eigen::MatrixXd u(static_cast<Eigen::Index>(n), 1);
  if (n > 0) rng::standard_uniform(seed, rng::Purpose::simulation, kKfoldStep, 0, 0, u);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return u(static_cast<Eigen::Index>(a), 0) < u(static_cast<Eigen::Index>(b), 0);
  });
  std::vector<int> fold(n);
  for (std::size_t j = 0; j < n; ++j) fold[order[j]] = static_cast<int>(j % static_cast<std::size_t>(folds));
  return fold;
}

}  // namespace

KfoldData read_kfold_data(const std::string& path, const std::string& group_column) {
  KfoldData d;
  data::RecordStream in(path, 0, 1);
  in.skip_utf8_bom();
  data::RawRecord r;
  if (!in.next(r)) throw data_error(path, "the file is empty (no header)");
  d.header = std::string(r.text);
  long column = -1;
  if (!group_column.empty()) {
    data::FieldSplitter fields(r.text, r.has_quotes);
    std::string_view f;
    for (long j = 0; fields.next(f); ++j)
      if (f == group_column) column = j;
    if (column < 0) throw data_error(file_line(path, 1), "no column '" + group_column + "' for --group");
  }
  std::unordered_map<std::string, int> seen;
  while (in.next(r)) {
    if (r.blank()) continue;  // trailing blank lines, which the data reader ignores too
    d.records.emplace_back(r.text);
    if (column >= 0) {
      data::FieldSplitter fields(r.text, r.has_quotes);
      std::string_view f, value;
      for (long j = 0; fields.next(f); ++j)
        if (j == column) value = f;
      std::string v(value);
      if (seen.emplace(v, 0).second) d.levels.push_back(v);
      d.group.push_back(std::move(v));
    }
  }
  if (d.records.empty()) throw data_error(file_line(path, 2), "no data rows");
  return d;
}

std::vector<int> kfold_assign(const KfoldData& data, int folds, std::uint64_t seed) {
  if (data.group.empty()) return kfold_deal(data.records.size(), folds, seed);
  const std::vector<int> level_fold = kfold_deal(data.levels.size(), folds, seed);
  std::unordered_map<std::string, int> fold_of;
  for (std::size_t k = 0; k < data.levels.size(); ++k) fold_of[data.levels[k]] = level_fold[k];
  std::vector<int> fold(data.records.size());
  for (std::size_t i = 0; i < fold.size(); ++i) fold[i] = fold_of.at(data.group[i]);
  return fold;
}

std::string kfold_file_text(const KfoldData& data, const std::vector<int>& fold_of, int fold, bool held_out) {
  std::string out = data.header + "\n";
  for (std::size_t i = 0; i < data.records.size(); ++i)
    if ((fold_of[i] == fold) == held_out) out += data.records[i] + "\n";
  return out;
}

}  // namespace bvi::cli
