#include "inference/ad/ops/student_t_lpdf.hpp"

#include "inference/ad/ops/elementwise_lpdf.hpp"
#include "inference/ad/ops/student_t_kernel.hpp"

namespace bvi::ad {

Var student_t_lpdf(const Var& x, const Var& df, const Var& loc, const Var& scale) {
  return elementwise_lpdf<4>("student_t_lpdf", {x, df, loc, scale},
                             [t = detail::StudentTKernel{}](const double* a, double* d) mutable {
                               return t(a[0], a[1], a[2], a[3], d);
                             });
}

}  // namespace bvi::ad
