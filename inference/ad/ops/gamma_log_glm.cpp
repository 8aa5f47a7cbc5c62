#include "inference/ad/ops/gamma_log_glm.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "inference/ad/math/special_functions.hpp"
#include "inference/ad/ops/glm_kernel.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct GammaLogFamily {
  Var shape;                 // S x 1, the gamma's alpha
  double* dshape = nullptr;  // d out_s / d alpha_s, saved by forward() for backward()

  template <class T>
  using Compute = double;

  bool has_adj() const { return shape.has_adj(); }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    const Index S = eta.rows(), m = rows.rows;
    Eigen::Map<const Eigen::ArrayXd> al(shape.val_data(), S);
    Eigen::Map<Eigen::ArrayXd> r(arena_array<double>(tape, S), S);  // y e^-eta
    Eigen::Map<Eigen::ArrayXd> t(arena_array<double>(tape, S), S);  // sum_n eta + y e^-eta
    t.setZero();
    double sum_log_y = 0.0, wsum = 0.0;  // sum_n w_n log y_n and sum_n w_n (m without weights)
    bool outside = false;  // a y <= 0: every draw's value is -inf
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n];
      if (!(y > 0.0)) outside = true;
      const double w = row_weight(rows, n), log_y = rows.log_constant ? -rows.log_constant[n] : std::log(y);
      wsum += w;
      sum_log_y += rows.weight ? w * log_y : log_y;
      auto a = eta.col(n);
      r = y * (-a.template cast<double>()).exp();
      // eta = -inf: y e^-eta = inf, and eta + inf would be NaN; the sum is +inf (log p = -inf).
      // Unweighted, the old statement (so unweighted fits keep their bits under fma contraction).
      if (rows.weight)
        t += w * (r < inf).select(a.template cast<double>() + r, inf);
      else
        t += (r < inf).select(a.template cast<double>() + r, inf);
      if (grad) a = (al * (r - 1.0)).template cast<C>();
    }
    const double md = wsum;
    for (Index s = 0; s < S; ++s) {
      const double k = al[s];
      if (!(k > 0.0)) {
        ll[s] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      if (m == 0) {
        ll[s] = 0.0;
        continue;
      }
      const double lk = std::log(k);
      ll[s] = outside || t[s] == inf
                  ? -inf
                  : md * (k * lk - bvi::ad::math::log_gamma(k)) + (k - 1.0) * sum_log_y - k * t[s];
    }
    if (grad && shape.has_adj()) {
      dshape = arena_array<double>(tape, S);
      for (Index s = 0; s < S; ++s) {
        const double k = al[s];
        dshape[s] = k > 0.0 && m > 0 ? md * (std::log(k) + 1.0 - bvi::ad::math::digamma(k)) + sum_log_y - t[s]
                                     : (k > 0.0 ? 0.0 : std::numeric_limits<double>::quiet_NaN());
      }
    }
  }

  void backward(const double* dout) const {
    if (!shape.has_adj()) return;
    Eigen::Map<Eigen::ArrayXd>(shape.adj_data(), shape.rows()) +=
        Eigen::Map<const Eigen::ArrayXd>(dout, shape.rows()) *
        Eigen::Map<const Eigen::ArrayXd>(dshape, shape.rows());
  }
};

}  // namespace

template <class T>
Var gamma_log_glm(const Var* intercept, const Var& beta, const Var& alpha, const T* x, const GlmRows& rows,
                  const Var* extra) {
  if (alpha.rows() != beta.rows() || alpha.cols() != 1)
    throw std::invalid_argument("gamma_log_glm: the shape alpha must be S x 1");
  return glm_detail::glm(intercept, beta, x, rows, GammaLogFamily{alpha}, extra);
}

template Var gamma_log_glm<double>(const Var*, const Var&, const Var&, const double*, const GlmRows&,
                                   const Var*);
template Var gamma_log_glm<float>(const Var*, const Var&, const Var&, const float*, const GlmRows&,
                                  const Var*);

}  // namespace bvi::ad
