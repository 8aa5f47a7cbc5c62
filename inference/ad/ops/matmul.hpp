#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// C = A B for A (r x k), B (k x c). Backward: dA += dC B^T, dB += A^T dC (each one GEMM, and
// skipped for a constant operand such as a data block).
Var matmul(const Var& a, const Var& b);

}  // namespace bvi::ad
