#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// The fused logistic-regression likelihood over a block of rows (Stan's bernoulli_logit_glm,
// JAX's custom_vjp): for S draws,
//   out_s = sum_n log sigmoid(t_n z_sn),  z_sn = alpha_s + x_n . beta_s,  t_n = 2 y_n - 1,
// as an S x 1 Var. With g_sn = d out_s / d z_sn = t_n sigmoid(-t_n z_sn), the gradient is
//   dbeta += diag(dout) G X,   dalpha += dout .* rowsum(G).
// The block is processed in row tiles that stay in cache: per tile one GEMM for the logits, one
// pass for log sigmoid and G (written over the logits), and, when a gradient is wanted, one GEMM
// for G X added to an S x D sum; the backward closure only scales that sum by dout. So X is read
// from memory once and no S x m array is ever stored.
// `alpha` (S x 1) may be null (no intercept); `beta` is S x D; `x` is the block's m x D features,
// row-major, of type T (float: the GEMMs and the elementwise math run in single precision, every
// sum over rows in double); `y` holds the m responses in {0, 1}. `extra` (S x m, may be null) is
// added to z as it is (group-level effects); its adjoint is dE += diag(dout) G, for which G is kept
// (S x m doubles) only when E needs a gradient.
// `weight` (m long, may be null) weights each row's log likelihood: out_s = sum_n w_n log
// sigmoid(t_n z_sn), and G's column n carries the factor w_n.
template <class T>
Var bernoulli_logit_glm(const Var* alpha, const Var& beta, const T* x, const double* y, Index rows,
                        const Var* extra = nullptr, const double* weight = nullptr);

}  // namespace bvi::ad
