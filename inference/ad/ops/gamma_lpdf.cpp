#include "inference/ad/ops/gamma_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/math/special_functions.hpp"
#include "inference/ad/ops/elementwise_lpdf.hpp"

namespace bvi::ad {

namespace {

// The shape-only terms, recomputed only when the shape changes: it is usually one number or one
// per column, and lgamma and digamma cost more than the rest of the element.
struct ShapeTerms {
  double shape = std::numeric_limits<double>::quiet_NaN();  // never equal: the first call computes
  double log_gamma = 0.0, digamma = 0.0;
  bool have_digamma = false;
  void update(double a, bool grad) {
    if (a != shape) {
      shape = a;
      log_gamma = math::log_gamma(a);
      have_digamma = false;
    }
    if (grad && !have_digamma) {
      digamma = math::digamma(a);
      have_digamma = true;
    }
  }
};

}  // namespace

Var gamma_lpdf(const Var& x, const Var& shape, const Var& rate) {
  return elementwise_lpdf<3>("gamma_lpdf", {x, shape, rate},
                             [terms = ShapeTerms{}](const double* a, double* d) mutable {
                               const double xv = a[0], alpha = a[1], beta = a[2];
                               if (!(alpha > 0.0) || !(beta > 0.0)) return std::numeric_limits<double>::quiet_NaN();
                               if (xv < 0.0 || xv == std::numeric_limits<double>::infinity())
                                 return -std::numeric_limits<double>::infinity();
                               terms.update(alpha, d != nullptr);
                               const double log_x = std::log(xv);  // NaN x carries through
                               const double log_beta = std::log(beta);
                               // xlogy: (shape - 1) log x is 0 at shape = 1, even at x = 0.
                               const double power = alpha == 1.0 ? 0.0 : (alpha - 1.0) * log_x;
                               if (d) {
                                 d[0] = (alpha == 1.0 ? 0.0 : (alpha - 1.0) / xv) - beta;
                                 d[1] = log_beta + log_x - terms.digamma;
                                 d[2] = alpha / beta - xv;
                               }
                               return alpha * log_beta - terms.log_gamma + power - beta * xv;
                             });
}

}  // namespace bvi::ad
