#pragma once
// A fingerprint of a data set's responses, so that loo and compare can tell fits of different data
// apart (loo's "yhash"): the number of rows and the sum over rows of a 64-bit mix of each response
// (rounded to float, so a float32 fit and a double read of the same file agree), kept as two sums
// of 32-bit halves that fit a long for up to 2^31 rows. A sum does not depend on the order the
// rows are added in, so MPI ranks add their shards' sums (allreduce) and get the hash one process
// gets; the price is that a permutation of the same responses has the same hash.
//
// The row hash closes that gap: the same kind of sum, of a mix of (row index, response), with the
// index the row's position among the rows used (after rows dropped for missing values), so it
// changes when the responses are the same but in another order. It is still a sum, so ranks add
// their parts, as long as each rank adds its rows with their global indexes (add(y, index)).
// text() is kept as it was, for summaries and loo documents that earlier versions wrote.
#include <string>

namespace bvi::models {

struct ResponseHash {
  long rows = 0, low = 0, high = 0;
  long row_low = 0, row_high = 0;  // the row hash's sums

  // The row at `index` among the rows used.
  void add(double y, long index);
  // The next row, for callers that add every row in order: its index is the rows added so far.
  void add(double y) { add(y, rows); }
  // Another shard's sums (add(y, index) with that shard's global indexes), as an allreduce does.
  void merge(const ResponseHash& other);
  // 16 lowercase hex digits each: the order-free response hash, and the row hash.
  std::string text() const;
  std::string row_text() const;
};

}  // namespace bvi::models
