#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise softplus(x) = log(1 + e^x), computed as max(x, 0) + log(1 + e^-|x|) so that
// neither e^x nor its log overflows at any |x|. Backward: dx += dy * sigmoid(x).
Var softplus(const Var& x);

// Elementwise log sigmoid(x) = -softplus(-x) = min(x, 0) - log(1 + e^-|x|).
// Backward: dx += dy * sigmoid(-x).
Var log_sigmoid(const Var& x);

}  // namespace bvi::ad
