#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// The prior of uncorrelated group-level effects: for S draws of r (S x (G K), level-major: column
// g K + k) and their sds (S x K),
//   out_s = sum_g sum_k log N(r_s[g K + k] | 0, sd_s[k])
//         = sum_g sum_k [ -z^2 / 2 - log sd_k - log(2 pi) / 2 ],   z = r_gk / sd_k,
// every constant included; sd_k <= 0 gives NaN (as scipy), which rejects the draw. S x 1.
// d/dr_gk = -r_gk / sd_k^2,   d/dsd_k = sum_g (r_gk^2 / sd_k^3 - 1 / sd_k).
Var grouped_normal_lpdf(const Var& r, const Var& sd);

}  // namespace bvi::ad
