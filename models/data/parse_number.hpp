#pragma once
// One CSV field's text to a finite double, strictly: what a careful user would call a number
// and nothing else, without iostreams or the locale.
#include <string_view>

namespace bvi::data {

enum class NumberStatus {
  ok,
  empty,       // nothing but spaces
  invalid,     // not a decimal number (text, hex, "1,5", "1e", "+-1" ...)
  overflow,    // a number too large for a double ("1e400")
  non_finite,  // "nan", "inf", "infinity" in any case or sign
};

// Accepts surrounding ASCII spaces and one leading '+' (spreadsheets write both), then exactly
// what std::from_chars(chars_format::general) accepts. A magnitude below the smallest
// subnormal rounds to a signed zero, as strtod and pandas do; only overflow is an error.
// `value` is set only when the result is ok.
NumberStatus parse_number(std::string_view text, double& value);

// The lower-case phrase an error message uses for a failed status, e.g. "non-numeric value".
const char* describe(NumberStatus status);

}  // namespace bvi::data
