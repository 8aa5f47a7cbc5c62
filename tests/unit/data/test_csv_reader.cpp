// CsvReader on the file shapes found in the wild, with buffers from 1 byte up so every record
// and field also straddles a refill; and row ranges read from checkpoints against a full read.
#include <doctest/doctest.h>

#include <charconv>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "models/data/csv_reader.hpp"
#include "models/data/row_matrix.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_csv_reader {

using bvi::data::CsvReader;
using bvi::data::RecordStream;
using bvi::data::RowIndex;
using bvi::data::RowMatrix;

namespace {

const std::size_t kBufferSizes[] = {1, 2, 3, 7, 64, RecordStream::kDefaultBufferBytes};

struct Table {
  std::vector<std::string> columns;
  RowMatrix<double> values;  // every column
  long first_data_line = 0;
};

Table read_table(const std::string& path, std::size_t buffer_bytes) {
  CsvReader reader(path, buffer_bytes);
  const RowIndex& index = reader.scan();
  std::vector<int> all(reader.columns().size());
  std::iota(all.begin(), all.end(), 0);
  Table t{reader.columns(), RowMatrix<double>(index.records, static_cast<Eigen::Index>(all.size())),
          reader.first_data_line()};
  reader.read_rows<double>(0, index.records, all, -1, {}, t.values.data(), nullptr);
  return t;
}

// Reads `text` with every buffer size and checks each read gives `columns` and `values`.
void check_reads(const std::string& text, const std::vector<std::string>& columns,
                 const std::vector<std::vector<double>>& values, long first_data_line = 2) {
  bvi::test::TempDir dir;
  const std::string path = dir.write("t.csv", text);
  for (std::size_t buffer : kBufferSizes) {
    INFO("buffer bytes: ", buffer);
    const Table t = read_table(path, buffer);
    CHECK(t.columns == columns);
    CHECK(t.first_data_line == first_data_line);
    REQUIRE(t.values.rows() == static_cast<Eigen::Index>(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) {
      REQUIRE(t.values.cols() == static_cast<Eigen::Index>(values[i].size()));
      for (std::size_t j = 0; j < values[i].size(); ++j)
        CHECK(t.values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) == values[i][j]);
    }
  }
}

}  // namespace

TEST_CASE("a plain file") {
  check_reads("a,b,y\n1,2.5,0\n-3,4e-2,1\n0.1,-0,1\n", {"a", "b", "y"},
              {{1, 2.5, 0}, {-3, 0.04, 1}, {0.1, 0, 1}});
}

TEST_CASE("spaces around unquoted numbers and a leading plus") {
  check_reads("a,b\n  1 ,+2\n+3.5,   -4   \n", {"a", "b"}, {{1, 2}, {3.5, -4}});
}

TEST_CASE("quoting: header names with commas, escaped quotes and a newline; quoted numbers") {
  // The header spans lines 1-2, so the first row is on line 3.
  check_reads("\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",y\n\"1.5\",2,\"-3e2\",\"0\"\n4,5,\" 6\",1\n",
              {"a,b", "say \"hi\"", "two\nlines", "y"}, {{1.5, 2, -300, 0}, {4, 5, 6, 1}}, 3);
}

TEST_CASE("an empty quoted header name and one made only of escaped quotes") {
  bvi::test::TempDir dir;
  CsvReader reader(dir.write("q.csv", "\"\",\"\"\"\"\"\",c\n1,2,3\n"));
  CHECK(reader.columns() == std::vector<std::string>{"", "\"\"", "c"});
}

TEST_CASE("CRLF line endings, also after a quoted field") {
  check_reads("a,y\r\n1,0\r\n\"2\",1\r\n3,\"0\"\r\n", {"a", "y"}, {{1, 0}, {2, 1}, {3, 0}});
}

TEST_CASE("a UTF-8 byte order mark before the header") {
  check_reads(
      "\xEF\xBB\xBF"
      "a,y\n1,0\n",
      {"a", "y"}, {{1, 0}});
  check_reads("\xEF\xBB\xBF\"a\",y\r\n1,0\r\n", {"a", "y"}, {{1, 0}});
}

TEST_CASE("trailing blank lines are not rows") {
  check_reads("a,y\n1,0\n\n", {"a", "y"}, {{1, 0}});
  check_reads("a,y\n1,0\n\n\n\n", {"a", "y"}, {{1, 0}});
  check_reads("a,y\r\n1,0\r\n\r\n\r\n", {"a", "y"}, {{1, 0}});
}

