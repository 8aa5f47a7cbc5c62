// Every way a data file is rejected: the exit code, the exact FILE:LINE, and what was found.
#include <doctest/doctest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "models/data/csv_reader.hpp"
#include "models/data/dataset.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_csv_errors {

using bvi::ExitCode;
using bvi::data::DataSpec;
using bvi::data::load_dataset;
using bvi::test::expect_error;

namespace {

std::string binary_check(double v) {
  if (v == 0.0 || v == 1.0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string("response must be 0 or 1, got ") + buf;
}

struct Options {
  bool standardize = false;
  std::optional<std::vector<std::string>> features;
  bool through_reader = true;  // also read with CsvReader and tiny buffers (load_dataset's own checks aside)
};

// The spec's columns through CsvReader with a given buffer size.
template <class T>
void read_all(const DataSpec& spec, std::size_t buffer_bytes) {
  bvi::data::CsvReader reader(spec.path, buffer_bytes);
  const bvi::data::ColumnSelection sel = bvi::data::select_columns(reader, spec);
  const auto& index = reader.scan();
  bvi::data::RowMatrix<T> x(index.records, static_cast<Eigen::Index>(sel.features.size()));
  Eigen::VectorXd y(index.records);
  reader.read_rows<T>(0, index.records, sel.features, sel.response, binary_check, x.data(), y.data());
}

// Writes `text` as d.csv, loads it as T (response y), and expects a data error at `line`
// whose message contains `fragment`; then the same through CsvReader with buffers so small
// that every record straddles refills.
template <class T = double>
void expect_data_error(const std::string& text, long line, const std::string& fragment,
                       const Options& o = {}) {
  bvi::test::TempDir dir;
  const std::string path = dir.write("d.csv", text);
  const std::string where = path + ":" + std::to_string(line);
  const DataSpec spec{path, "y", o.features, o.standardize};
  expect_error([&] { load_dataset<T>(spec, binary_check); }, ExitCode::data, where, fragment);
  if (!o.through_reader) return;
  for (std::size_t buffer : {1, 2, 3, 5, 64}) {
    INFO("buffer bytes: ", buffer);
    expect_error([&] { read_all<T>(spec, buffer); }, ExitCode::data, where, fragment);
  }
}

}  // namespace

TEST_CASE("a value that is not a number") {
  expect_data_error("a,b,y\n1,2,0\n1,abc,0\n", 3, "column 'b': non-numeric value 'abc'");
  expect_data_error("a,b,y\n1,0x10,0\n", 2, "non-numeric value '0x10'");
  expect_data_error("a,b,y\n1,\"1,5\",0\n", 2, "non-numeric value '1,5'");
  expect_data_error("a,b,y\r\n1,2\r,0\r\n", 2, "column 'b': non-numeric value '2\\r'");
  expect_data_error("a,b,y\n1,2,yes\n", 2, "column 'y': non-numeric value 'yes'");
}

TEST_CASE("an empty field, quoted or not, or only spaces") {
  expect_data_error("a,b,y\n1,2,0\n3,4,1\n,4,1\n", 4, "column 'a': empty field");
  expect_data_error("a,b,y\n1,\"\",0\n", 2, "column 'b': empty field");
  expect_data_error("a,b,y\n1,   ,0\n", 2, "column 'b': empty field");
  expect_data_error("a,b,y\n1,2,\n", 2, "column 'y': empty field");
}

TEST_CASE("a non-finite value") {
  expect_data_error("a,b,y\n1,nan,0\n", 2, "column 'b': non-finite value 'nan'");
  expect_data_error("a,b,y\n1,2,0\n-Infinity,2,0\n", 3, "non-finite value '-Infinity'");
  expect_data_error("a,b,y\n1,2,0\n1,2,inf\n", 3, "column 'y': non-finite value 'inf'");
  expect_data_error("a,b,y\n1,1e999,0\n", 2, "number too large for a double '1e999'");
  // Finite as a double, infinite as a float: only float storage rejects it.
  expect_data_error<float>("a,b,y\n1,1e39,0\n", 2, "number too large for a float '1e39'");
}

TEST_CASE("a ragged row: too few fields, too many, or a blank line in the middle") {
  expect_data_error("a,b,y\n1,2,0\n1,2\n", 3, "ragged row: expected 3 fields, found 2");
  expect_data_error("a,b,y\n1,2,0,4\n", 2, "ragged row: expected 3 fields, found 4");
  expect_data_error("a,b,y\n1,2,0,\n", 2, "ragged row: expected 3 fields, found 4");
  expect_data_error("a,b,y\n1,2,0\n\n1,2,0\n", 3, "ragged row: a blank line");
  expect_data_error("a,b,y\r\n1,2,0\r\n\r\n1,2,0\r\n", 3, "ragged row: a blank line");
  // Misalignment is the real problem even when a field is also bad.
  expect_data_error("a,b,y\nabc,2\n", 2, "ragged row: expected 3 fields, found 2");
  // A one-column file: a blank line is still a blank line, not an empty field.
  expect_data_error("y\n1\n\n0\n", 3, "ragged row: a blank line");
}

TEST_CASE("a response the model does not allow") {
  expect_data_error("a,b,y\n1,2,0\n1,2,1\n1,2,2\n", 4, "column 'y': response must be 0 or 1, got 2");
  expect_data_error("a,b,y\n1,2,0.5\n", 2, "response must be 0 or 1");
}

TEST_CASE("line numbers count physical lines: quoted newlines in the header and in rows") {
  expect_data_error("\"a\nwith newline\",b,y\n1,2,0\n1,x,0\n", 4, "non-numeric value 'x'");
  const Options only_b{false, std::vector<std::string>{"b"}};
  expect_data_error("note,b,y\n\"two\nlines\",2,0\n\"three\n\nlines\",2,0\nz,bad,0\n", 7,
                    "non-numeric value 'bad'", only_b);
  // The field itself after a quoted newline in the same record: the line it is on.
  expect_data_error("note,b,y\n\"two\nlines\",bad,0\n", 3, "non-numeric value 'bad'", only_b);
  // Messages stay on one line when the bad value holds a newline.
  expect_data_error("a,b,y\n1,\"1\n2\",0\n", 2, "non-numeric value '1\\n2'");
}

TEST_CASE("long offending text is cut to about 40 characters") {
  const std::string junk(100, 'j');
  expect_data_error("a,b,y\n1," + junk + ",0\n", 2, "non-numeric value '" + std::string(40, 'j') + "...'");
}

TEST_CASE("malformed quoting, wherever it is in the file") {
  expect_data_error("a,b,y\n1,2,0\n1,2\"3,0\n", 3, "'\"' inside an unquoted field '2\"3'");
  expect_data_error("a,b,y\n1,\"2\"3,0\n", 2, "text after a closing quote");
  expect_data_error("a,b,y\n1,\"2\" ,0\n", 2, "text after a closing quote");
  expect_data_error("a,b,y\n1,\"2\"\rx,0\n", 2, "text after a closing quote");
  expect_data_error("a,b,y\n1,2,0\n1,\"2,0\n3,4,1\n", 3, "unterminated quoted field '\"2,0\\n3,4,1\\n'");
  // In the header too.
  expect_data_error("a,\"b,y\n1,2,0\n", 1, "unterminated quoted field");
  expect_data_error("a,b\"c,y\n1,2,0\n", 1, "'\"' inside an unquoted field 'b\"c'");
}

TEST_CASE("a column that is not in the header, or not unique there") {
  expect_data_error("a,b,z\n1,2,0\n", 1, "response column 'y' is not in the header");
  expect_data_error("a, b, Y\n1,2,0\n", 1, "response column 'y' is not in the header (did you mean ' Y'?)");
  expect_data_error("a,b,y\n1,2,0\n", 1, "feature column 'c' is not in the header",
                    {false, std::vector<std::string>{"a", "c"}});
  expect_data_error("a,a,y\n1,2,0\n", 1, "feature column 'a' appears 2 times in the header");
  expect_data_error("a,y,y\n1,2,0\n", 1, "response column 'y' appears 2 times in the header");
  expect_data_error("a,b,y\n1,2,0\n", 1, "feature 'a' is listed twice",
                    {false, std::vector<std::string>{"a", "a"}});
  expect_data_error("a,b,y\n1,2,0\n", 1, "column 'y' is both the response and a feature",
                    {false, std::vector<std::string>{"a", "y"}});
  // A duplicate name that is not selected is no one's business.
  bvi::test::TempDir dir;
  const std::string path = dir.write("dup.csv", "a,a,b,y\n1,2,3,0\n");
  CHECK(
      load_dataset<double>(DataSpec{path, "y", std::vector<std::string>{"b"}, false}, binary_check).x(0, 0) ==
      3);
}

TEST_CASE("no data rows, or no header at all") {
  const Options loading_only{false, {}, false};  // CsvReader itself reads zero rows fine
  expect_data_error("a,b,y\n", 2, "no data rows", loading_only);
  expect_data_error("a,b,y", 2, "no data rows", loading_only);
  expect_data_error("a,b,y\n\n\r\n", 2, "no data rows", loading_only);
  expect_data_error("\"a\nb\",y\n", 3, "no data rows", loading_only);
  expect_data_error("", 1, "empty file: no header line");
  expect_data_error("\xEF\xBB\xBF", 1, "empty file: no header line");
  expect_data_error("\n1,2,0\n", 1, "the header line is blank");
}

TEST_CASE("a constant feature cannot be standardized") {
  const Options standardize{true, {}, false};
  expect_data_error("a,b,y\n1,2.5,0\n2,2.5,1\n3,2.5,1\n", 1, "feature 'b' is constant (every value is 2.5)",
                    standardize);
  // 0.1 three times: the computed mean is not exactly 0.1, so a test on sd == 0 would miss it.
  expect_data_error("a,b,y\n1,0.1,0\n2,0.1,1\n3,0.1,1\n", 1, "feature 'b' is constant", standardize);
  // One row: every feature is constant, and the sample sd would be 0/0.
  expect_data_error("a,b,y\n1,2,0\n", 1, "feature 'a' is constant", standardize);
  // A constant column that is not selected does not matter.
  bvi::test::TempDir dir;
  const std::string path = dir.write("c.csv", "a,b,y\n1,2.5,0\n2,2.5,1\n");
  CHECK(
      load_dataset<double>(DataSpec{path, "y", std::vector<std::string>{"a"}, true}, binary_check).x.rows() ==
      2);
}

TEST_CASE("a file that cannot be opened is exit code 66 at the path") {
  bvi::test::TempDir dir;
  const std::string missing = (dir.path() / "nope.csv").string();
  expect_error(
      [&] {
        load_dataset<double>(DataSpec{missing, "y", {}, false}, binary_check);
      },
      ExitCode::no_input, missing, "cannot open: no such file or directory");
  const std::string folder = dir.path().string();
  expect_error([&] { bvi::data::CsvReader reader(folder); }, ExitCode::no_input, folder, "is a directory");
}

}  // namespace test_csv_errors
