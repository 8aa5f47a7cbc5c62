// Bytes no text CSV holds: control bytes but tab, CR and LF, and bytes that are not well-formed
// UTF-8 (RFC 3629 table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no
// truncated sequence); the phrases errors use; quoted_excerpt printing UTF-8 and escaping the rest.
#include <doctest/doctest.h>

#include <string>

#include "models/data/text_bytes.hpp"
#include "models/data/text_excerpt.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_text_bytes {

using namespace bvi;
using data::first_foreign_byte;

namespace {
constexpr std::size_t npos = std::string_view::npos;
std::string_view bytes(const char* s, std::size_t n) {
  return {s, n};
}
}  // namespace

TEST_CASE("first_foreign_byte: plain ASCII, tab, CR, LF and UTF-8 letters are text") {
  CHECK(first_foreign_byte("") == npos);
  CHECK(first_foreign_byte("abc 1.5e-3 #DIV/0! $5 5%") == npos);
  CHECK(first_foreign_byte("a\tb\r\nc") == npos);
  CHECK(first_foreign_byte("\xc3\xa9t\xc3\xa9") == npos);  // été
  CHECK(first_foreign_byte("\xe2\x82\xac"
                           "5") == npos);                 // €5
  CHECK(first_foreign_byte("\xf0\x9f\x98\x80") == npos);  // U+1F600
  CHECK(first_foreign_byte("\xed\x9f\xbf") == npos);      // U+D7FF, below the surrogates
  CHECK(first_foreign_byte("\xf4\x8f\xbf\xbf") == npos);  // U+10FFFF, the last
}

TEST_CASE("first_foreign_byte: control bytes and DEL, at their offset") {
  CHECK(first_foreign_byte(bytes("1\0"
                                 "2",
                                 3)) == 1);
  CHECK(first_foreign_byte(bytes("\0", 1)) == 0);
  CHECK(first_foreign_byte("ab\x01") == 2);
  CHECK(first_foreign_byte("a\x0b") == 1);     // vertical tab
  CHECK(first_foreign_byte("a\x1b[0m") == 1);  // an escape sequence
  CHECK(first_foreign_byte("x\x7f") == 1);
}

TEST_CASE("first_foreign_byte: bytes that are not UTF-8") {
  CHECK(first_foreign_byte("caf\xe9") == 3);           // Latin-1 é
  CHECK(first_foreign_byte("\x80") == 0);              // a lone continuation byte
  CHECK(first_foreign_byte("\xc0\xaf") == 0);          // overlong '/'
  CHECK(first_foreign_byte("\xc1\xbf") == 0);          // overlong
  CHECK(first_foreign_byte("\xe0\x80\xaf") == 0);      // overlong, 3 bytes
  CHECK(first_foreign_byte("\xf0\x80\x80\xaf") == 0);  // overlong, 4 bytes
  CHECK(first_foreign_byte("\xed\xa0\x80") == 0);      // U+D800, a surrogate
  CHECK(first_foreign_byte("\xf4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(first_foreign_byte("\xf5\x80\x80\x80") == 0);
  CHECK(first_foreign_byte("ab\xc3") == 2);  // truncated at the end
  CHECK(first_foreign_byte("\xe2\x82"
                           "5") == 0);             // truncated before a digit
  CHECK(first_foreign_byte("\xc3\xa9\xff") == 2);  // after a good letter
  CHECK(first_foreign_byte("\xfe\xff"
                           "a") == 0);  // a UTF-16 byte order mark
}

TEST_CASE("foreign_byte_phrase names the byte and the likely cause") {
  const std::string_view nul = bytes("1\0", 2);
  CHECK(data::foreign_byte_phrase(nul, 1) ==
        "control byte \\x00, which no text CSV holds (a binary or UTF-16 file?)");
  CHECK(data::foreign_byte_phrase("caf\xe9", 3) == "byte \\xe9, which is not UTF-8 (save the file as UTF-8)");
}

TEST_CASE("quoted_excerpt prints UTF-8 and escapes the rest, on one line") {
  CHECK(data::quoted_excerpt("\xc3\xa9t\xc3\xa9") == "'\xc3\xa9t\xc3\xa9'");
  CHECK(data::quoted_excerpt("caf\xe9") == "'caf\\xe9'");
  CHECK(data::quoted_excerpt(bytes("1\0"
                                   "2",
                                   3)) == "'1\\x002'");
  CHECK(data::quoted_excerpt("a\nb") == "'a\\nb'");
  // The cut at 40 bytes backs up to a character boundary.
  const std::string long_text = std::string(39, 'a') + "\xc3\xa9" + "bbb";
  CHECK(data::quoted_excerpt(long_text) == "'" + std::string(39, 'a') + "...'");
}

}  // namespace test_text_bytes
