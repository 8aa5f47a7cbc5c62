#pragma once
// How many non-zeros the Cholesky factor of a BlockPattern's matrix will hold, counted before it
// is formed. One grouping factor, or nested ones, add no fill-in; crossed factors can: eliminating
// the levels of one factor joins every pair of levels of the other that share one of its levels,
// and a users x items design can fill the items' block completely. SparseFactor allocates the
// factor in its symbolic analysis, so a fit asks here first, against its memory budget.
//
// The count is the one SparseFactor's factor will have: the same AMD ordering of the same
// symmetric matrix, then the elimination tree's row-by-row reach (Liu's algorithm, as the
// symbolic step of Eigen's SimplicialLLT), which costs O(non-zeros of the factor): it stops as
// soon as the count passes `cap`, so a factor too large to hold is never counted out in full.
#include "inference/sparse/block_pattern.hpp"

namespace bvi::vi {

// The factor's non-zeros (its diagonal included), or cap + 1 once it holds more than `cap`.
Index cholesky_nonzeros(const BlockPattern& pattern, Index cap);

// SparseFactor stores its factor with 32-bit indices (Eigen's SimplicialLLT<..., int>): the most
// non-zeros it can hold.
Index max_factor_nonzeros();

// Bytes a factor non-zero takes while a fit runs: its value and row index in L, and its entry of
// the selected inverse.
constexpr double kBytesPerFactorNonzero = 8.0 + 4.0 + 8.0;

}  // namespace bvi::vi
