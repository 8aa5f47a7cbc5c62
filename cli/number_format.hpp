#pragma once
// Numbers in the CSV that eval and predict print: %.17g round-trips a double; non-finite values
// are written as nan, inf, -inf, which R, pandas and numpy read (a NaN's sign bit is no value:
// printf's "-nan" for it is written as nan too).
#include <cmath>
#include <cstdio>
#include <string>

namespace bvi::cli {

inline void append_number(std::string& out, double x) {
  if (std::isnan(x)) {
    out += "nan";
    return;
  }
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.17g", x);
  out.append(buf, static_cast<size_t>(n));
}

}  // namespace bvi::cli
