#include "inference/ad/ops/beta_logit_glm.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "inference/ad/math/special_functions.hpp"
#include "inference/ad/ops/beta_logit_kernel.hpp"
#include "inference/ad/ops/glm_kernel.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct BetaLogitFamily {
  Var phi;                 // S x 1
  double* dphi = nullptr;  // d out_s / d phi_s, saved by forward() for backward()

  template <class T>
  using Compute = double;

  bool has_adj() const { return phi.has_adj(); }

  // Row by row, each draw through the scalar kernel (log y and log(1 - y) once per row) without
  // log Gamma(phi) and psi(phi), which are added once per draw: m log Gamma(phi_s) and m psi(phi_s).
  // The two lgamma per element (and with the gradient two digamma) remain the cost; not vectorized.
  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows;
    const double* ph = phi.val_data();
    const bool want_phi = grad && phi.has_adj();
    if (want_phi) {
      dphi = arena_array<double>(tape, S);
      for (Index s = 0; s < S; ++s) dphi[s] = 0.0;
    }
    ll.setZero();
    double md = 0.0;  // sum_n w_n: m without weights
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n], w = row_weight(rows, n);
      md += w;
      const detail::BetaLogitTerms t = detail::beta_logit_terms(y);
      auto a = eta.col(n);
      for (Index s = 0; s < S; ++s) {
        double d[3] = {0.0, 0.0, 0.0};
        ll[s] += w * detail::beta_logit_without_phi_terms(y, static_cast<double>(a[s]), ph[s], t,
                                                          grad ? d : nullptr);
        if (!grad) continue;
        a[s] = static_cast<C>(d[1]);
        if (want_phi) dphi[s] += w * d[2];
      }
    }
    if (m == 0) return;
    for (Index s = 0; s < S; ++s) {
      if (!(ph[s] > 0.0)) continue;  // NaN already
      ll[s] += md * bvi::ad::math::log_gamma(ph[s]);
      if (want_phi) dphi[s] += md * bvi::ad::math::digamma(ph[s]);
    }
  }

  void backward(const double* dout) const {
    if (!phi.has_adj()) return;
    Eigen::Map<Eigen::ArrayXd>(phi.adj_data(), phi.rows()) +=
        Eigen::Map<const Eigen::ArrayXd>(dout, phi.rows()) *
        Eigen::Map<const Eigen::ArrayXd>(dphi, phi.rows());
  }
};

}  // namespace

template <class T>
Var beta_logit_glm(const Var* alpha, const Var& beta, const Var& phi, const T* x, const GlmRows& rows,
                   const Var* extra) {
  if (phi.rows() != beta.rows() || phi.cols() != 1)
    throw std::invalid_argument("beta_logit_glm: phi must be S x 1");
  return glm_detail::glm(alpha, beta, x, rows, BetaLogitFamily{phi}, extra);
}

template Var beta_logit_glm<double>(const Var*, const Var&, const Var&, const double*, const GlmRows&,
                                    const Var*);
template Var beta_logit_glm<float>(const Var*, const Var&, const Var&, const float*, const GlmRows&,
                                   const Var*);

}  // namespace bvi::ad
