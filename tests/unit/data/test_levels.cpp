// Levels of categorical columns over a whole file (one process here; the MPI e2e tests run the
// exchange over ranks): byte order for text, value order for numbers with equal numbers merged,
// every local code remapped; observed combinations of columns in level order.
#include <doctest/doctest.h>

#include "models/data/levels.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_levels {

using namespace bvi;

TEST_CASE("gather_levels: byte order for text, numeric order for numbers") {
  std::vector<data::LevelDictionary> local(3);
  for (const char* l : {"b", "B", "\xc3\xa9", "a", "A"}) local[0].code(l);
  for (const char* l : {"10", "2", "01", "1", "2.5", "-3"}) local[1].code(l);
  for (const char* l : {"7", "x"}) local[2].code(l);  // one label is no number: bytes
  reduce::SerialCommunicator comm;
  const auto out = data::gather_levels(local, comm);
  CHECK(out[0].names == std::vector<std::string>{"A", "B", "a", "b", "\xc3\xa9"});
  CHECK_FALSE(out[0].numeric);
  CHECK(out[0].remap == std::vector<std::int32_t>{3, 1, 4, 2, 0});
  CHECK(out[1].names == std::vector<std::string>{"-3", "1", "2", "2.5", "10"});
  CHECK(out[1].numeric);
  CHECK(out[1].remap == std::vector<std::int32_t>{4, 2, 1, 1, 3, 0});  // "01" and "1" are one level
  CHECK(out[2].names == std::vector<std::string>{"7", "x"});
  CHECK_FALSE(out[2].numeric);
}

TEST_CASE("gather_combinations: the observed tuples in level order") {
  data::ColumnLevels a, b;
  a.names = {"A", "B"};
  b.names = {"x", "y", "z"};
  const std::vector<std::int32_t> rows = {1, 0, 0, 2, 1, 0, 0, 2, 0, 1};  // (B,x) (A,z) (B,x) (A,z) (A,y)
  std::vector<std::int32_t> index;
  reduce::SerialCommunicator comm;
  const auto names = data::gather_combinations(rows, 2, {&a, &b}, comm, index);
  CHECK(names == std::vector<std::string>{"A:y", "A:z", "B:x"});
  CHECK(index == std::vector<std::int32_t>{2, 1, 2, 1, 0});
}

TEST_CASE("move_first: the reference level first, the others in order, codes remapped") {
  data::ColumnLevels c;
  c.names = {"drug", "drug+", "placebo"};
  c.remap = {2, 0, 1, 2};  // local codes -> sorted indexes
  data::move_first(c, "placebo", "trt", "/w");
  CHECK(c.names == std::vector<std::string>{"placebo", "drug", "drug+"});
  CHECK(c.remap == std::vector<std::int32_t>{0, 1, 2, 0});
  data::move_first(c, "placebo", "trt", "/w");  // already first: nothing moves
  CHECK(c.names == std::vector<std::string>{"placebo", "drug", "drug+"});
  data::ColumnLevels n;
  n.names = {"1", "2", "10"};
  n.numeric = true;
  n.remap = {0, 1, 2};
  data::move_first(n, "10.0", "dose", "/w");  // by value
  CHECK(n.names == std::vector<std::string>{"10", "1", "2"});
  CHECK(n.remap == std::vector<std::int32_t>{1, 2, 0});
  CHECK_THROWS_WITH(data::move_first(n, "3", "dose", "/w"),
                    doctest::Contains("'3' is not a level of 'dose' in the rows used (its levels: 10, 1, 2)"));
}

}  // namespace test_levels
