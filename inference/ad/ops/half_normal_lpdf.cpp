#include "inference/ad/ops/half_normal_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"

namespace bvi::ad {

namespace {
constexpr double kHalfLog2OverPi = -0.22579135264472743237;  // log(2/pi)/2
}

Var half_normal_lpdf(const Var& x, const Var& scale) {
  return elementwise_lpdf<2>("half_normal_lpdf", {x, scale}, [](const double* a, double* d) {
    const double sd = a[1];
    if (!(sd > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    if (a[0] < 0.0) return -std::numeric_limits<double>::infinity();
    const double z = a[0] / sd;
    if (d) {
      d[0] = -z / sd;
      d[1] = (z * z - 1.0) / sd;
    }
    // (-0.5 z) z overflows only where the value itself does, unlike -0.5 (z z).
    return kHalfLog2OverPi - std::log(sd) + (-0.5 * z) * z;
  });
}

}  // namespace bvi::ad
