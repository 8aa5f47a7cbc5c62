#include "models/data/row_parser.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/error.hpp"
#include "models/data/field_splitter.hpp"
#include "models/data/parse_number.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::data {

namespace {
template <class T>
const char* type_name();
template <>
const char* type_name<float>() {
  return "float";
}
template <>
const char* type_name<double>() {
  return "double";
}
}  // namespace

RowParser::RowParser(const std::string& path, const std::vector<std::string>& columns,
                     const std::vector<int>& feature_columns, int response_column, const ResponseCheck& check)
    : path_(path), columns_(columns), check_(check), slot_(columns.size(), kSkip) {
  const int n = static_cast<int>(columns.size());
  auto claim = [&](int column, int slot) {
    if (column < 0 || column >= n) throw std::invalid_argument("RowParser: column index out of range");
    if (slot_[column] != kSkip) throw std::invalid_argument("RowParser: column selected twice");
    slot_[column] = slot;
  };
  for (std::size_t k = 0; k < feature_columns.size(); ++k) claim(feature_columns[k], static_cast<int>(k));
  if (response_column >= 0) claim(response_column, kResponse);
}

void RowParser::fail(const RawRecord& record, std::size_t offset, const std::string& what) const {
  // The physical line of the field, which is later than the record's first line only after a
  // quoted newline.
  const long line =
      record.line +
      std::count(record.text.begin(), record.text.begin() + std::min(offset, record.text.size()), '\n');
  throw data_error(file_line(path_, line), what);
}

void RowParser::check_field_count(const RawRecord& record, long fields) const {
  const long expected = static_cast<long>(columns_.size());
  if (fields != expected)
    fail(record, 0,
         "ragged row: expected " + std::to_string(expected) + " fields, found " + std::to_string(fields));
}

template <class T>
void RowParser::parse(const RawRecord& record, T* features, double* response) const {
  if (record.blank())
    fail(record, 0,
         "ragged row: a blank line where " + std::to_string(columns_.size()) + " fields were expected");
  FieldSplitter fields(record.text, record.has_quotes);
  std::string_view text;
  const std::size_t n = slot_.size();
  std::size_t c = 0;
  for (; fields.next(text); ++c) {
    if (c >= n || slot_[c] == kSkip) continue;
    auto bad_field = [&](const std::string& what) {
      check_field_count(record, static_cast<long>(c) + 1 + fields.remaining());
      fail(record, fields.last_field_offset(), "column " + quoted_excerpt(columns_[c]) + ": " + what);
    };
    double v = 0.0;
    const NumberStatus status = parse_number(text, v);
    if (status == NumberStatus::empty) bad_field("empty field");
    if (status != NumberStatus::ok) bad_field(std::string(describe(status)) + " " + quoted_excerpt(text));
    if (slot_[c] == kResponse) {
      if (check_) {
        const std::string why = check_(v);
        if (!why.empty()) bad_field(why);
      }
      *response = v;
    } else {
      const T t = static_cast<T>(v);
      if (!std::isfinite(t))
        bad_field(std::string("number too large for a ") + type_name<T>() + " " + quoted_excerpt(text));
      features[slot_[c]] = t;
    }
  }
  check_field_count(record, static_cast<long>(c));
}

template void RowParser::parse<float>(const RawRecord&, float*, double*) const;
template void RowParser::parse<double>(const RawRecord&, double*, double*) const;

}  // namespace bvi::data
