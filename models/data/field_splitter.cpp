#include "models/data/field_splitter.hpp"

#include <cstring>
#include <stdexcept>

namespace bvi::data {

namespace {
const char* find(const char* p, const char* end, char c) {
  const void* hit = p < end ? std::memchr(p, c, static_cast<std::size_t>(end - p)) : nullptr;
  return hit ? static_cast<const char*>(hit) : end;
}
}  // namespace

bool FieldSplitter::next(std::string_view& field) {
  if (done_) return false;
  last_ = p_;
  if (quotes_ && p_ < end_ && *p_ == '"') {
    const char* s = p_ + 1;
    const char* q = find(s, end_, '"');
    if (q + 1 < end_ && q[1] == '"') {
      unescaped_.clear();
      while (q + 1 < end_ && q[1] == '"') {
        unescaped_.append(s, q + 1);
        s = q + 2;
        q = find(s, end_, '"');
      }
      unescaped_.append(s, q);
      field = unescaped_;
    } else {
      field = std::string_view(s, static_cast<std::size_t>(q - s));
    }
    // RecordStream guarantees the closing quote is followed by ',' or the end of the record.
    if (q >= end_ || (q + 1 < end_ && q[1] != ','))
      throw std::logic_error("FieldSplitter: malformed quoting");
    p_ = q + 1;
    if (p_ == end_)
      done_ = true;
    else
      ++p_;
    return true;
  }
  const char* comma = find(p_, end_, ',');
  field = std::string_view(p_, static_cast<std::size_t>(comma - p_));
  if (comma == end_)
    done_ = true;
  else
    p_ = comma + 1;
  return true;
}

long FieldSplitter::remaining() const {
  FieldSplitter rest = *this;
  long n = 0;
  std::string_view unused;
  while (rest.next(unused)) ++n;
  return n;
}

}  // namespace bvi::data
