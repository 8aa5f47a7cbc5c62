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

TEST_CASE("row hash: another order of the same responses differs; the response hash does not") {
  const std::vector<double> y = {0, 1, 1, 0, 2.5};
  const std::vector<double> swapped = {1, 0, 1, 0, 2.5};  // rows 1 and 2 exchanged
  ResponseHash a, b;
  for (double v : y) a.add(v);
  for (double v : swapped) b.add(v);
  CHECK(a.text() == b.text());
  CHECK(a.row_text() != b.row_text());
  CHECK(a.row_text() != a.text());
  CHECK(a.row_text().size() == 16);
  // Pinned by a Python transcription of the formula (struct.pack('<f'), SplitMix64 in 64-bit
  // arithmetic): text() is what earlier versions wrote, so old summaries still match.
  CHECK(a.text() == "10c5ba4351b7f33d");
  CHECK(a.row_text() == "b9a9f2705aa52dc6");
  CHECK(b.row_text() == "a0defb517648f5bc");
  // Only the order of different values matters: equal responses exchanged are the same rows.
  ResponseHash c;
  for (double v : {1.0, 0.0, 1.0, 0.0, 2.5}) c.add(v);
  CHECK(c.row_text() == b.row_text());
}

TEST_CASE("row hash: shards added with their global indexes merge to the whole, in any order") {
  const std::vector<double> y = {3, 0, 7, 1, 12, 0, 5};
  ResponseHash whole;
  for (double v : y) whole.add(v);
  // Two shards, as two ranks add them: each row with its index among all the rows.
  ResponseHash first, second;
  for (long i = 0; i < 3; ++i) first.add(y[static_cast<std::size_t>(i)], i);
  for (long i = 3; i < 7; ++i) second.add(y[static_cast<std::size_t>(i)], i);
  ResponseHash sum;
  sum.merge(second);
  sum.merge(first);
  CHECK(sum.text() == whole.text());
  CHECK(sum.row_text() == whole.row_text());
  // A shard that numbered its rows from 0 (its local indexes) is another set of rows.
  ResponseHash local;
  for (long i = 0; i < 4; ++i) local.add(y[static_cast<std::size_t>(3 + i)], i);
  ResponseHash wrong = first;
  wrong.merge(local);
  CHECK(wrong.text() == whole.text());
  CHECK(wrong.row_text() != whole.row_text());
}

}  // namespace test_response_hash
