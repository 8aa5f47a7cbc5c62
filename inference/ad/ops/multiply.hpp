#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise a * b with broadcasting. Backward: da += dc * b, db += dc * a (summed over
// broadcast dimensions).
Var multiply(const Var& a, const Var& b);

}  // namespace bvi::ad
