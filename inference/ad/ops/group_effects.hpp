#pragma once
// The group-level (varying) part of a linear predictor over a block of m rows, gathered by group
// index rather than multiplied by a dense group design matrix: for S draws,
//   out_sn = sum_f sum_k z^f_nk r_f[s, g_f(n) K_f + k],   z^f_n0 = 1 for a varying intercept,
// with r_f the S x (G_f K_f) effects of grouping factor f laid out level-major (column g K + k)
// and z^f_n the row's slope values. Work O(S m sum_f K_f), memory O(S m) for the output.
// Backward: the output adjoint is scattered into r's adjoint,
//   dr_f[s, g_f(n) K_f + k] += z^f_nk dout_sn.
#include <cstdint>

#include "inference/ad/var.hpp"

namespace bvi::ad {

// One grouping factor's view of a block of rows.
template <class T>
struct GroupTermRows {
  Var r;                                // S x (G K), level-major
  const std::int32_t* level = nullptr;  // the block's m level indices, each in [0, G)
  const T* slopes = nullptr;            // the block's m x n_slopes slope values, row-major
  Index n_slopes = 0;
  bool intercept = true;  // K = intercept + n_slopes
  Index effects() const { return (intercept ? 1 : 0) + n_slopes; }
};

// S x m. `terms` (n_terms of them, all with the same S) must stay valid until the op returns;
// the op keeps its own copy for the backward pass. std::invalid_argument for a level outside
// [0, G) or an r whose width is not a multiple of K.
template <class T>
Var group_effects(const GroupTermRows<T>* terms, int n_terms, Index rows);

}  // namespace bvi::ad