TEST_CASE("no newline after the last row") {
  check_reads("a,y\n1,0\n2,1", {"a", "y"}, {{1, 0}, {2, 1}});
  check_reads("a,y\n1,0\n\"2\",\"1\"", {"a", "y"}, {{1, 0}, {2, 1}});
}

TEST_CASE("unselected text columns may hold anything that is properly quoted") {
  bvi::test::TempDir dir;
  const std::string path =
      dir.write("t.csv", "id,x,y\n\"a,b\",1,0\n\"multi\nline \"\"note\"\"\",2,1\nplain text,3,1\n");
  for (std::size_t buffer : kBufferSizes) {
    CsvReader reader(path, buffer);
    REQUIRE(reader.scan().records == 3);
    double x[3], y[3];
    reader.read_rows<double>(0, 3, {1}, 2, {}, x, y);
    CHECK(x[0] == 1);
    CHECK(x[1] == 2);
    CHECK(x[2] == 3);
    CHECK(y[0] == 0);
    CHECK(y[2] == 1);
  }
}

TEST_CASE("a header without rows, and a single-column file") {
  check_reads("a,y\n", {"a", "y"}, {});
  check_reads("a,y", {"a", "y"}, {});
  check_reads("y\n1\n0\n", {"y"}, {{1}, {0}});
}

TEST_CASE("feature selection reorders columns and float storage rounds each value once") {
  bvi::test::TempDir dir;
  const std::string path = dir.write("t.csv", "a,b,c,y\n0.1,0.2,0.3,1\n1e-3,2e-3,3e-3,0\n");
  CsvReader reader(path);
  reader.scan();
  float x[4];
  double y[2];
  reader.read_rows<float>(0, 2, {2, 0}, 3, {}, x, y);
  CHECK(x[0] == static_cast<float>(0.3));
  CHECK(x[1] == static_cast<float>(0.1));
  CHECK(x[2] == static_cast<float>(3e-3));
  CHECK(x[3] == static_cast<float>(1e-3));
  CHECK(y[0] == 1.0);
  CHECK(y[1] == 0.0);
}

// 3500 rows, so four checkpoints, where every 7th row also has a quoted newline in an unused
// text column: records and physical lines part ways, which checkpoints must track.
TEST_CASE("row ranges from checkpoints give exactly the rows of a full read") {
  const int n = 3500;
  std::string text = "note,x,y\n";
  std::vector<long> line_of(n);
  std::vector<std::size_t> offset_of(n);
  long line = 2;
  for (int i = 0; i < n; ++i) {
    line_of[static_cast<std::size_t>(i)] = line;
    offset_of[static_cast<std::size_t>(i)] = text.size();
    const bool multiline = i % 7 == 3;
    text += multiline ? "\"row\n" + std::to_string(i) + "\"" : "r" + std::to_string(i);
    text += "," + std::to_string(i) + ".25," + std::to_string(i % 2) + "\n";
    line += multiline ? 2 : 1;
  }
  bvi::test::TempDir dir;
  const std::string path = dir.write("big.csv", text);

  for (std::size_t buffer : {std::size_t(64), std::size_t(4096), RecordStream::kDefaultBufferBytes}) {
    INFO("buffer bytes: ", buffer);
    CsvReader reader(path, buffer);
    const RowIndex& index = reader.scan();
    REQUIRE(index.records == n);
    REQUIRE(index.checkpoints.size() == 4);
    for (std::size_t k = 0; k < index.checkpoints.size(); ++k) {
      const std::size_t row = k * RowIndex::kRecordsPerCheckpoint;
      CHECK(index.checkpoints[k].offset == offset_of[row]);
      CHECK(index.checkpoints[k].line == line_of[row]);
    }

    RowMatrix<double> full(n, 1);
    Eigen::VectorXd full_y(n);
    reader.read_rows<double>(0, n, {1}, 2, {}, full.data(), full_y.data());
    for (int i = 0; i < n; i += 499) CHECK(full(i, 0) == i + 0.25);
    CHECK(full(n - 1, 0) == n - 1 + 0.25);

    for (auto range : std::vector<std::pair<int, int>>{{0, 0},
                                                       {0, 1},
                                                       {1023, 1025},
                                                       {1024, 1025},
                                                       {1500, 2100},
                                                       {2047, 3072},
                                                       {3071, n},
                                                       {n - 1, n},
                                                       {n, n}}) {
      // Copies, not structured bindings: clang (the sanitizer and fuzz build) cannot capture
      // those in INFO's lambda before C++20.
      const int b = range.first, e = range.second;
      INFO("rows [", b, ", ", e, ")");
      RowMatrix<double> part(e - b, 1);
      Eigen::VectorXd part_y(e - b);
      reader.read_rows<double>(b, e, {1}, 2, {}, part.data(), part_y.data());
      CHECK(part == full.middleRows(b, e - b));
      CHECK(part_y == full_y.segment(b, e - b));
    }

    // Two threads parsing disjoint halves of one reader at once.
    RowMatrix<double> first(1700, 1), second(n - 1700, 1);
    Eigen::VectorXd first_y(1700), second_y(n - 1700);
    std::thread t1([&] { reader.read_rows<double>(0, 1700, {1}, 2, {}, first.data(), first_y.data()); });
    std::thread t2([&] { reader.read_rows<double>(1700, n, {1}, 2, {}, second.data(), second_y.data()); });
    t1.join();
    t2.join();
    CHECK(first == full.topRows(1700));
    CHECK(second == full.bottomRows(n - 1700));
  }
}

