#include "inference/ad/ops/neg_binomial_2_log_lpdf.hpp"

#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"
#include "inference/ad/ops/neg_binomial_2_log_kernel.hpp"

namespace bvi::ad {

Var neg_binomial_2_log_lpdf(const Var& y, const Var& eta, const Var& phi) {
  return elementwise_lpdf<3>("neg_binomial_2_log_lpdf", {y, eta, phi}, [](const double* a, double* d) {
    double p[2];
    const double v = detail::neg_binomial_2_log(a[0], a[1], a[2], std::numeric_limits<double>::quiet_NaN(),
                                                d ? p : nullptr);
    if (d) {
      d[0] = 0.0;
      d[1] = p[0];
      d[2] = p[1];
    }
    return v;
  });
}

}  // namespace bvi::ad
