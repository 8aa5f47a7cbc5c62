#include "inference/ad/ops/lognormal_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"
#include "inference/math/constants.hpp"

namespace bvi::ad {

namespace {
using bvi::math::kHalfLog2Pi;
}

Var lognormal_lpdf(const Var& x, const Var& loc, const Var& scale) {
  return elementwise_lpdf<3>("lognormal_lpdf", {x, loc, scale}, [](const double* a, double* d) {
    const double xv = a[0], sd = a[2];
    if (!(sd > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    if (xv <= 0.0) return -std::numeric_limits<double>::infinity();
    const double log_x = std::log(xv);
    const double z = (log_x - a[1]) / sd;
    if (d) {
      d[0] = -(1.0 + z / sd) / xv;
      d[1] = z / sd;
      d[2] = (z * z - 1.0) / sd;
    }
    return -log_x - std::log(sd) - kHalfLog2Pi + (-0.5 * z) * z;
  });
}

}  // namespace bvi::ad
