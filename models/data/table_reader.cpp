#include "models/data/table_reader.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "common/error.hpp"
#include "models/data/field_splitter.hpp"
#include "models/data/missing_cell.hpp"
#include "models/data/parse_number.hpp"
#include "models/data/text_bytes.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::data {

namespace {

enum class Slot : unsigned char { skip, numeric, text, response, extra };

struct ColumnSlot {
  Slot kind = Slot::skip;
  int index = 0;       // within its kind
  bool tally = false;  // count its cells as numbers or not (TableSpec::tally_*)
};

template <class T>
const char* type_name() {
  return std::is_same_v<T, float> ? "float" : "double";
}

// One record into one row of the table; false when a used cell is missing.
template <class T>
class TableParser {
 public:
  TableParser(const CsvReader& reader, const TableSpec& spec) : reader_(reader), spec_(spec) {
    const int n = static_cast<int>(reader.columns().size());
    slots_.resize(static_cast<std::size_t>(n));
    auto claim = [&](int column, Slot kind, int index, bool tally = false) {
      if (column < 0 || column >= n) throw std::invalid_argument("read_table: column index out of range");
      if (slots_[column].kind != Slot::skip) throw std::invalid_argument("read_table: column selected twice");
      slots_[column] = {kind, index, tally};
    };
    auto tallied = [](const std::vector<bool>& flags, std::size_t k) { return k < flags.size() && flags[k]; };
    for (std::size_t k = 0; k < spec.numeric.size(); ++k)
      claim(spec.numeric[k], Slot::numeric, int(k), tallied(spec.tally_numeric, k));
    for (std::size_t k = 0; k < spec.text.size(); ++k)
      claim(spec.text[k], Slot::text, int(k), tallied(spec.tally_text, k));
    numeric_tallies_.resize(spec.numeric.size());
    numeric_absent_.resize(spec.numeric.size());
    text_tallies_.resize(spec.text.size());
    if (spec.response >= 0) claim(spec.response, Slot::response, 0);
    for (std::size_t k = 0; k < spec.extras.size(); ++k) claim(spec.extras[k].column, Slot::extra, int(k));
    pending_.resize(spec.text.size());
    for (std::size_t k = 0; k < spec.response_labels.size(); ++k) {
      label_index_.emplace(spec.response_labels[k], static_cast<double>(k) + spec.first_label_value);
      if (k < 8) label_list_ += (k ? ", " : "") + quoted_excerpt(spec.response_labels[k]);
    }
    if (spec.response_labels.size() > 8) label_list_ += ", ... (" + std::to_string(spec.response_labels.size()) + ")";
  }

