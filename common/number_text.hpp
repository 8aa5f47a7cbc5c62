#pragma once
// The shortest decimal text that reads back as the same double (std::to_chars), with -0 written
// as 0: how numbers from the data appear in messages and as level names.
#include <charconv>
#include <string>

namespace bvi {

inline std::string shortest_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v + 0.0);  // + 0.0: -0 is 0
  return std::string(buf, r.ptr);
}

}  // namespace bvi
