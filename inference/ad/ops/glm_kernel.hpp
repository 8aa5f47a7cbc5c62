#pragma once
// The one kernel behind every fused GLM likelihood (Stan's *_glm functions, JAX's custom_vjp).
// For S draws and a block of m rows:
//   eta_sn = alpha_s + x_n . beta_s + offset_n (+ e_sn)   the logits: one GEMM, Z = beta X^T,
//                                                  plus an optional S x m term E (group effects)
//   out_s  = sum_n l(y_n | eta_sn)                 the family, elementwise, in one pass
// and, with g_sn = dl/deta_sn from the same pass (it overwrites eta), the gradient is one GEMM:
//   dbeta += diag(dout) G X,   dalpha += dout .* rowsum(G),   dE += diag(dout) G,
// and the family's own parameters.
// Unlike bernoulli_logit_glm the block is not tiled for the cache: S x m logits are stored whole.
//
// A Family is a small trivially-destructible functor (it is captured by the backward closure):
//   template <class T> using Compute = ...;  precision of the elementwise pass for features of
//                                            type T (double for T = double)
//   bool has_adj() const;                    whether its own per-draw parameters need adjoints
//   template <class C>
//   void forward(Tape&, Eigen::Map<Eigen::Array<C, -1, -1>> eta, const GlmRows&,
//                Eigen::Map<Eigen::ArrayXd> out, bool grad);
//                                            out_s = sum_n w_n l (w_n = row_weight(rows, n));
//                                            with grad, eta <- dl/deta (unweighted: the kernel
//                                            multiplies by w_n) and the family saves what
//                                            backward() needs, weighted, in the arena
//   void backward(const double* dout) const; adds dout_s * d out_s / d own parameters
// Only this header's includers instantiate the kernel: one .cpp per family.
#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "inference/ad/arena_values.hpp"
#include "inference/ad/gemm.hpp"
#include "inference/ad/ops/glm_rows.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad::glm_detail {

template <class T>
using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic>>;

