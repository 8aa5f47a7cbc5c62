#include "inference/ad/ops/gamma_log_lpdf.hpp"

#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"
#include "inference/ad/ops/gamma_log_kernel.hpp"

namespace bvi::ad {

Var gamma_log_lpdf(const Var& y, const Var& eta, const Var& alpha) {
  return elementwise_lpdf<3>("gamma_log_lpdf", {y, eta, alpha}, [](const double* a, double* d) {
    return detail::gamma_log(a[0], a[1], a[2], std::numeric_limits<double>::quiet_NaN(), d);
  });
}

}  // namespace bvi::ad
