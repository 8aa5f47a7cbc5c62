// The column-selective reader of the model's rows: numeric, categorical and response columns;
// missing cells (empty, spaces, NA, NaN in any case and sign, quoted empty) leave their row out
// and are counted, with the first one's line; infinities and text in a numeric column stay errors;
// a dropped row adds no level; the rows kept per chunk of records; unused columns never parsed.
#include <doctest/doctest.h>

#include "common/error.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/table_reader.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_table_reader {

using namespace bvi;

namespace {

data::Table<double> read(const std::string& path, Eigen::Index chunk = 100) {
  data::CsvReader reader(path);
  reader.scan();
  data::TableSpec spec;
  spec.numeric = {1};
  spec.text = {2};
  spec.response = 0;
  return data::read_table<double>(reader, spec, 0, reader.records(), chunk);
}

}  // namespace

TEST_CASE("read_table: missing cells leave their rows out, counted") {
  test::TempDir dir;
  const std::string path = dir.write("d.csv",
                                     "y,x,g,junk\n"
                                     "1,0.5,a,zz\n"      // 2
                                     "2,,b,zz\n"         // 3: empty
                                     "3,NA,b,\n"         // 4: NA
                                     "4,-NaN,c,NA\n"     // 5: NaN with a sign
                                     "5,1.5,  ,x\n"      // 6: blank level
                                     "NA,2.5,a,x\n"      // 7: missing response
                                     "7,3.5,\"\",x\n"    // 8: quoted empty level
                                     "8,4.5,b,text\n");  // 9
  const auto t = read(path, 3);
  CHECK(t.kept == 2);
  CHECK(t.missing == 6);
  CHECK(t.first_missing_line == 3);
  CHECK(t.first_missing_what == "column 'x': empty field");
  CHECK(t.y[0] == 1.0);
  CHECK(t.y[1] == 8.0);
  CHECK(t.numeric(1, 0) == 4.5);
  // Levels only from kept rows: c (row 5) was dropped.
  CHECK(t.levels[0].labels() == std::vector<std::string>{"a", "b"});
  CHECK(t.codes[0] == std::vector<std::int32_t>{0, 1});
  // Chunks of 3 records: rows 0-2 keep 1, 3-5 keep 0, 6 keeps 1.
  CHECK(t.kept_per_chunk == std::vector<Eigen::Index>{1, 0, 1});
}

TEST_CASE("read_table: present values that are bad are errors at their line") {
  test::TempDir dir;
  auto expect = [&](const std::string& name, const std::string& text, const std::string& fragment) {
    const std::string path = dir.write(name, text);
    test::expect_error([&] { read(path); }, ExitCode::data, path + ":3", fragment);
  };
  expect("a.csv", "y,x,g\n1,2,a\n1,inf,a\n", "non-finite value 'inf'");
  expect("b.csv", "y,x,g\n1,2,a\n1,abc,a\n",
         "non-numeric value 'abc' (a numeric column; list it in /data/categorical");
  expect("c.csv", "y,x,g\n1,2,a\n1,2\n", "ragged row");
  // Labels are trimmed of spaces: ' a' is 'a'.
  const auto t = read(dir.write("d.csv", "y,x,g\n1,2, a\n1,2,a \n"));
  CHECK(t.levels[0].labels() == std::vector<std::string>{"a"});
}

}  // namespace test_table_reader
