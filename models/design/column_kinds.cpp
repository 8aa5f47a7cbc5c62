#include "models/design/column_kinds.hpp"

#include <unordered_map>

#include "common/error.hpp"
#include "models/data/field_splitter.hpp"
#include "models/data/missing_cell.hpp"
#include "models/data/parse_number.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::models::design {

std::vector<bool> first_value_is_text(const data::CsvReader& reader, const std::vector<int>& columns) {
  std::vector<bool> text(columns.size(), false);
  std::vector<bool> decided(columns.size(), false);
  std::unordered_map<int, std::vector<std::size_t>> asked;  // header index -> positions in `columns`
  for (std::size_t k = 0; k < columns.size(); ++k) asked[columns[k]].push_back(k);
  std::size_t open = columns.size();
  if (open == 0) return text;
  reader.for_each_record(0, reader.records(), [&](Eigen::Index, const data::RawRecord& record) {
    data::FieldSplitter fields(record.text, record.has_quotes);
    std::string_view field;
    for (int c = 0; fields.next(field); ++c) {
      const auto it = asked.find(c);
      if (it == asked.end() || data::is_missing_cell(field)) continue;
      double unused;
      const bool is_text = data::parse_number(field, unused) == data::NumberStatus::invalid;
      for (std::size_t k : it->second) {
        if (decided[k]) continue;
        decided[k] = true;
        text[k] = is_text;
        --open;
      }
    }
    return open > 0;
  });
  return text;
}

ColumnKind judge_column(const data::CellTally& tally) {
  const long numbers = tally.numbers, others = tally.others;
  if (others == 0) return ColumnKind::numeric;
  // numbers / (numbers + others) > 0.9, in integers.
  const bool most = numbers > 9 * others;
  const bool all_but_few = others <= kFewOthers && numbers > others;
  return most || all_but_few ? ColumnKind::mostly_numbers : ColumnKind::categorical;
}

bool settle_column_kind(const data::CellTally& tally, const std::string& name, const std::string& path) {
  const ColumnKind kind = judge_column(tally);
  if (kind != ColumnKind::mostly_numbers) return kind == ColumnKind::categorical;
  const long total = tally.numbers + tally.others;
  std::string what = "column " + data::quoted_excerpt(name) + " holds numbers, but " +
                     std::to_string(tally.others) + " of its " + std::to_string(total) + " values " +
                     (tally.others == 1 ? "is" : "are") +
                     " not: " + data::quoted_excerpt(tally.samples.at(0).text);
  for (std::size_t k = 1; k < tally.samples.size(); ++k)
    what += (k == 1 ? " (also " : ", ") + data::quoted_excerpt(tally.samples[k].text) + " at line " +
            std::to_string(tally.samples[k].line);
  if (tally.samples.size() > 1)
    what += tally.others > static_cast<long>(tally.samples.size()) ? ", ...)" : ")";
  what +=
      "; fix these cells (a missing value may be written NA or left empty, with /data/missing set to "
      "\"drop\"), or list it in /data/categorical if it holds categories";
  throw data_error(file_line(path, tally.samples.at(0).line), what);
}

}  // namespace bvi::models::design
