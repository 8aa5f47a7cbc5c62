#pragma once
// The one map from 64 random bits to a uniform that every stream shares.
#include <cstdint>

namespace bvi::rng {

// A uniform from the top 53 bits k: (k + 1/2) / 2^53, never 0 (log(0) would be -inf). Above 2^52
// the sum k + 1/2 rounds to an even integer, so k = 2^53 - 1 (probability 2^-53) gives exactly 1.
inline double open_unit(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1p-53;
}

}  // namespace bvi::rng
