#include "models/data/csv_reader.hpp"

#include <stdexcept>

#include "common/error.hpp"
#include "models/data/field_splitter.hpp"
#include "models/data/text_bytes.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::data {

CsvReader::CsvReader(std::string path, std::size_t buffer_bytes)
    : path_(std::move(path)), buffer_bytes_(buffer_bytes) {
  RecordStream stream(path_, 0, 1, buffer_bytes_);
  stream.skip_utf8_bom();
  RawRecord header;
  if (!stream.next(header)) throw data_error(file_line(path_, 1), "empty file: no header line");
  if (header.blank()) throw data_error(file_line(path_, 1), "the header line is blank");
  FieldSplitter names(header.text, header.has_quotes);
  std::string_view name;
  while (names.next(name)) {
    // Caught here, not at the first column asked for: NULs in the header mark a UTF-16 file.
    if (columns_.empty() && name.size() >= 2 &&
        ((name[0] == '\xff' && name[1] == '\xfe') || (name[0] == '\xfe' && name[1] == '\xff')))
      throw data_error(file_line(path_, 1),
                       "the file is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8");
    if (const std::size_t at = first_foreign_byte(name); at != std::string_view::npos)
      throw data_error(file_line(path_, 1), "the header's name " + quoted_excerpt(name) + " holds " +
                                                foreign_byte_phrase(name, at));
    columns_.emplace_back(name);
  }
  // A file separated by ';' (R's write.csv2, spreadsheets in locales with a decimal comma) or by
  // tabs reads as one column whose name holds the separators: say so here, not as an unknown
  // column later.
  if (columns_.size() == 1)
    for (const char sep : {';', '\t'})
      if (columns_[0].find(sep) != std::string::npos)
        throw data_error(file_line(path_, 1), "the header is one column, " + quoted_excerpt(columns_[0]) +
                                                  ", holding " + (sep == ';' ? "';'" : "tabs") +
                                                  ": fields must be separated by commas" +
                                                  (sep == ';' ? " (R: write.csv, not write.csv2)" : ""));
  data_offset_ = stream.offset();
  data_line_ = stream.line();
}

const RowIndex& CsvReader::scan() {
  if (index_) return *index_;
  constexpr Eigen::Index K = RowIndex::kRecordsPerCheckpoint;
  RowIndex index;
  RecordStream stream(path_, data_offset_, data_line_, buffer_bytes_);
  RawRecord record;
  for (Eigen::Index seen = 0;; ++seen) {
    if (seen % K == 0) index.checkpoints.push_back({stream.offset(), stream.line()});
    if (!stream.next(record)) break;
    // Blank lines count as records (a blank line between rows is a ragged row, reported when
    // it is parsed) except at the end of the file, where editors leave them.
    if (!record.blank()) index.records = seen + 1;
  }
  index.checkpoints.resize(static_cast<std::size_t>((index.records + K - 1) / K));
  index_ = std::move(index);
  return *index_;
}

void CsvReader::check_range(Eigen::Index begin, Eigen::Index end) const {
  if (!index_) throw std::logic_error("CsvReader: rows read before scan()");
  if (begin < 0 || end < begin || end > index_->records)
    throw std::out_of_range("CsvReader: rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                            ") outside [0, " + std::to_string(index_->records) + ")");
}

void CsvReader::file_changed(long line) const {
  throw data_error(file_line(path_, line), "the file ended early: it changed while being read");
}

template <class T>
void CsvReader::read_rows(Eigen::Index begin, Eigen::Index end, const std::vector<int>& feature_columns,
                          int response_column, const ResponseCheck& check, T* features,
                          double* response) const {
  static const std::vector<ExtraColumn> no_extras;
  static const RowCheck no_row_check;
  read_rows<T>(begin, end, feature_columns, response_column, check, no_extras, no_row_check, features,
               response, nullptr);
}

template <class T>
void CsvReader::read_rows(Eigen::Index begin, Eigen::Index end, const std::vector<int>& feature_columns,
                          int response_column, const ResponseCheck& check,
                          const std::vector<ExtraColumn>& extras, const RowCheck& row_check, T* features,
                          double* response, double* extra_values) const {
  if (!index_) throw std::logic_error("CsvReader::read_rows called before scan()");
  if (begin < 0 || end < begin || end > index_->records)
    throw std::out_of_range("CsvReader::read_rows: rows [" + std::to_string(begin) + ", " +
                            std::to_string(end) + ") outside [0, " + std::to_string(index_->records) + ")");
  const RowParser parser(path_, columns_, feature_columns, response_column, check, extras, row_check);
  if (begin == end) return;
  if (response_column >= 0 && response == nullptr)
    throw std::invalid_argument("CsvReader::read_rows: a response column needs a response buffer");
  if (!extras.empty() && extra_values == nullptr)
    throw std::invalid_argument("CsvReader::read_rows: extra columns need a buffer");

  constexpr Eigen::Index K = RowIndex::kRecordsPerCheckpoint;
  const Checkpoint& start = index_->checkpoints[static_cast<std::size_t>(begin / K)];
  RecordStream stream(path_, start.offset, start.line, buffer_bytes_);
  RawRecord record;
  // The file is read twice; if it changed in between, say so rather than parse the wrong rows.
  auto next = [&] {
    if (!stream.next(record))
      throw data_error(file_line(path_, stream.line()), "the file ended early: it changed while being read");
  };
  for (Eigen::Index i = begin / K * K; i < begin; ++i) next();
  const std::size_t D = feature_columns.size(), J = extras.size();
  double unused = 0.0;
  for (Eigen::Index i = begin; i < end; ++i) {
    next();
    const std::size_t r = static_cast<std::size_t>(i - begin);
    parser.parse(record, features + r * D, response ? response + r : &unused,
                 J ? extra_values + r * J : nullptr);
  }
}

template void CsvReader::read_rows<float>(Eigen::Index, Eigen::Index, const std::vector<int>&, int,
                                          const ResponseCheck&, float*, double*) const;
template void CsvReader::read_rows<double>(Eigen::Index, Eigen::Index, const std::vector<int>&, int,
                                           const ResponseCheck&, double*, double*) const;
template void CsvReader::read_rows<float>(Eigen::Index, Eigen::Index, const std::vector<int>&, int,
                                          const ResponseCheck&, const std::vector<ExtraColumn>&,
                                          const RowCheck&, float*, double*, double*) const;
template void CsvReader::read_rows<double>(Eigen::Index, Eigen::Index, const std::vector<int>&, int,
                                           const ResponseCheck&, const std::vector<ExtraColumn>&,
                                           const RowCheck&, double*, double*, double*) const;

}  // namespace bvi::data
