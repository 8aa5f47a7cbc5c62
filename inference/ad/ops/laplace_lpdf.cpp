#include "inference/ad/ops/laplace_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"
#include "inference/math/constants.hpp"

namespace bvi::ad {

namespace {
using bvi::math::kLog2;
}

Var laplace_lpdf(const Var& x, const Var& loc, const Var& scale) {
  return elementwise_lpdf<3>("laplace_lpdf", {x, loc, scale}, [](const double* a, double* d) {
    const double sd = a[2];
    if (!(sd > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    const double z = (a[0] - a[1]) / sd;
    if (d) {
      const double sign = (z > 0.0) - (z < 0.0);
      d[0] = -sign / sd;
      d[1] = sign / sd;
      d[2] = (std::abs(z) - 1.0) / sd;
    }
    return -kLog2 - std::log(sd) - std::abs(z);
  });
}

}  // namespace bvi::ad
