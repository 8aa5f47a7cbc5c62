#include "inference/ad/ops/poisson_log_glm.hpp"

#include <limits>

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/math/log_factorial.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct PoissonLogFamily {
  template <class T>
  using Compute = double;  // exp(eta) overflows float at eta = 88.7

  bool has_adj() const { return false; }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows;
    Eigen::Map<Eigen::ArrayXd> rate(arena_array<double>(tape, S), S);
    ll.setZero();
    double constant = 0.0;
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n], w = row_weight(rows, n);
      auto a = eta.col(n);
      rate = a.exp();
      // y eta is left out for y = 0, as scipy's xlogy does, so eta = -inf gives 0, not NaN.
      if (y != 0.0)
        ll += w * (y * a - rate);
      else
        ll -= w * rate;
      if (grad) a = (y - rate).max(std::numeric_limits<double>::lowest());
      constant += w * (rows.log_constant ? rows.log_constant[n] : -bvi::math::log_factorial(y));
    }
    ll += constant;
  }

  void backward(const double*) const {}
};

}  // namespace

template <class T>
Var poisson_log_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows, const Var* extra) {
  return glm_detail::glm(alpha, beta, x, rows, PoissonLogFamily{}, extra);
}

template Var poisson_log_glm<double>(const Var*, const Var&, const double*, const GlmRows&, const Var*);
template Var poisson_log_glm<float>(const Var*, const Var&, const float*, const GlmRows&, const Var*);

}  // namespace bvi::ad
