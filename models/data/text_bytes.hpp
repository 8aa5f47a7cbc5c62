#pragma once
// Bytes that no text CSV holds: control characters other than tab, CR and LF (a NUL is the mark
// of a UTF-16 or binary file, or of a corrupted export), and bytes that do not form UTF-8 (a
// Latin-1 or Windows-1252 file). A cell holding one is a data error at its line, never a level
// or a silently odd label; error messages escape such bytes (text_excerpt.hpp).
#include <cstddef>
#include <string>
#include <string_view>

namespace bvi::data {

// The length of the well-formed UTF-8 sequence at text[at] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one. text[at] >= 0x80.
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
  const std::size_t left = text.size() - at;
  const unsigned char c = byte(0);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (left < n || byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(k) & 0xC0) != 0x80) return 0;
  return n;
}

inline bool is_foreign_control(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7F;
}

// The offset of the first byte of `text` that no text CSV holds, or npos when there is none.
inline std::size_t first_foreign_byte(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (is_foreign_control(c)) return i;
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

// What the byte at text[at] (found by first_foreign_byte) is, for an error message:
// "control byte \x00 (a binary or UTF-16 file?)" or "byte \xe9, which is not UTF-8 (...)".
inline std::string foreign_byte_phrase(std::string_view text, std::size_t at) {
  static const char kHex[] = "0123456789abcdef";
  const auto c = static_cast<unsigned char>(text[at]);
  std::string hex = "\\x";
  hex += kHex[c >> 4];
  hex += kHex[c & 0xF];
  if (c < 0x80) return "control byte " + hex + ", which no text CSV holds (a binary or UTF-16 file?)";
  return "byte " + hex + ", which is not UTF-8 (save the file as UTF-8)";
}

}  // namespace bvi::data
