#include "inference/ad/ops/beta_logit_glm.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "inference/ad/math/log_gamma_array.hpp"
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

  // Values only (the output draws' and the ELBO's log densities, where the two lgamma per element
  // were the cost): each row's S draws at once, log Gamma by log_gamma_array (vectorized, ~1e-14);
  //   mu = expit(eta), a = phi mu, b = phi (1 - mu),
  //   l = -log Gamma(a) - log Gamma(b) + (a - 1) log y + (b - 1) log(1 - y).
  // A row whose y is not inside (0, 1), and a draw whose a or b falls outside
  // [kLogGammaArrayMin, kLogGammaArrayMax] (or is NaN: phi <= 0, eta NaN), go through the scalar
  // kernel, as every element did before.
  template <class C>
  void forward_values(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, const double* ph,
                      double& md) {
    const Index S = eta.rows();
    using Arr = Eigen::ArrayXd;
    const Eigen::Map<const Arr> phi_s(ph, S);
    double* scratch = arena_array<double>(tape, 8 * S);  // no allocation per pass (the tape's arena)
    auto slot = [&](int k) { return Eigen::Map<Arr>(scratch + k * S, S); };
    Eigen::Map<Arr> e = slot(0), inv = slot(1), a = slot(2), b = slot(3), la = slot(4), lb = slot(5), p = slot(6),
                    z = slot(7);
    for (Index n = 0; n < rows.rows; ++n) {
      const double y = rows.y[n], w = row_weight(rows, n);
      md += w;
      const detail::BetaLogitTerms t = detail::beta_logit_terms(y);
      auto col = eta.col(n);
      bool fast = y > 0.0 && y < 1.0;
      if (fast) {
        const auto x = col.template cast<double>();
        e = (-x.abs()).exp();
        inv = (1.0 + e).inverse();
        a = phi_s * (x >= 0.0).select(inv, e * inv);  // phi mu
        b = phi_s * (x >= 0.0).select(e * inv, inv);  // phi (1 - mu)
        fast = (a >= math::kLogGammaArrayMin).all() && (a <= math::kLogGammaArrayMax).all() &&
               (b >= math::kLogGammaArrayMin).all() && (b <= math::kLogGammaArrayMax).all();
      }
      if (!fast) {
        for (Index s = 0; s < S; ++s)
          ll[s] += w * detail::beta_logit_without_phi_terms(y, static_cast<double>(col[s]), ph[s], t, nullptr);
        continue;
      }
      math::log_gamma_array(a, la, p, z);
      math::log_gamma_array(b, lb, p, z);
      ll += w * (-la - lb + (a - 1.0) * t.log_y + (b - 1.0) * t.log1m_y);
    }
  }

  // Row by row, each draw through the scalar kernel (log y and log(1 - y) once per row) without
  // log Gamma(phi) and psi(phi), which are added once per draw: m log Gamma(phi_s) and m psi(phi_s).
  // With the gradient, the two lgamma and two digamma per element remain the cost; not vectorized.
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
    if (!grad) forward_values(tape, eta, rows, ll, ph, md);
    for (Index n = 0; n < m && grad; ++n) {
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
