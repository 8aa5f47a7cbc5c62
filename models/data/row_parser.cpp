#include "models/data/row_parser.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/error.hpp"
#include "models/data/field_splitter.hpp"
#include "models/data/parse_number.hpp"
#include "models/data/text_bytes.hpp"
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
const std::vector<ExtraColumn> kNoExtras;
const RowCheck kNoRowCheck;

}  // namespace

RowParser::RowParser(const std::string& path, const std::vector<std::string>& columns,
                     const std::vector<int>& feature_columns, int response_column, const ResponseCheck& check)
    : RowParser(path, columns, feature_columns, response_column, check, kNoExtras, kNoRowCheck) {}

RowParser::RowParser(const std::string& path, const std::vector<std::string>& columns,
                     const std::vector<int>& feature_columns, int response_column, const ResponseCheck& check,
                     const std::vector<ExtraColumn>& extras, const RowCheck& row_check)
    : path_(path),
      columns_(columns),
      check_(check),
      extras_(&extras),
      row_check_(&row_check),
      response_column_(response_column),
      slot_(columns.size(), kSkip) {
  const int n = static_cast<int>(columns.size());
  auto claim = [&](int column, int slot) {
    if (column < 0 || column >= n) throw std::invalid_argument("RowParser: column index out of range");
    if (slot_[column] != kSkip) throw std::invalid_argument("RowParser: column selected twice");
    slot_[column] = slot;
  };
  for (std::size_t k = 0; k < feature_columns.size(); ++k) claim(feature_columns[k], static_cast<int>(k));
  if (response_column >= 0) claim(response_column, kResponse);
  for (std::size_t j = 0; j < extras.size(); ++j) claim(extras[j].column, kFirstExtra - static_cast<int>(j));
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
void RowParser::parse(const RawRecord& record, T* features, double* response, double* extras) const {
  if (record.blank())
    fail(record, 0,
         "ragged row: a blank line where " + std::to_string(columns_.size()) + " fields were expected");
  FieldSplitter fields(record.text, record.has_quotes);
  std::string_view text;
  const std::size_t n = slot_.size();
  std::size_t c = 0;
  std::size_t response_offset = 0;
  for (; fields.next(text); ++c) {
    if (c >= n || slot_[c] == kSkip) continue;
    auto bad_field = [&](const std::string& what) {
      check_field_count(record, static_cast<long>(c) + 1 + fields.remaining());
      fail(record, fields.last_field_offset(), "column " + quoted_excerpt(columns_[c]) + ": " + what);
    };
    double v = 0.0;
    const NumberStatus status = parse_number(text, v);
    if (status == NumberStatus::empty) bad_field("empty field");
    if (status != NumberStatus::ok) {
      if (const std::size_t at = first_foreign_byte(text); at != std::string_view::npos)
        bad_field(quoted_excerpt(text) + " holds " + foreign_byte_phrase(text, at));
      bad_field(std::string(describe(status)) + " " + quoted_excerpt(text));
    }
    if (slot_[c] == kResponse) {
      if (check_) {
        const std::string why = check_(v);
        if (!why.empty()) bad_field(why);
      }
      *response = v;
      response_offset = fields.last_field_offset();
    } else if (slot_[c] <= kFirstExtra) {
      const std::size_t j = static_cast<std::size_t>(kFirstExtra - slot_[c]);
      const ResponseCheck& check = (*extras_)[j].check;
      if (check) {
        const std::string why = check(v);
        if (!why.empty()) bad_field(why);
      }
      extras[j] = v;
    } else {
      const T t = static_cast<T>(v);
      if (!std::isfinite(t))
        bad_field(std::string("number too large for a ") + type_name<T>() + " " + quoted_excerpt(text));
      features[slot_[c]] = t;
    }
  }
  check_field_count(record, static_cast<long>(c));
  if (response_column_ >= 0 && *row_check_) {
    const std::string why = (*row_check_)(*response, extras);
    if (!why.empty())
      fail(record, response_offset, "column " + quoted_excerpt(columns_[response_column_]) + ": " + why);
  }
}

template void RowParser::parse<float>(const RawRecord&, float*, double*, double*) const;
template void RowParser::parse<double>(const RawRecord&, double*, double*, double*) const;

}  // namespace bvi::data
