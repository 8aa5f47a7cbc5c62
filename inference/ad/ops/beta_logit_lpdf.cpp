#include "inference/ad/ops/beta_logit_lpdf.hpp"

#include "inference/ad/ops/beta_logit_kernel.hpp"
#include "inference/ad/ops/elementwise_lpdf.hpp"

namespace bvi::ad {

Var beta_logit_lpdf(const Var& y, const Var& eta, const Var& phi) {
  return elementwise_lpdf<3>("beta_logit_lpdf", {y, eta, phi}, [](const double* a, double* d) {
    return detail::beta_logit(a[0], a[1], a[2], detail::beta_logit_terms(a[0]), d);
  });
}

}  // namespace bvi::ad
