#include "inference/ad/ops/bernoulli_logit_glm.hpp"

#include "inference/ad/ops/glm_kernel.hpp"

namespace bvi::ad {

namespace {

using glm_detail::arena_array;
using glm_detail::ArrayMap;

struct BernoulliLogitFamily {
  // The float path stays in single precision: the logistic terms are bounded and well
  // conditioned, and float halves the memory traffic of the elementwise pass.
  template <class T>
  using Compute = T;

  bool has_adj() const { return false; }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> U, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = U.rows(), m = rows.rows;
    Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>> t(arena_array<C>(tape, m), m);
    for (Index n = 0; n < m; ++n) t[n] = rows.y[n] > 0.5 ? C(1) : C(-1);
    // u = t eta and e = exp(-|u|).
    U.rowwise() *= t.transpose();
    ArrayMap<C> E(arena_array<C>(tape, S * m), S, m);
    E = (-U.abs()).exp();
    // log sigmoid(u) = min(u, 0) - log(1 + e^-|u|); log(1 + e) rather than log1p(e) because Eigen
    // vectorizes log but not log1p, and e <= 1 keeps the absolute error below 1e-16. Sums are
    // accumulated in double whatever C is.
    if (m == 0)
      ll.setZero();
    else
      ll = (U.min(C(0)) - (C(1) + E).log()).template cast<double>().rowwise().sum();
    if (grad) {
      // g = t sigmoid(-u): sigmoid(-u) = e/(1+e) for u >= 0, 1/(1+e) for u < 0.
      U = (U >= C(0)).select(E, C(1)) / (C(1) + E);
      U.rowwise() *= t.transpose();
    }
  }

  void backward(const double*) const {}
};

}  // namespace

template <class T>
Var bernoulli_logit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows) {
  return glm_detail::glm(alpha, beta, x, rows, BernoulliLogitFamily{});
}

template Var bernoulli_logit_glm<double>(const Var*, const Var&, const double*, const GlmRows&);
template Var bernoulli_logit_glm<float>(const Var*, const Var&, const float*, const GlmRows&);

}  // namespace bvi::ad
