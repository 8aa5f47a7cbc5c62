// Per-column tallies of cells that read as numbers and cells that do not, with the first few
// distinct texts that do not (and their lines): filled by read_table for the columns whose kind
// comes from their values, summed by gather_tallies (one process here; the MPI e2e tests in
// test_column_kinds.py run the exchange over ranks).
#include <doctest/doctest.h>

#include "models/data/cell_tally.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/table_reader.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_cell_tally {

using namespace bvi;

TEST_CASE("CellTally: counts every cell, samples the first distinct texts") {
  data::CellTally t;
  long calls = 0;
  auto at = [&calls](long line) {
    return [&calls, line] {
      ++calls;
      return line;
    };
  };
  t.add_other("-", at(2));
  t.add_other("-", at(3));  // the same text: counted, not sampled again
  t.add_other("#DIV/0!", at(5));
  t.add_other(std::string(60, 'z'), at(7));
  t.add_other("late", at(9));  // a fourth text: counted only, its line never asked
  CHECK(t.others == 5);
  REQUIRE(t.samples.size() == 3);
  CHECK(t.samples[0].text == "-");
  CHECK(t.samples[0].line == 2);
  CHECK(t.samples[1].text == "#DIV/0!");
  CHECK(t.samples[1].line == 5);
  CHECK(t.samples[2].text == std::string(data::CellTally::kSampleBytes, 'z'));
  CHECK(t.samples[2].line == 7);
  CHECK(calls == 3);
}

TEST_CASE("gather_tallies: one process keeps its counts and samples") {
  std::vector<data::CellTally> local(2);
  local[0].numbers = 98;
  local[0].add_other("1,234", [] { return 4L; });
  local[1].numbers = 7;
  reduce::SerialCommunicator comm;
  const auto all = data::gather_tallies(local, comm);
  REQUIRE(all.size() == 2);
  CHECK(all[0].numbers == 98);
  CHECK(all[0].others == 1);
  REQUIRE(all[0].samples.size() == 1);
  CHECK(all[0].samples[0].text == "1,234");
  CHECK(all[0].samples[0].line == 4);
  CHECK(all[1].numbers == 7);
  CHECK(all[1].others == 0);
  CHECK(all[1].samples.empty());
}

namespace {

data::Table<double> read(const std::string& path, const data::TableSpec& spec) {
  data::CsvReader reader(path);
  reader.scan();
  return data::read_table<double>(reader, spec, 0, reader.records(), 100);
}

}  // namespace

TEST_CASE("read_table: tallied columns count their cells instead of failing") {
  test::TempDir dir;
  const std::string path = dir.write("d.csv",
                                     "y,x,g,z\n"
                                     "1,#DIV/0!,a,1\n"    // 2
                                     "2,2.5,7,x\n"        // 3
                                     "3,NA,b,\n"          // 4: missing cells are neither
                                     "4,\"1,234\",c,2\n"  // 5
                                     "5,inf,d,3\n");      // 6: an infinity reads as a number here
  data::TableSpec spec;
  spec.response = 0;
  spec.text = {1, 2, 3};
  spec.tally_text = {true, true, false};
  const auto t = read(path, spec);
  CHECK(t.kept == 4);
  REQUIRE(t.text_tallies.size() == 3);
  // x: missing cells are neither kind; an infinity is a number here.
  CHECK(t.text_tallies[0].numbers == 2);
  CHECK(t.text_tallies[0].others == 2);
  REQUIRE(t.text_tallies[0].samples.size() == 2);
  CHECK(t.text_tallies[0].samples[0].text == "#DIV/0!");
  CHECK(t.text_tallies[0].samples[0].line == 2);
  CHECK(t.text_tallies[0].samples[1].text == "1,234");
  CHECK(t.text_tallies[0].samples[1].line == 5);
  // Not tallied: nothing counted.
  CHECK(t.text_tallies[2].numbers == 0);
  CHECK(t.text_tallies[2].others == 0);
  // g: a label made of digits is counted as a number.
  CHECK(t.text_tallies[1].numbers == 1);
  CHECK(t.text_tallies[1].others == 4);

  // A tallied numeric column: text counted, the row kept with a 0 until the caller judges.
  data::TableSpec numeric;
  numeric.response = 0;
  numeric.numeric = {3};
  numeric.tally_numeric = {true};
  const auto n = read(path, numeric);
  CHECK(n.kept == 4);
  CHECK(n.numeric_tallies[0].numbers == 3);
  CHECK(n.numeric_tallies[0].others == 1);
  CHECK(n.numeric(1, 0) == 0.0);
  // Not tallied: the same cell is an error at its line.
  numeric.tally_numeric.clear();
  test::expect_error([&] { read(path, numeric); }, ExitCode::data, path + ":3",
                     "non-numeric value 'x' (a numeric column");
}

TEST_CASE("read_table: bytes no text CSV holds are errors at their line, in every kind of column") {
  test::TempDir dir;
  const std::string nul = dir.write("nul.csv", std::string("y,x,g\n1,2,a\n2,3\0,b\n", 19));
  data::TableSpec spec;
  spec.response = 0;
  spec.numeric = {1};
  spec.tally_numeric = {true};
  spec.text = {2};
  test::expect_error([&] { read(nul, spec); }, ExitCode::data, nul + ":3", "control byte \\x00");
  const std::string latin = dir.write("latin.csv", "y,x,g\n1,2,a\n2,3,caf\xe9\n");
  test::expect_error([&] { read(latin, spec); }, ExitCode::data, latin + ":3",
                     "byte \\xe9, which is not UTF-8");
  const std::string ctl = dir.write("ctl.csv", "y,x,g\n1,2,a\n2,\x01,b\n");
  test::expect_error([&] { read(ctl, spec); }, ExitCode::data, ctl + ":3", "control byte \\x01");
}

}  // namespace test_cell_tally
