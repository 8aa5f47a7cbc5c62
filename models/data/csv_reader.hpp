#pragma once
// A CSV data file with a header, read in two phases so that row ranges can be parsed
// independently (by MPI ranks, by OpenMP threads):
//   1. scan() walks the file once at memchr speed, counts the data records and keeps a
//      checkpoint (byte offset, physical line) every kRecordsPerCheckpoint records;
//   2. read_rows(begin, end, ...) parses records [begin, end) from the nearest checkpoint
//      through its own file handle, so calls may run concurrently.
// RFC 4180 quoting (`""` escapes, quoted newlines), CRLF, a UTF-8 BOM and trailing blank lines
// are accepted. Every data error is ExitCode::data at FILE:LINE (physical, 1-based, the header
// is line 1); a file that cannot be opened is ExitCode::no_input at the path.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "models/data/record_stream.hpp"
#include "models/data/row_parser.hpp"

namespace bvi::data {

// Where data record `k * kRecordsPerCheckpoint` starts.
struct Checkpoint {
  std::uint64_t offset = 0;  // byte offset in the file
  long line = 0;             // physical line
};

struct RowIndex {
  static constexpr Eigen::Index kRecordsPerCheckpoint = 1024;
  Eigen::Index records = 0;             // data records, trailing blank lines excluded
  std::vector<Checkpoint> checkpoints;  // ceil(records / kRecordsPerCheckpoint) of them
};

class CsvReader {
 public:
  // Opens the file and reads the header.
  explicit CsvReader(std::string path, std::size_t buffer_bytes = RecordStream::kDefaultBufferBytes);

  const std::string& path() const { return path_; }
  // Header names, unquoted, in file order.
  const std::vector<std::string>& columns() const { return columns_; }
  // The physical line the first data record starts on (2 unless a header name holds a newline).
  long first_data_line() const { return data_line_; }

  // Counts the records; the result is kept, so later calls are free. Also rejects malformed
  // quoting anywhere in the file, so every rank of a run sees the same structural error.
  const RowIndex& scan();
  // The data records scan() counted (std::logic_error before it).
  Eigen::Index records() const {
    if (!index_) throw std::logic_error("CsvReader: records() before scan()");
    return index_->records;
  }

  // Parses data records [begin, end) (0-based, file order) into row-major
  // features[(i - begin) * D + k] (D = feature_columns.size(), column feature_columns[k]) and
  // response[i - begin] (column response_column; pass -1 and nullptr for none). `check`
  // judges each response value. Requires scan(); safe to call concurrently on one reader (so
  // `check` must be too). Errors: the first bad record of the range, in file order.
  template <class T>
  void read_rows(Eigen::Index begin, Eigen::Index end, const std::vector<int>& feature_columns,
                 int response_column, const ResponseCheck& check, T* features, double* response) const;
  // The same, also reading `extras` (each checked by its own check, as double whatever T is)
  // into row-major extra_values[(i - begin) * J + j] (J = extras.size()), and judging each
  // response against its row's extras with `row_check`.
  template <class T>
  void read_rows(Eigen::Index begin, Eigen::Index end, const std::vector<int>& feature_columns,
                 int response_column, const ResponseCheck& check, const std::vector<ExtraColumn>& extras,
                 const RowCheck& row_check, T* features, double* response, double* extra_values) const;

  // Calls f(i, record) for data records i in [begin, end), in file order, each record valid only
  // during its call; an f that returns bool stops the walk by returning false. Requires scan();
  // safe to call concurrently on one reader.
  template <class F>
  void for_each_record(Eigen::Index begin, Eigen::Index end, F&& f) const {
    check_range(begin, end);
    if (begin == end) return;
    constexpr Eigen::Index K = RowIndex::kRecordsPerCheckpoint;
    const Checkpoint& start = index_->checkpoints[static_cast<std::size_t>(begin / K)];
    RecordStream stream(path_, start.offset, start.line, buffer_bytes_);
    RawRecord record;
    for (Eigen::Index i = begin / K * K; i < end; ++i) {
      // The file is read twice; if it changed in between, say so rather than parse the wrong rows.
      if (!stream.next(record)) file_changed(stream.line());
      if (i < begin) continue;
      if constexpr (std::is_same_v<decltype(f(i, static_cast<const RawRecord&>(record))), bool>) {
        if (!f(i, static_cast<const RawRecord&>(record))) return;
      } else {
        f(i, static_cast<const RawRecord&>(record));
      }
    }
  }

 private:
  void check_range(Eigen::Index begin, Eigen::Index end) const;
  [[noreturn]] void file_changed(long line) const;

  std::string path_;
  std::size_t buffer_bytes_;
  std::vector<std::string> columns_;
  std::uint64_t data_offset_ = 0;
  long data_line_ = 2;
  std::optional<RowIndex> index_;
};

}  // namespace bvi::data
