#pragma once
#include "inference/ad/ops/glm_rows.hpp"

namespace bvi::ad {

// The fused Student-t regression likelihood over a block of rows (robust linear regression,
// brms's student): for S draws
//   out_s = sum_n log t(y_n | nu_s, eta_sn, sigma_s),   eta_sn = alpha_s + x_n . beta_s (+ offset_n),
// as scipy.stats.t(df = nu, loc = eta, scale = sigma).logpdf(y). With z = (y - eta)/sigma,
// L = log(1 + z^2/nu), w = z^2/(nu + z^2) and C(nu) = log Gamma((nu+1)/2) - log Gamma(nu/2) -
// log(nu pi)/2 (student_t_kernel.hpp has the element and its partials), per draw
//   out_s = m (C(nu_s) - log sigma_s) - (nu_s + 1)/2 sum_n L_sn,
//   d out_s / d eta_sn = (nu_s + 1) z_sn / ((nu_s + z_sn^2) sigma_s),
//   d out_s / d sigma_s = ((nu_s + 1) sum_n w_sn - m) / sigma_s,
//   d out_s / d nu_s = (m (psi((nu+1)/2) - psi(nu/2) - 1/nu) - sum_n (L - w) + sum_n w / nu) / 2,
// so lgamma and digamma run once per draw and the pass over the rows costs one log1p per element
// (a short series for L - w at small w keeps d/dnu accurate at large nu). sigma and nu are S x 1;
// sigma_s <= 0 or nu_s <= 0 (or NaN) gives NaN; nu_s = +inf is the normal limit. The
// elementwise pass runs in double for float data too.
template <class T>
Var student_t_glm(const Var* alpha, const Var& beta, const Var& sigma, const Var& nu, const T* x,
                  const GlmRows& rows, const Var* extra = nullptr);

}  // namespace bvi::ad
