#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Sum of every element, as a 1 x 1 Var (0 for an empty input). Backward: dx += dy.
Var sum(const Var& x);
// Sum across each row: r x c -> r x 1. For an S x K matrix of per-draw terms this is the
// per-draw total. Backward: dx(i, j) += dy(i).
Var row_sums(const Var& x);

}  // namespace bvi::ad
