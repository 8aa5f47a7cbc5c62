#pragma once
// Uniform draws on (0, 1) from the same counter-based generator as normal_stream.hpp, addressed
// the same way: a value is a pure function of (seed, purpose, step, attempt, draw, coordinate).
// For decisions such as Bernoulli outcomes (y = 1 when u < p), where a normal would need an
// inverse-CDF step.
#include <Eigen/Core>
#include <cstdint>

#include "inference/rng/normal_stream.hpp"

namespace bvi::rng {

// Fills `out` (S x P) with uniforms on (0, 1] (never 0; 1 with probability 2^-53): row s is draw
// first_draw + s, so any slice of a request equals the same rows of a larger one.
void standard_uniform(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                      std::uint64_t first_draw, Eigen::Ref<Eigen::MatrixXd> out);

}  // namespace bvi::rng
