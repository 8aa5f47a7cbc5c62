// parse_number against values written out by hand, and the excerpt shown in messages.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "models/data/parse_number.hpp"
#include "models/data/text_excerpt.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_parse_number {

using bvi::data::NumberStatus;
using bvi::data::parse_number;
using bvi::data::quoted_excerpt;

namespace {
NumberStatus status_of(std::string_view text) {
  double v = 0.0;
  return parse_number(text, v);
}
double value_of(std::string_view text) {
  double v = std::numeric_limits<double>::quiet_NaN();
  REQUIRE(parse_number(text, v) == NumberStatus::ok);
  return v;
}
}  // namespace

TEST_CASE("parse_number accepts decimal numbers, surrounding spaces and a leading plus") {
  CHECK(value_of("1") == 1.0);
  CHECK(value_of("-1") == -1.0);
  CHECK(value_of("+1") == 1.0);
  CHECK(value_of("  2.5  ") == 2.5);
  CHECK(value_of(" +2.5") == 2.5);
  CHECK(value_of("1e3") == 1000.0);
  CHECK(value_of("1E-3") == 0.001);
  CHECK(value_of(".5") == 0.5);
  CHECK(value_of("5.") == 5.0);
  CHECK(value_of("0.1") == 0.1);
  CHECK(value_of("-0.00048392932512797415") == -0.00048392932512797415);
  CHECK(value_of("1.7976931348623157e308") == std::numeric_limits<double>::max());
  CHECK(value_of("4.9406564584124654e-324") == std::numeric_limits<double>::denorm_min());
  const double neg_zero = value_of("-0");
  CHECK(neg_zero == 0.0);
  CHECK(std::signbit(neg_zero));
}

TEST_CASE("parse_number rounds numbers below the smallest subnormal to a signed zero") {
  CHECK(value_of("1e-400") == 0.0);
  CHECK(!std::signbit(value_of("1e-400")));
  CHECK(std::signbit(value_of("-1e-400")));
  CHECK(value_of("0.000001e-320") == 0.0);
  CHECK(value_of("123e-99999999999999999999") == 0.0);
}

TEST_CASE("parse_number rejects everything else, saying which way") {
  for (const char* t : {"", " ", "   "}) CHECK(status_of(t) == NumberStatus::empty);
  for (const char* t : {"abc", "1,5", "0x1A", "1e", "+-1", "++1", "+ 1", "+", "-", "1 2", "--1", "1.2.3",
                        "\t1", "1\r", "one", "1_000", "\"1\"", "1d0", "- 1"}) {
    INFO("text: '", t, "'");
    CHECK(status_of(t) == NumberStatus::invalid);
  }
  for (const char* t : {"nan", "NaN", "-nan", "inf", "-inf", "+inf", "Infinity", "nan(0x1)"}) {
    INFO("text: '", t, "'");
    CHECK(status_of(t) == NumberStatus::non_finite);
  }
  for (const char* t : {"1e400", "-1e400", "1e99999999999999999999", "0.01e311", "1000e306"}) {
    INFO("text: '", t, "'");
    CHECK(status_of(t) == NumberStatus::overflow);
  }
}

TEST_CASE("quoted_excerpt quotes, escapes control bytes and truncates on a character boundary") {
  CHECK(quoted_excerpt("abc") == "'abc'");
  CHECK(quoted_excerpt("a\nb\r\t\x01") == "'a\\nb\\r\\t\\x01'");
  CHECK(quoted_excerpt(std::string(50, 'x')) == "'" + std::string(40, 'x') + "...'");
  // "é" is two bytes; a cut at byte 40 would fall between them, so it backs up one.
  const std::string accented = std::string(39, 'x') + "\xC3\xA9" + "yyyy";
  CHECK(quoted_excerpt(accented) == "'" + std::string(39, 'x') + "...'");
}

}  // namespace test_parse_number
