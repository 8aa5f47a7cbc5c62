#pragma once
// A CSV file read record by record through one buffer (RFC 4180 records: a quoted field may
// hold newlines, so a record can span several physical lines). The buffer is a fixed 1 MiB by
// default and grows only when a single record is longer than it: the file is never held in
// memory, and never mmapped, whose pages would count toward the resident set of a fit.
//
// This is the one place that decides where records begin and end, so the scan that counts
// rows and every parser that starts at a checkpoint agree byte for byte. It also rejects
// malformed quoting (a '"' inside an unquoted field, text after a closing quote, a quote never
// closed), so everything downstream may assume well-formed quoting.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace bvi::data {

// One record as it lies in the stream's buffer; valid until the next call to next().
struct RawRecord {
  std::string_view text;    // without its terminator ("\n" or "\r\n")
  long line = 0;            // physical 1-based line where it starts
  bool has_quotes = false;  // any '"' in it, so its fields need unquoting
  bool blank() const { return text.empty() && !has_quotes; }
};

class RecordStream {
 public:
  static constexpr std::size_t kDefaultBufferBytes = std::size_t(1) << 20;
  // A record longer than this is rejected rather than buffered (it is almost always an
  // unterminated quote swallowing the rest of the file).
  static constexpr std::size_t kMaxRecordBytes = std::size_t(64) << 20;

  // Opens `path` (errors: ExitCode::no_input, where = path) and starts at byte `offset`, which
  // must be the start of a record lying on physical line `line`.
  RecordStream(std::string path, std::uint64_t offset, long line,
               std::size_t buffer_bytes = kDefaultBufferBytes);
  ~RecordStream();
  RecordStream(const RecordStream&) = delete;
  RecordStream& operator=(const RecordStream&) = delete;

  // Consumes a UTF-8 byte order mark if the stream is at one; for the start of a file.
  void skip_utf8_bom();

  // The next record, or false at the end of the file. A final record without a terminator
  // counts; an empty remainder does not.
  bool next(RawRecord& record);

  // Where the next record starts: a checkpoint a later stream can start from.
  std::uint64_t offset() const { return buffer_offset_ + pos_; }
  long line() const { return line_; }

 private:
  // Makes room and reads more bytes after end_; returns how many (0 at the end of the file).
  // Moves the pending record to the front of the buffer, so buffer indexes such as `scan` shift.
  std::size_t refill(std::size_t& scan);
  // Hands out buf_[pos_, terminator) as the next record and moves past its terminator.
  void take(RawRecord& record, std::size_t terminator, bool has_quotes, long newlines);
  // Error path only: reads until `bytes` bytes follow buf_[at] (or the file ends), so a message
  // quotes the same text whatever the buffer size. `at` moves with the buffer.
  void read_ahead(std::size_t& at, std::size_t bytes);
  // The first `c` at or after buf_[from], or end_; remembered in `cache` (see NextByte).
  struct NextByte;
  std::size_t find_next(NextByte& cache, char c, std::size_t from);
  [[noreturn]] void fail(long line, const std::string& what) const;

  std::string path_;
  int fd_ = -1;
  std::unique_ptr<char[]> buf_;
  std::size_t capacity_ = 0;
  std::size_t pos_ = 0;              // start of the next record in buf_
  std::size_t end_ = 0;              // end of the bytes read into buf_
  std::uint64_t buffer_offset_ = 0;  // file offset of buf_[0]
  long line_ = 1;
  bool eof_ = false;
  // The first byte c at or after `from` is at `at` (end_ if none). Valid for any later start
  // up to `at` until the buffer changes, so unquoted files pay one memchr('"') per buffer fill,
  // and a record of many quoted fields finds its newline once, not once per closing quote.
  struct NextByte {
    std::size_t from = 0, at = 0;
    bool valid = false;
  };
  NextByte next_quote_, next_newline_;
};

}  // namespace bvi::data