  // Parses `record` into numeric[0, D), *y, extras[0, J) and codes[0, C); returns false (with
  // `missing_what` set for the first missing cell) when a used cell is missing.
  bool parse(const RawRecord& record, T* numeric, double* y, double* extras, std::int32_t* codes,
             std::vector<LevelDictionary>& levels, std::string* missing_what) {
    const std::vector<std::string>& columns = reader_.columns();
    if (record.blank())
      fail(record, 0,
           "ragged row: a blank line where " + std::to_string(columns.size()) + " fields were expected");
    FieldSplitter fields(record.text, record.has_quotes);
    std::string_view text;
    std::size_t c = 0, response_offset = 0;
    bool complete = true;
    for (; fields.next(text); ++c) {
      if (c >= slots_.size() || slots_[c].kind == Slot::skip) continue;
      const ColumnSlot slot = slots_[c];
      auto bad = [&](const std::string& what) {
        check_field_count(record, static_cast<long>(c) + 1 + fields.remaining());
        fail(record, fields.last_field_offset(), "column " + quoted_excerpt(columns[c]) + ": " + what);
      };
      if (is_missing_cell(text)) {
        if (slot.tally && slot.kind == Slot::numeric) ++numeric_absent_[static_cast<std::size_t>(slot.index)];
        if (complete && missing_what)
          *missing_what = "column " + quoted_excerpt(columns[c]) + ": " + missing_phrase(text);
        complete = false;
        continue;
      }
      auto line = [&] { return line_of(record, fields.last_field_offset()); };
      if (slot.kind == Slot::text) {
        if (const std::size_t at = first_foreign_byte(text); at != std::string_view::npos)
          bad(quoted_excerpt(text) + " holds " + foreign_byte_phrase(text, at));
        if (slot.tally) {
          double unused = 0.0;
          CellTally& tally = text_tallies_[static_cast<std::size_t>(slot.index)];
          if (parse_number(text, unused) == NumberStatus::invalid)
            tally.add_other(text, line);
          else
            ++tally.numbers;
        }
        // Interned only once the row is known to be complete: a dropped row adds no level.
        pending_[static_cast<std::size_t>(slot.index)].assign(trim_spaces(text));
        continue;
      }
      if (slot.kind == Slot::response && !label_index_.empty()) {
        const auto it = label_index_.find(std::string(trim_spaces(text)));
        if (it == label_index_.end()) {
          if (const std::size_t at = first_foreign_byte(text); at != std::string_view::npos)
            bad(quoted_excerpt(text) + " holds " + foreign_byte_phrase(text, at));
          bad(quoted_excerpt(text) + " is not one of the categories in /data/levels (" + label_list_ + ")");
        }
        *y = it->second;
        response_offset = fields.last_field_offset();
        continue;
      }
      double v = 0.0;
      const NumberStatus status = parse_number(text, v);
      if (status != NumberStatus::ok) {
        if (const std::size_t at = first_foreign_byte(text); at != std::string_view::npos)
          bad(quoted_excerpt(text) + " holds " + foreign_byte_phrase(text, at));
        if (slot.kind == Slot::numeric && slot.tally && status == NumberStatus::invalid) {
          numeric_tallies_[static_cast<std::size_t>(slot.index)].add_other(text, line);
          numeric[slot.index] = T(0);  // judged by the caller from the tallies before any use
          continue;
        }
        std::string what = std::string(describe(status)) + " " + quoted_excerpt(text);
        if (slot.kind == Slot::numeric && status == NumberStatus::invalid) what += " " + spec_.numeric_hint;
        if (slot.kind == Slot::response && status == NumberStatus::invalid && !spec_.response_hint.empty())
          what += " " + spec_.response_hint;
        bad(what);
      }
      if (slot.kind == Slot::response) {
        if (spec_.check) {
          const std::string why = spec_.check(v);
          if (!why.empty()) bad(why);
        }
        *y = v;
        response_offset = fields.last_field_offset();
      } else if (slot.kind == Slot::extra) {
        const ResponseCheck& check = spec_.extras[static_cast<std::size_t>(slot.index)].check;
        if (check) {
          const std::string why = check(v);
          if (!why.empty()) bad(why);
        }
        extras[slot.index] = v;
      } else {
        const T t = static_cast<T>(v);
        if (!std::isfinite(t))
          bad(std::string("number too large for a ") + type_name<T>() + " " + quoted_excerpt(text));
        numeric[slot.index] = t;
      }
    }
    check_field_count(record, static_cast<long>(c));
    if (complete)
      for (std::size_t k = 0; k < pending_.size(); ++k) codes[k] = levels[k].code(pending_[k]);
    if (complete && spec_.response >= 0 && spec_.row_check) {
      const std::string why = spec_.row_check(*y, extras);
      if (!why.empty())
        fail(record, response_offset,
             "column " + quoted_excerpt(columns[static_cast<std::size_t>(spec_.response)]) + ": " + why);
    }
    return complete;
  }

  // The tallies once `records` records are read. A tallied numeric column's numbers are not
  // counted one by one in the hot loop: every record read has a cell there, missing, a number or
  // not one (else it was an error), so numbers = records - missing - others.
  void finish_tallies(long records) {
    for (std::size_t k = 0; k < numeric_tallies_.size(); ++k)
      if (k < spec_.tally_numeric.size() && spec_.tally_numeric[k])
        numeric_tallies_[k].numbers = records - numeric_absent_[k] - numeric_tallies_[k].others;
  }

