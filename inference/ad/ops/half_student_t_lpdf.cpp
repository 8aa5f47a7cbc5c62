#include "inference/ad/ops/half_student_t_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/ops/elementwise_lpdf.hpp"
#include "inference/ad/ops/student_t_kernel.hpp"
#include "inference/math/constants.hpp"

namespace bvi::ad {

namespace {
using bvi::math::kLog2;
}

Var half_student_t_lpdf(const Var& x, const Var& df, const Var& scale) {
  return elementwise_lpdf<3>("half_student_t_lpdf", {x, df, scale},
                             [t = detail::StudentTKernel{}](const double* a, double* d) mutable {
                               const double xv = a[0], nu = a[1], sd = a[2];
                               if (!(nu > 0.0) || !(sd > 0.0)) return std::numeric_limits<double>::quiet_NaN();
                               if (xv < 0.0) return -std::numeric_limits<double>::infinity();
                               double full[4];  // d/dx, d/ddf, d/dloc, d/dscale of the Student t
                               const double v = t(xv, nu, 0.0, sd, d ? full : nullptr);
                               if (d) {
                                 d[0] = full[0];
                                 d[1] = full[1];
                                 d[2] = full[3];
                               }
                               return kLog2 + v;
                             });
}

}  // namespace bvi::ad
