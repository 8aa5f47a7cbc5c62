#include "models/design/column_kinds.hpp"

#include <unordered_map>

#include "models/data/field_splitter.hpp"
#include "models/data/missing_cell.hpp"
#include "models/data/parse_number.hpp"

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

}  // namespace bvi::models::design
