#pragma once
// How a data error shows the text it found: quoted, at most ~40 characters, and safe to print
// on the one line SPEC.md allows (a field may hold a quoted newline) as UTF-8.
#include <cstddef>
#include <string>
#include <string_view>

#include "models/data/text_bytes.hpp"

namespace bvi::data {

// 'text' with control bytes and bytes that are not UTF-8 escaped (\n, \r, \t, \xNN) and anything
// past `max_bytes` cut to "...". The cut backs up to a UTF-8 character boundary so a name is never
// split mid-letter.
inline std::string quoted_excerpt(std::string_view text, std::size_t max_bytes = 40) {
  bool cut = false;
  if (text.size() > max_bytes) {
    std::size_t n = max_bytes;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    text = text.substr(0, n);
    cut = true;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence_length(text, i);
      if (n > 0) {
        out.append(text.substr(i, n));
        i += n - 1;
      } else {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      }
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += ch;
    }
  }
  out += cut ? "...'" : "'";
  return out;
}

}  // namespace bvi::data
