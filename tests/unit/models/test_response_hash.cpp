// The responses' fingerprint that loo and compare use to refuse fits of other data: what it must
// and must not tell apart, and that shards combine to the whole (MPI ranks add their sums).
#include <doctest/doctest.h>

#include <vector>

#include "models/response_hash.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_response_hash {

using bvi::models::ResponseHash;

std::string hash_of(const std::vector<double>& y) {
  ResponseHash h;
  for (double v : y) h.add(v);
  return h.text();
}

TEST_CASE("response hash: other responses or another count differ, 16 hex digits") {
  const std::vector<double> y = {0, 1, 1, 0, 1, 0, 0, 1};
  const std::string base = hash_of(y);
  CHECK(base.size() == 16);
  CHECK(base.find_first_not_of("0123456789abcdef") == std::string::npos);
  std::vector<double> flipped = y;
  flipped[3] = 1;
  CHECK(hash_of(flipped) != base);
  std::vector<double> longer = y;
  longer.push_back(0);
  CHECK(hash_of(longer) != base);
  CHECK(hash_of({2.5, 3.0}) != hash_of({2.5, 3.5}));
  // Swapping one value between two rows changes the multiset only if the values differ.
  CHECK(hash_of({1, 2, 3}) != hash_of({1, 2, 4}));
}

TEST_CASE("response hash: shards add up to the whole, in any order; -0 is 0; float rounding") {
  const std::vector<double> y = {3, 0, 7, 1, 12, 0, 5};
  ResponseHash a, b, whole;
  for (std::size_t i = 0; i < y.size(); ++i) (i < 3 ? a : b).add(y[i]), whole.add(y[i]);
  ResponseHash sum;
  sum.rows = a.rows + b.rows;
  sum.low = a.low + b.low;
  sum.high = a.high + b.high;
  CHECK(sum.text() == whole.text());
  CHECK(hash_of({7, 3, 0, 12, 1, 5, 0}) == whole.text());  // order-free by design
  CHECK(hash_of({-0.0, 1}) == hash_of({0.0, 1}));
  // A float32 fit and a double read of the same text agree.
  CHECK(hash_of({0.1}) == hash_of({static_cast<double>(0.1f)}));
}

}  // namespace test_response_hash
