// Every chunk's levels and level pairs (models/chunk_levels.hpp), worked by hand and against sets;
// and the memory estimate's per-chunk sizes from them (models/problem_shape.cpp): the widest chunk
// of sorted groups, far below the bound min(chunk rows, groups), the same from the probe as from the
// loaded problem.
#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "inference/reduce/communicator.hpp"
#include "models/chunk_levels.hpp"
#include "models/problem.hpp"
#include "models/problem_shape.hpp"
#include "models/spec/config.hpp"
#include "support/temp_dir.hpp"

namespace test_chunk_levels {

using namespace bvi;
using Eigen::Index;

TEST_CASE("chunk level counts: levels and pairs of each chunk, by hand") {
  reduce::SerialCommunicator comm;
  // 10 rows in chunks [0, 4), [4, 7), [7, 10); three factors.
  const std::vector<std::int32_t> a = {3, 3, 0, 3, 1, 1, 1, 5, 0, 5};
  const std::vector<std::int32_t> b = {0, 1, 0, 1, 0, 0, 0, 2, 2, 2};
  const std::vector<std::int32_t> c = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
  const auto n = models::ChunkLevelCounts::count({&a, &b, &c}, {0, 4, 7, 10}, 0, 3, comm);
  REQUIRE(n.chunks() == 3);
  REQUIRE(n.factors() == 3);
  CHECK(n.levels(0, 0) == 2);  // 3, 0
  CHECK(n.levels(1, 0) == 1);
  CHECK(n.levels(2, 0) == 2);  // 5, 0
  CHECK(n.levels(0, 1) == 2);
  CHECK(n.levels(1, 1) == 1);
  CHECK(n.levels(2, 1) == 1);
  for (Index k = 0; k < 3; ++k) CHECK(n.levels(k, 2) == 1);
  CHECK(n.pairs(0, 0, 1) == 3);  // (3,0) (3,1) (0,0)
  CHECK(n.pairs(0, 1, 0) == 3);  // either order
  CHECK(n.pairs(1, 0, 1) == 1);
  CHECK(n.pairs(2, 0, 1) == 2);  // (5,2) (0,2)
  CHECK(n.pairs(0, 0, 2) == 2);
  CHECK(n.pairs(0, 1, 2) == 2);
  CHECK_THROWS_AS(n.pairs(0, 1, 1), std::logic_error);
}

TEST_CASE("chunk level counts: a rank's own chunks, the others' zero until the allreduce") {
  reduce::SerialCommunicator comm;  // its allreduce leaves every value as it is
  const std::vector<std::int32_t> a = {0, 1, 1, 2};
  const auto n = models::ChunkLevelCounts::count({&a}, {0, 2, 4}, 1, 4, comm);  // chunks 1 and 2 of 4
  CHECK(n.levels(0, 0) == 0);
  CHECK(n.levels(1, 0) == 2);
  CHECK(n.levels(2, 0) == 2);
  CHECK(n.levels(3, 0) == 0);
  // Codes for other rows than the offsets say are a logic error, not a wrong count.
  CHECK_THROWS_AS(models::ChunkLevelCounts::count({&a}, {0, 2, 5}, 0, 2, comm), std::logic_error);
  CHECK_THROWS_AS(models::ChunkLevelCounts::count({&a}, {0, 2, 4}, 3, 4, comm), std::logic_error);
  const std::vector<std::int32_t> negative = {0, -1, 1, 2};  // would index before the stamps
  CHECK_THROWS_AS(models::ChunkLevelCounts::count({&negative}, {0, 2, 4}, 0, 2, comm), std::logic_error);
}

TEST_CASE("chunk level counts: against sets on scrambled codes") {
  reduce::SerialCommunicator comm;
  std::vector<std::int32_t> a(1000), b(1000);
  std::uint32_t state = 12345;
  for (std::size_t r = 0; r < a.size(); ++r) {
    state = state * 1664525u + 1013904223u;
    a[r] = static_cast<std::int32_t>((state >> 8) % 97);
    b[r] = static_cast<std::int32_t>((state >> 20) % 13);
  }
  std::vector<Index> offsets{0};
  for (Index k = 1; offsets.back() < 1000; ++k) offsets.push_back(std::min<Index>(1000, offsets.back() + 37 + k % 5));
  const Index chunks = static_cast<Index>(offsets.size()) - 1;
  const auto n = models::ChunkLevelCounts::count({&a, &b}, offsets, 0, chunks, comm);
  for (Index k = 0; k < chunks; ++k) {
    std::set<int> la, lb;
    std::set<std::pair<int, int>> ab;
    for (Index r = offsets[static_cast<std::size_t>(k)]; r < offsets[static_cast<std::size_t>(k) + 1]; ++r) {
      la.insert(a[static_cast<std::size_t>(r)]);
      lb.insert(b[static_cast<std::size_t>(r)]);
      ab.insert({a[static_cast<std::size_t>(r)], b[static_cast<std::size_t>(r)]});
    }
    CHECK(n.levels(k, 0) == static_cast<Index>(la.size()));
    CHECK(n.levels(k, 1) == static_cast<Index>(lb.size()));
    CHECK(n.pairs(k, 0, 1) == static_cast<Index>(ab.size()));
  }
}

TEST_CASE("memory estimate sizes: the widest chunk's levels, from the probe and the loaded rows") {
  // 512 rows sorted by g (64 groups of 8 rows), h = row mod 5 crossed with it; blocks of 16 rows, one
  // block a chunk: every chunk has 2 levels of g, 5 of h and 10 pairs (8 consecutive rows of a g
  // level take every h).
  test::TempDir dir;
  std::ostringstream csv;
  csv << "y,x,g,h\n";
  for (int r = 0; r < 512; ++r) csv << (r % 7) * 0.25 << "," << (r % 11) * 0.1 << "," << r / 8 << "," << r % 5 << "\n";
  dir.write("d.csv", csv.str());
  const std::string cfg = dir.write("c.json", R"json({"data": {"csv": "d.csv"},
    "model": {"likelihood": "normal", "formula": "y ~ x + (1 | g) + (1 | h)"},
    "inference": {"algorithm": "sparse"}})json");
  reduce::SerialCommunicator comm;
  const spec::Config config = spec::parse_config(cfg);
  const models::ProblemShape probe = models::probe_problem(config, comm, 16);
  REQUIRE(probe.plan.chunk_rows == 16);
  REQUIRE(probe.chunk_levels.chunks() == 32);
  const Index n = probe.dim - 64 - 5;  // the globals: alpha, beta, sigma, two sds
  CHECK(n == 5);
  CHECK(probe.chunk_parameters == n + 2 + 5);  // the bound: n + 16 + 5
  CHECK(probe.sparse_chunk_values == n * n + 2 * (1 + n) + 5 * (1 + n) + 10);
  // The pattern's own values are not per chunk: every group, every level pair a row may have.
  CHECK(probe.sparse_values == n * n + 64 * (1 + n) + 5 * (1 + n) + 320);
  const models::Problem<double> loaded = models::load_problem<double>(config, comm, {true, 16, 1});
  const models::ProblemShape shape = models::shape_of(loaded, comm);
  CHECK(shape.chunk_parameters == probe.chunk_parameters);
  CHECK(shape.sparse_chunk_values == probe.sparse_chunk_values);
}

}  // namespace test_chunk_levels
