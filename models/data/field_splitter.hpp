#pragma once
// Splits one record into its fields. The record comes from RecordStream, which has already
// rejected malformed quoting, so this only has to undo it: strip the quotes of a quoted field
// and turn each `""` into `"`.
#include <cstddef>
#include <string>
#include <string_view>

namespace bvi::data {

class FieldSplitter {
 public:
  // `has_quotes` false promises no '"' in the text, which allows the plain comma split.
  FieldSplitter(std::string_view record, bool has_quotes)
      : begin_(record.data()), p_(record.data()), end_(record.data() + record.size()), quotes_(has_quotes) {}

  // The next field's content, valid until the next call; false after the last field. A
  // record has at least one field: "" is one empty field, "a," is "a" and "".
  bool next(std::string_view& field);

  // How many fields next() has not returned yet; for reporting a ragged row.
  long remaining() const;

  // Byte offset in the record where the last returned field starts; for the line it is on.
  std::size_t last_field_offset() const { return static_cast<std::size_t>(last_ - begin_); }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  const char* last_ = nullptr;
  bool quotes_;
  bool done_ = false;
  std::string unescaped_;  // a quoted field with `""` in it, unescaped
};

}  // namespace bvi::data
