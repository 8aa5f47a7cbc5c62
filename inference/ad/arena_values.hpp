#pragma once
// Scratch arrays on the tape's arena for fused ops, and a variable's values in the precision of
// the data it meets (the float path runs its GEMMs in single precision).
#include <type_traits>

#include "inference/ad/tape.hpp"

namespace bvi::ad {

// n elements of T from the tape's arena, uninitialized; gone when the tape is rewound.
template <class T>
T* arena_array(Tape& tape, Index n) {
  return tape.arena().allocate_array<T>(static_cast<std::size_t>(n));
}

// v's values as T: v's own storage for double, a float copy on the arena otherwise.
template <class T>
const T* values_as(Tape& tape, const Var& v) {
  if constexpr (std::is_same_v<T, double>) {
    return v.val_data();
  } else {
    const Index n = v.rows() * v.cols();
    T* copy = arena_array<T>(tape, n);
    const double* src = v.val_data();
    for (Index i = 0; i < n; ++i) copy[i] = static_cast<T>(src[i]);
    return copy;
  }
}

}  // namespace bvi::ad