TEST_CASE("read_rows outside the scanned rows, or before scan(), is a programming error") {
  bvi::test::TempDir dir;
  const std::string path = dir.write("t.csv", "x,y\n1,0\n2,1\n");
  CsvReader reader(path);
  double x[3], y[3];
  CHECK_THROWS_AS(reader.read_rows<double>(0, 1, {0}, 1, {}, x, y), std::logic_error);
  reader.scan();
  CHECK_THROWS_AS(reader.read_rows<double>(0, 3, {0}, 1, {}, x, y), std::out_of_range);
  CHECK_THROWS_AS(reader.read_rows<double>(1, 0, {0}, 1, {}, x, y), std::out_of_range);
  CHECK_THROWS_AS(reader.read_rows<double>(0, 1, {0, 0}, 1, {}, x, y), std::invalid_argument);
  CHECK_THROWS_AS(reader.read_rows<double>(0, 1, {1}, 1, {}, x, y), std::invalid_argument);
  CHECK_THROWS_AS(reader.read_rows<double>(0, 1, {2}, 1, {}, x, y), std::invalid_argument);
}

// Random files written by an independent little CSV writer: text fields full of commas, quotes,
// newlines and CRLFs, numbers quoted or not, LF and CRLF records mixed. Every buffer size must
// give back exactly the numbers written, and the scan must count exactly the rows written.
TEST_CASE("randomized round trip through every buffer size") {
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* pieces[] = {"a", ",", "\"", "\n", "\r\n", " ", "xyz", "\"\"", ",,"};
  bvi::test::TempDir dir;
  for (int trial = 0; trial < 20; ++trial) {
    const int rows = 1 + pick(60);
    std::string text = "note,\"x\",y\n";
    std::vector<double> xs, ys;
    for (int i = 0; i < rows; ++i) {
      std::string note;
      for (int k = pick(6); k > 0; --k) note += pieces[pick(9)];
      std::string quoted = "\"";
      for (char c : note) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      quoted += "\"";
      // A note needs quotes only when it holds a special byte; write plain ones bare sometimes.
      const bool special = note.find_first_of(",\"\r\n") != std::string::npos;
      text += special || pick(2) ? quoted : note;
      const double x = std::uniform_real_distribution<double>(-1e3, 1e3)(rng);
      char buf[40];
      const auto r = std::to_chars(buf, buf + sizeof buf, x);
      const std::string xs_text(buf, r.ptr);
      text += "," + (pick(2) ? "\"" + xs_text + "\"" : xs_text);
      const int y = pick(2);
      text += "," + std::to_string(y);
      if (i + 1 < rows || pick(2)) text += pick(2) ? "\r\n" : "\n";
      xs.push_back(x);
      ys.push_back(y);
    }
    const std::string path = dir.write("r" + std::to_string(trial) + ".csv", text);
    for (std::size_t buffer = 1; buffer <= 17; ++buffer) {
      INFO("trial ", trial, ", buffer bytes ", buffer, ", file:\n", text);
      CsvReader reader(path, buffer);
      REQUIRE(reader.scan().records == rows);
      std::vector<double> x(static_cast<std::size_t>(rows)), y(static_cast<std::size_t>(rows));
      reader.read_rows<double>(0, rows, {1}, 2, {}, x.data(), y.data());
      CHECK(x == xs);
      CHECK(y == ys);
    }
  }
}

}  // namespace test_csv_reader