// `alpha` (S x 1) may be null (no intercept); `beta` is S x D; `x` is the block's m x D features,
// row-major, of type T (float: the GEMMs run in single precision, the sums in double); `extra`
// (S x m, may be null) is added to the linear predictor as it is (in the family's precision).
// Both products run through GemmWorkspace (packing buffers from the arena: no malloc once warm),
// and the gradient's G X is formed in the forward pass while G is fresh (as Stan's GLMs and
// bernoulli_logit_glm do), so the backward closure only scales it by the output adjoint:
//   dbeta_s += dout_s sum_n g_sn x_n,   dalpha_s += dout_s sum_n g_sn.
template <class Family, class T>
Var glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows, Family family,
        const Var* extra = nullptr) {
  using C = typename Family::template Compute<T>;
  static_assert(std::is_same_v<T, double> ? std::is_same_v<C, double> : true,
                "double data is never evaluated in lower precision");
  const Index S = beta.rows(), D = beta.cols(), m = rows.rows;
  if (alpha && (alpha->rows() != S || alpha->cols() != 1))
    throw std::invalid_argument("glm: alpha must be S x 1");
  if (extra && (extra->rows() != S || extra->cols() != m))
    throw std::invalid_argument("glm: the extra linear-predictor term must be S x m");
  Tape& tape = beta.tape();
  const bool alpha_adj = alpha && alpha->has_adj();
  const bool beta_adj = beta.has_adj() && D > 0;
  const bool extra_adj = extra && extra->has_adj();
  const bool needs_adj = beta.has_adj() || alpha_adj || extra_adj || family.has_adj();
  Var out = tape.make(S, 1, needs_adj);
  Eigen::Map<Eigen::ArrayXd> ll(tape.val_ptr(out), S);
  GemmWorkspace<T> gemm(tape.arena());

  // Z = beta X^T in T precision, S x m: X^T is X's row-major storage read column-major (D x m);
  // beta's columns are S apart. A float copy of beta for float data.
  T* z = arena_array<T>(tape, S * m);
  std::fill(z, z + S * m, T(0));
  const T* b = values_as<T>(tape, beta);
  gemm.template add_product<Eigen::ColMajor, Eigen::ColMajor>(S, m, D, b, S, x, D, z, S);
  // eta in the family's precision: Z itself, or a double copy of float logits.
  C* eta_data = nullptr;
  if constexpr (std::is_same_v<C, T>) {
    eta_data = z;
  } else {
    eta_data = arena_array<C>(tape, S * m);
    for (Index i = 0; i < S * m; ++i) eta_data[i] = static_cast<C>(z[i]);
  }
  Eigen::Map<ColMat<C>> eta(eta_data, S, m);
  if (alpha) eta.colwise() += alpha->mat().col(0).template cast<C>();
  if (rows.offset && m > 0)
    eta.rowwise() += Eigen::Map<const Eigen::RowVectorXd>(rows.offset, m).template cast<C>();
  if (extra) eta += extra->mat().template cast<C>();

  family.forward(tape, ArrayMap<C>(eta_data, S, m), rows, ll, needs_adj);
  if (!needs_adj) return out;
  // Row weights: the family weighted its value and its own parameters' gradients; dl/deta is
  // weighted here, once for every family: G_sn <- w_n G_sn.
  if (rows.weight)
    for (Index n = 0; n < m; ++n)
      for (Index s = 0; s < S; ++s) eta_data[n * S + s] *= static_cast<C>(rows.weight[n]);

  // G = d out / d eta now sits in eta_data.
  double* gsum = nullptr;
  if (alpha_adj) {
    // sum_n G_sn column by column: an explicit order, so the bits do not depend on alignment.
    gsum = arena_array<double>(tape, S);
    std::fill(gsum, gsum + S, 0.0);
    for (Index n = 0; n < m; ++n)
      for (Index s = 0; s < S; ++s) gsum[s] += static_cast<double>(eta_data[n * S + s]);
  }
  double* gx = nullptr;
  if (beta_adj) {
    gx = arena_array<double>(tape, S * D);
    std::fill(gx, gx + S * D, 0.0);
    if constexpr (std::is_same_v<T, double>) {
      gemm.template add_product<Eigen::ColMajor, Eigen::RowMajor>(S, D, m, eta_data, S, x, D, gx, S);
    } else {
      // Float data: G in float (a copy when the family ran in double), a float S x D product,
      // added in double.
      T* g = nullptr;
      if constexpr (std::is_same_v<C, T>) {
        g = eta_data;
      } else {
        g = arena_array<T>(tape, S * m);
        for (Index i = 0; i < S * m; ++i) g[i] = static_cast<T>(eta_data[i]);
      }
      T* gxt = arena_array<T>(tape, S * D);
      std::fill(gxt, gxt + S * D, T(0));
      gemm.template add_product<Eigen::ColMajor, Eigen::RowMajor>(S, D, m, g, S, x, D, gxt, S);
      for (Index i = 0; i < S * D; ++i) gx[i] = static_cast<double>(gxt[i]);
    }
  }
  const Var bv = beta_adj ? beta : Var();
  const Var av = alpha_adj ? *alpha : Var();  // empty Vars when there is nothing to propagate
  const Var ev = extra_adj ? *extra : Var();
  const C* g = eta_data;
  tape.on_backward([bv, av, ev, out, family, gx, gsum, g, S, D, m] {
    Eigen::Map<const Eigen::ArrayXd> dout(out.adj_data(), S);
    family.backward(out.adj_data());
    if (bv.has_adj()) bv.adj() += Eigen::Map<const Eigen::ArrayXXd>(gx, S, D).colwise() * dout;
    if (av.has_adj()) av.adj().col(0) += dout * Eigen::Map<const Eigen::ArrayXd>(gsum, S);
    // dE_sn += dout_s G_sn
    if (ev.has_adj())
      ev.adj() += Eigen::Map<const Eigen::Array<C, Eigen::Dynamic, Eigen::Dynamic>>(g, S, m)
                      .template cast<double>()
                      .colwise() *
                  dout;
  });
  return out;
}

}  // namespace bvi::ad::glm_detail
