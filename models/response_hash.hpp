#pragma once
// A fingerprint of a data set's responses, so that loo and compare can tell fits of different data
// apart (loo's "yhash"): the number of rows and the sum over rows of a 64-bit mix of each response
// (rounded to float, so a float32 fit and a double read of the same file agree), kept as two sums
// of 32-bit halves that fit a long for up to 2^31 rows. A sum does not depend on the order the
// rows are added in, so MPI ranks add their shards' sums (allreduce) and get the hash one process
// gets; the price is that a permutation of the same responses has the same hash.
#include <string>

namespace bvi::models {

struct ResponseHash {
  long rows = 0, low = 0, high = 0;

  void add(double y);
  // 16 lowercase hex digits.
  std::string text() const;
};

}  // namespace bvi::models