  std::vector<CellTally> numeric_tallies_, text_tallies_;  // per numeric / text column
  std::vector<long> numeric_absent_;                       // per numeric column: missing cells, when tallied

  long line_of(const RawRecord& record, std::size_t offset) const {
    return record.line +
           std::count(record.text.begin(), record.text.begin() + std::min(offset, record.text.size()), '\n');
  }

 private:
  [[noreturn]] void fail(const RawRecord& record, std::size_t offset, const std::string& what) const {
    throw data_error(file_line(reader_.path(), line_of(record, offset)), what);
  }
  void check_field_count(const RawRecord& record, long fields) const {
    const long expected = static_cast<long>(reader_.columns().size());
    if (fields != expected)
      fail(record, 0,
           "ragged row: expected " + std::to_string(expected) + " fields, found " + std::to_string(fields));
  }

  const CsvReader& reader_;
  const TableSpec& spec_;
  std::vector<ColumnSlot> slots_;
  std::vector<std::string> pending_;  // this record's labels, until it is known to be complete
  std::unordered_map<std::string, double> label_index_;  // response label -> category 1 ... K
  std::string label_list_;                               // the first labels, for messages
};

}  // namespace

template <class T>
Table<T> read_table(const CsvReader& reader, const TableSpec& spec, Eigen::Index begin, Eigen::Index end,
                    Eigen::Index chunk_records) {
  if (chunk_records < 1 || begin % chunk_records != 0)
    throw std::invalid_argument("read_table: rows must start at a chunk boundary");
  TableParser<T> parser(reader, spec);
  const Eigen::Index n = end - begin;
  const auto D = static_cast<Eigen::Index>(spec.numeric.size());
  const auto J = static_cast<Eigen::Index>(spec.extras.size());
  const std::size_t C = spec.text.size();
  Table<T> t;
  t.numeric.resize(n, D);
  if (spec.response >= 0) t.y.resize(n);
  t.extras.resize(n, J);
  t.codes.assign(C, {});
  for (auto& c : t.codes) c.reserve(static_cast<std::size_t>(n));
  t.levels.resize(C);
  t.kept_per_chunk.assign(static_cast<std::size_t>((n + chunk_records - 1) / chunk_records), 0);
  std::vector<std::int32_t> codes(C);
  std::string what;
  double unused_y = 0.0;
  reader.for_each_record(begin, end, [&](Eigen::Index i, const RawRecord& record) {
    const Eigen::Index k = t.kept;
    double* y = spec.response >= 0 ? t.y.data() + k : &unused_y;
    if (!parser.parse(record, t.numeric.data() + k * D, y, t.extras.data() + k * J, codes.data(), t.levels,
                      &what)) {
      if (t.missing++ == 0) {
        t.first_missing_line = record.line;
        t.first_missing_what = what;
      }
      return;
    }
    for (std::size_t c = 0; c < C; ++c) t.codes[c].push_back(codes[c]);
    if (spec.keep_records) {
      t.records.push_back(i);
      t.lines.push_back(record.line);
    }
    ++t.kept_per_chunk[static_cast<std::size_t>((i - begin) / chunk_records)];
    ++t.kept;
  });
  parser.finish_tallies(static_cast<long>(n));
  t.numeric_tallies = std::move(parser.numeric_tallies_);
  t.text_tallies = std::move(parser.text_tallies_);
  if (t.kept < n) {
    t.numeric.conservativeResize(t.kept, D);
    if (spec.response >= 0) t.y.conservativeResize(t.kept);
    t.extras.conservativeResize(t.kept, J);
  }
  return t;
}

template Table<float> read_table<float>(const CsvReader&, const TableSpec&, Eigen::Index, Eigen::Index,
                                        Eigen::Index);
template Table<double> read_table<double>(const CsvReader&, const TableSpec&, Eigen::Index, Eigen::Index,
                                          Eigen::Index);

}  // namespace bvi::data
