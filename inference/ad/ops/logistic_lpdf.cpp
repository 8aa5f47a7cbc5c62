#include "inference/ad/ops/logistic_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"

namespace bvi::ad {

Var logistic_lpdf(const Var& x, const Var& loc, const Var& scale) {
  return elementwise_lpdf<3>("logistic_lpdf", {x, loc, scale}, [](const double* a, double* d) {
    const double sd = a[2];
    if (!(sd > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    const double z = (a[0] - a[1]) / sd;
    if (d) {
      const double t = std::tanh(0.5 * z);
      d[0] = -t / sd;
      d[1] = t / sd;
      d[2] = (z * t - 1.0) / sd;
    }
    const double m = std::abs(z);
    return -m - 2.0 * std::log1p(std::exp(-m)) - std::log(sd);
  });
}

}  // namespace bvi::ad
