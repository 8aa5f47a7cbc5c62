// A column's kind from the tally of all its present cells: numeric when every cell is a number,
// a data error when it is mostly numbers (> 90 %, or all but at most 3 and more numbers than
// not), categorical otherwise; the error names the first offending cells and what to do.
#include <doctest/doctest.h>

#include "models/design/column_kinds.hpp"
#include "support/expect_error.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_column_kinds {

using namespace bvi;
using models::design::ColumnKind;
using models::design::judge_column;

namespace {

data::CellTally tally(long numbers, long others) {
  data::CellTally t;
  t.numbers = numbers;
  t.others = others;
  return t;
}

}  // namespace

TEST_CASE("judge_column: numbers, mostly numbers, categories") {
  CHECK(judge_column(tally(100, 0)) == ColumnKind::numeric);
  CHECK(judge_column(tally(0, 0)) == ColumnKind::numeric);  // nothing present
  CHECK(judge_column(tally(0, 100)) == ColumnKind::categorical);
  CHECK(judge_column(tally(99, 1)) == ColumnKind::mostly_numbers);
  CHECK(judge_column(tally(91, 9)) == ColumnKind::mostly_numbers);  // 91 %
  CHECK(judge_column(tally(90, 10)) == ColumnKind::categorical);    // 90 %: not more than 90
  CHECK(judge_column(tally(4, 3)) == ColumnKind::mostly_numbers);   // all but 3
  CHECK(judge_column(tally(3, 3)) == ColumnKind::categorical);      // as many labels as numbers
  CHECK(judge_column(tally(10, 4)) == ColumnKind::categorical);     // 4 others, 71 %
  CHECK(judge_column(tally(1, 1)) == ColumnKind::categorical);
  CHECK(judge_column(tally(2, 1)) == ColumnKind::mostly_numbers);
}

TEST_CASE("settle_column_kind: the error names the first cells and the ways out") {
  CHECK_FALSE(models::design::settle_column_kind(tally(5, 0), "x", "d.csv"));
  CHECK(models::design::settle_column_kind(tally(1, 50), "x", "d.csv"));
  data::CellTally t = tally(96, 0);
  long line = 2;
  for (const char* s : {"#DIV/0!", "-", "-", "1,234", "TRUE"}) t.add_other(s, [&] { return line++; });
  test::expect_error(
      [&] { models::design::settle_column_kind(t, "x1", "d.csv"); }, ExitCode::data, "d.csv:2",
      "column 'x1' holds numbers, but 5 of its 101 values are not: '#DIV/0!' (also '-' at line 3, "
      "'1,234' at line 4, ...); fix these cells (a missing value may be written NA or left empty, "
      "with /data/missing set to \"drop\"), or list it in /data/categorical if it holds categories");
  data::CellTally one = tally(99, 0);
  one.add_other("$5", [] { return 7L; });
  test::expect_error([&] { models::design::settle_column_kind(one, "x", "d.csv"); }, ExitCode::data,
                     "d.csv:7",
                     "column 'x' holds numbers, but 1 of its 100 values is not: '$5'; fix these cells");
}

}  // namespace test_column_kinds
