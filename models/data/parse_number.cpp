#include "models/data/parse_number.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace bvi::data {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// from_chars reports both overflow and underflow as result_out_of_range and leaves the value
// unset, so tell them apart by the decimal exponent of the leading significant digit: an
// out-of-range number sits near 1e308 or 1e-324, never near 1, so its sign decides. `s` is text
// that from_chars matched in full, so it is [-]digits[.digits][(e|E)[+-]digits].
bool overflows(const char* s, const char* end) {
  if (s < end && *s == '-') ++s;
  long int_digits = 0, frac_zeros = 0;
  bool significant = false;
  for (; s < end && is_digit(*s); ++s) {
    if (*s != '0') significant = true;
    if (significant) ++int_digits;
  }
  if (s < end && *s == '.') {
    for (++s; s < end && is_digit(*s); ++s) {
      if (*s != '0') significant = true;
      if (!significant) ++frac_zeros;
    }
  }
  long exponent = 0;
  if (s < end && (*s == 'e' || *s == 'E')) {
    ++s;
    const bool negative = s < end && *s == '-';
    if (s < end && (*s == '-' || *s == '+')) ++s;
    // Saturate: "1e99999999999999999999" must not wrap around.
    for (; s < end && is_digit(*s); ++s) exponent = std::min(exponent * 10 + (*s - '0'), 1000000000L);
    if (negative) exponent = -exponent;
  }
  const long leading = int_digits > 0 ? int_digits - 1 : -(frac_zeros + 1);
  return leading + exponent > 0;
}

}  // namespace

NumberStatus parse_number(std::string_view text, double& value) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end && *p == ' ') ++p;
  while (end > p && end[-1] == ' ') --end;
  if (p == end) return NumberStatus::empty;
  if (*p == '+') {
    ++p;
    // from_chars takes a '-' sign, so "+-1" would otherwise pass as -1.
    if (p == end || *p == '-' || *p == '+') return NumberStatus::invalid;
  }
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(p, end, v, std::chars_format::general);
  if (ec == std::errc::invalid_argument || ptr != end) return NumberStatus::invalid;
  if (ec == std::errc::result_out_of_range) {
    if (overflows(p, end)) return NumberStatus::overflow;
    v = *p == '-' ? -0.0 : 0.0;
  }
  if (!std::isfinite(v)) return NumberStatus::non_finite;
  value = v;
  return NumberStatus::ok;
}

const char* describe(NumberStatus status) {
  switch (status) {
    case NumberStatus::ok:
      return "number";
    case NumberStatus::empty:
      return "empty field";
    case NumberStatus::invalid:
      return "non-numeric value";
    case NumberStatus::overflow:
      return "number too large for a double";
    case NumberStatus::non_finite:
      return "non-finite value";
  }
  return "unknown status";
}

}  // namespace bvi::data
