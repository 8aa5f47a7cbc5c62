#include "models/data/record_stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"
#include "models/data/text_excerpt.hpp"

namespace bvi::data {

namespace {

// strerror's "No such file or directory" in the lower-case message style of SPEC.md.
std::string system_reason() {
  std::string s = std::strerror(errno);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::size_t find_byte(const char* b, std::size_t from, std::size_t to, char c) {
  if (from >= to) return to;
  const void* p = std::memchr(b + from, c, to - from);
  return p ? static_cast<std::size_t>(static_cast<const char*>(p) - b) : to;
}

}  // namespace

RecordStream::RecordStream(std::string path, std::uint64_t offset, long line, std::size_t buffer_bytes)
    : path_(std::move(path)),
      capacity_(std::max<std::size_t>(buffer_bytes, 1)),
      buffer_offset_(offset),
      line_(line) {
  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, possibly forever,
  // before fstat below can reject it. It is cleared again for the reads of a regular file.
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw input_error(path_, "cannot open: " + system_reason());
  auto give_up = [this](const std::string& what) {
    ::close(fd_);
    fd_ = -1;
    return input_error(path_, what);
  };
  struct stat st;
  if (::fstat(fd_, &st) != 0) throw give_up("cannot open: " + system_reason());
  if (S_ISDIR(st.st_mode)) throw give_up("cannot read: is a directory");
  // Rows are found by one pass and parsed by another (per rank, per thread), so the data has
  // to be a file that can be read again from any offset.
  if (!S_ISREG(st.st_mode)) throw give_up("not a regular file (the data is read twice, so no pipes)");
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0)
    throw give_up("cannot open: " + system_reason());
  if (offset > 0 && ::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0)
    throw give_up("cannot seek: " + system_reason());
  // Only a hint for read-ahead; failing it changes nothing.
  (void)::posix_fadvise(fd_, static_cast<off_t>(offset), 0, POSIX_FADV_SEQUENTIAL);
  // Plain new: no zero-fill, so untouched buffer pages of a small file are never faulted in.
  buf_.reset(new char[capacity_]);
}

RecordStream::~RecordStream() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordStream::fail(long line, const std::string& what) const {
  throw data_error(file_line(path_, line), what);
}

void RecordStream::skip_utf8_bom() {
  std::size_t unused = pos_;
  while (end_ - pos_ < 3 && !eof_)
    if (refill(unused) == 0) eof_ = true;
  if (end_ - pos_ >= 3 && std::memcmp(buf_.get() + pos_, "\xEF\xBB\xBF", 3) == 0) pos_ += 3;
}

std::size_t RecordStream::find_next(NextByte& cache, char c, std::size_t from) {
  if (!cache.valid || from < cache.from || from > cache.at) {
    cache.at = find_byte(buf_.get(), from, end_, c);
    cache.from = from;
    cache.valid = true;
  }
  return cache.at;
}

bool RecordStream::next(RawRecord& record) {
  std::size_t scan = pos_;  // buf_[pos_, scan) is examined and still in the record
  bool in_quote = false, has_quotes = false;
  long newlines = 0;           // quoted newlines seen so far in this record
  std::size_t open_quote = 0;  // the current quoted field's opening quote, relative to pos_
  long open_line = 0;
  for (;;) {
    const char* b = buf_.get();
    if (!in_quote) {
      const std::size_t nl = find_next(next_newline_, '\n', scan);
      const std::size_t q = find_next(next_quote_, '"', scan);
      if (q < nl) {
        // RFC 4180: a quote may only open a field. Anywhere else the writer forgot to quote
        // the field, and guessing would shift every later field.
        if (q != pos_ && b[q - 1] != ',') {
          std::size_t at = q;
          read_ahead(at, 40);
          const char* a = buf_.get();
          std::size_t from = at;
          while (from > pos_ && a[from - 1] != ',') --from;
          const std::size_t to = std::min(find_byte(a, at, end_, ','), find_byte(a, at, end_, '\n'));
          fail(line_ + newlines,
               "'\"' inside an unquoted field " +
                   quoted_excerpt(std::string_view(a + from, std::min<std::size_t>(to - from, 80))));
        }
        in_quote = has_quotes = true;
        open_quote = q - pos_;
        open_line = line_ + newlines;
        scan = q + 1;
        continue;
      }
      if (nl < end_) {
        take(record, nl, has_quotes, newlines);
        return true;
      }
      scan = end_;
    } else {
      const std::size_t q = find_byte(b, scan, end_, '"');
      newlines += std::count(b + scan, b + q, '\n');
      scan = q;
      if (q < end_) {
        // The bytes after a quote inside a quoted field tell what it is: `""` is an escaped
        // quote; otherwise it closes the field, which must then end: ',', "\n", "\r\n" or the
        // end of the file. When they are not read yet, read more and look again.
        const std::size_t after = end_ - q - 1;
        if (after >= 1 && b[q + 1] == '"') {
          scan = q + 2;
          continue;
        }
        if (after >= 1 || eof_) {
          const char c = after >= 1 ? b[q + 1] : '\n';
          bool ends_field = c == ',' || c == '\n';
          bool undecided = false;
          if (c == '\r') {
            if (after >= 2) {
              ends_field = b[q + 2] == '\n';
            } else {
              ends_field = eof_;
              undecided = !eof_;
            }
          }
          if (!undecided) {
            if (!ends_field) {
              std::size_t at = q;
              read_ahead(at, 11);
              const std::size_t from = std::max(pos_ + open_quote, at >= 30 ? at - 30 : 0);
              const std::size_t to = std::min(end_, at + 11);
              const char next = c;  // read before read_ahead, which may move the buffer
              fail(line_ + newlines, "text after a closing quote: " +
                                         quoted_excerpt(std::string_view(buf_.get() + from, to - from)) +
                                         (next == ';' || next == '\t'
                                              ? std::string(" (fields must be separated by commas, not ") +
                                                    (next == ';' ? "';'" : "tabs") + ")"
                                              : std::string()));
            }
            in_quote = false;
            scan = q + 1;
            continue;
          }
        }
      }
    }
    // The record goes on past the bytes read so far.
    if (!eof_) {
      if (refill(scan) == 0) eof_ = true;
      continue;
    }
    if (in_quote)
      fail(open_line,
           "unterminated quoted field " +
               quoted_excerpt(std::string_view(buf_.get() + pos_ + open_quote, end_ - pos_ - open_quote)));
    if (pos_ == end_) return false;
    take(record, end_, has_quotes, newlines);  // a last record without a terminator
    return true;
  }
}

void RecordStream::take(RawRecord& record, std::size_t terminator, bool has_quotes, long newlines) {
  const char* b = buf_.get();
  // CRLF: out of quotes a '\r' before the '\n' (or before the end of the file) cannot be
  // data, so it belongs to the terminator.
  const std::size_t text_end = terminator > pos_ && b[terminator - 1] == '\r' ? terminator - 1 : terminator;
  record.text = std::string_view(b + pos_, text_end - pos_);
  record.line = line_;
  record.has_quotes = has_quotes;
  line_ += 1 + newlines;
  pos_ = terminator < end_ ? terminator + 1 : end_;
}

void RecordStream::read_ahead(std::size_t& at, std::size_t bytes) {
  while (end_ - at < bytes && !eof_)
    if (refill(at) == 0) eof_ = true;
}

std::size_t RecordStream::refill(std::size_t& scan) {
  if (pos_ > 0) {
    std::memmove(buf_.get(), buf_.get() + pos_, end_ - pos_);
    buffer_offset_ += pos_;
    end_ -= pos_;
    scan -= pos_;
    pos_ = 0;
  }
  if (end_ == capacity_) {
    if (capacity_ >= kMaxRecordBytes)
      fail(line_,
           "a record longer than " + std::to_string(kMaxRecordBytes >> 20) + " MiB (an unterminated quote?)");
    const std::size_t bigger = std::min(capacity_ * 2, kMaxRecordBytes);
    std::unique_ptr<char[]> grown(new char[bigger]);
    std::memcpy(grown.get(), buf_.get(), end_);
    buf_ = std::move(grown);
    capacity_ = bigger;
  }
  next_quote_.valid = next_newline_.valid = false;
  ssize_t n;
  do {
    n = ::read(fd_, buf_.get() + end_, capacity_ - end_);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw input_error(path_, "cannot read: " + system_reason());
  end_ += static_cast<std::size_t>(n);
  return static_cast<std::size_t>(n);
}

}  // namespace bvi::data
