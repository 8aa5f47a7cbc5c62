#include "inference/ad/ops/bernoulli_probit_glm.hpp"

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/math/log_ndtr.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct BernoulliProbitFamily {
  template <class T>
  using Compute = double;  // log Phi in the tails needs double whatever the features are

  bool has_adj() const { return false; }

  template <class C>
  void forward(Tape&, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows;
    ll.setZero();
    // erfc has no vectorized form here, so one scalar pass: the value and, sharing its erfc,
    // the derivative t phi(u)/Phi(u), summed row after row in a fixed order.
    for (Index n = 0; n < m; ++n) {
      const double t = rows.y[n] > 0.5 ? 1.0 : -1.0, w = row_weight(rows, n);
      double* col = &eta(0, n);
      if (grad) {
        for (Index s = 0; s < S; ++s) {
          double d = 0.0;
          ll[s] += w * bvi::math::log_ndtr(t * col[s], &d);
          col[s] = t * d;
        }
      } else {
        for (Index s = 0; s < S; ++s) ll[s] += w * bvi::math::log_ndtr(t * col[s]);
      }
    }
  }

  void backward(const double*) const {}
};

}  // namespace

template <class T>
Var bernoulli_probit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows,
                         const Var* extra) {
  return glm_detail::glm(alpha, beta, x, rows, BernoulliProbitFamily{}, extra);
}

template Var bernoulli_probit_glm<double>(const Var*, const Var&, const double*, const GlmRows&, const Var*);
template Var bernoulli_probit_glm<float>(const Var*, const Var&, const float*, const GlmRows&, const Var*);

}  // namespace bvi::ad
