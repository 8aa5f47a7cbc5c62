#include "inference/ad/ops/binomial_logit_glm.hpp"

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/math/log_factorial.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct BinomialLogitFamily {
  template <class T>
  using Compute = double;  // counts times logits: float would keep 7 digits of a large sum

  bool has_adj() const { return false; }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows;
    Eigen::Map<Eigen::ArrayXd> e(arena_array<double>(tape, S), S);
    ll.setZero();
    double constant = 0.0;
    // Column by column (one data row, S draws), vectorized down the draws; the sum over rows
    // runs in row order.
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n], trials = rows.trials[n], k = trials - y, w = row_weight(rows, n);
      auto a = eta.col(n);
      // With e = exp(-|eta|): log sigmoid(eta) = min(eta, 0) - log(1 + e) and
      // log sigmoid(-eta) = -max(eta, 0) - log(1 + e); log(1 + e) as in bernoulli_logit_glm.
      e = (-a.abs()).exp();
      // A zero count drops its term, so eta = -inf with y = 0 (or +inf with y = n) gives the
      // limit 0, not 0 * inf = NaN.
      // Weighted: w y, w k and w n in place of y, k and n (exactly them for w = 1).
      if (y != 0.0) ll += (w * y) * a.min(0.0);
      if (k != 0.0) ll -= (w * k) * a.max(0.0);
      if (trials != 0.0) ll -= (w * trials) * (1.0 + e).log();
      // d/deta = y sigmoid(-eta) - k sigmoid(eta), each sigmoid as e/(1+e) or 1/(1+e) by sign.
      if (grad) a = (a >= 0.0).select(y * e - k, y - k * e) / (1.0 + e);
      constant += w * (rows.log_constant ? rows.log_constant[n] : bvi::math::log_binomial_coefficient(trials, y));
    }
    ll += constant;
  }

  void backward(const double*) const {}
};

}  // namespace

template <class T>
Var binomial_logit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows, const Var* extra) {
  return glm_detail::glm(alpha, beta, x, rows, BinomialLogitFamily{}, extra);
}

template Var binomial_logit_glm<double>(const Var*, const Var&, const double*, const GlmRows&, const Var*);
template Var binomial_logit_glm<float>(const Var*, const Var&, const float*, const GlmRows&, const Var*);

}  // namespace bvi::ad
