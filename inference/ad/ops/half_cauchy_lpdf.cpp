#include "inference/ad/ops/half_cauchy_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/math/special_functions.hpp"
#include "inference/ad/ops/elementwise_lpdf.hpp"

namespace bvi::ad {

namespace {
constexpr double kLog2OverPi = -0.45158270528945486473;  // log(2/pi)
}

Var half_cauchy_lpdf(const Var& x, const Var& scale) {
  return elementwise_lpdf<2>("half_cauchy_lpdf", {x, scale}, [](const double* a, double* d) {
    const double sd = a[1];
    if (!(sd > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    if (a[0] < 0.0) return -std::numeric_limits<double>::infinity();
    const double z = a[0] / sd;
    if (d) {
      const double r = std::abs(z) > 1.0 ? 1.0 / (z + 1.0 / z) : z / (1.0 + z * z);  // no overflow in z^2
      const double w = 1.0 / (1.0 + 1.0 / (z * z));
      d[0] = -2.0 * r / sd;
      d[1] = (2.0 * w - 1.0) / sd;
    }
    return kLog2OverPi - std::log(sd) - math::log1p_sq_div(z, 1.0);
  });
}

}  // namespace bvi::ad
