#include "inference/ad/ops/cauchy_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/math/special_functions.hpp"
#include "inference/ad/ops/elementwise_lpdf.hpp"

namespace bvi::ad {

namespace {
constexpr double kLogPi = 1.14472988584940017414;
}

Var cauchy_lpdf(const Var& x, const Var& loc, const Var& scale) {
  return elementwise_lpdf<3>("cauchy_lpdf", {x, loc, scale}, [](const double* a, double* d) {
    const double sd = a[2];
    if (!(sd > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    const double z = (a[0] - a[1]) / sd;
    if (d) {
      const double r = std::abs(z) > 1.0 ? 1.0 / (z + 1.0 / z) : z / (1.0 + z * z);  // no overflow in z^2
      const double w = 1.0 / (1.0 + 1.0 / (z * z));  // safe at z = 0 and z^2 = inf
      d[0] = -2.0 * r / sd;
      d[1] = 2.0 * r / sd;
      d[2] = (2.0 * w - 1.0) / sd;
    }
    return -kLogPi - std::log(sd) - math::log1p_sq_div(z, 1.0);
  });
}

}  // namespace bvi::ad
