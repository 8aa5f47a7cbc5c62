#include "inference/ad/ops/exponential_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"

namespace bvi::ad {

Var exponential_lpdf(const Var& x, const Var& rate) {
  return elementwise_lpdf<2>("exponential_lpdf", {x, rate}, [](const double* a, double* d) {
    const double lambda = a[1];
    if (!(lambda > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    if (a[0] < 0.0) return -std::numeric_limits<double>::infinity();
    if (d) {
      d[0] = -lambda;
      d[1] = 1.0 / lambda - a[0];
    }
    return std::log(lambda) - lambda * a[0];
  });
}

}  // namespace bvi::ad
