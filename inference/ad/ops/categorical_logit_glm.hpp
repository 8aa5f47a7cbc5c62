#pragma once
// The fused multinomial logit (categorical) likelihood over a block of m rows, for S draws:
//   out_s = sum_n w_n (eta_{s,n,y_n} - log sum_k exp(eta_{s,n,k})),
// eta_{s,n,ref} = 0 for the reference category and, for the C = K - 1 others (c = 0 ... C - 1, the
// categories 1 ... K without `reference` in increasing order),
//   eta_{s,n,c} = alpha_{s,c} + x_n . beta_{s,c,.}.
// `beta` is S x (C D) with feature-major columns (column j C + c is category c's coefficient of
// feature j), so its storage read column-major is the (C S) x D matrix whose row c S + s is draw s
// of category c: every category's linear predictor for every draw is ONE GEMM, (C S) x D times
// X^T (D x m). `alpha` (may be null) is S x C. The log-sum-exp is taken about max(0, eta's), so
// it neither overflows nor underflows; dl/deta = 1[y = c] - softmax_c, and the gradient of beta
// is one more GEMM, G X, formed in the forward pass (as glm_kernel.hpp does). Responses rows.y
// are the categories 1 ... K. Float data: the GEMMs in single precision, the rest in double.
// `group` (may be null) points to C Vars, each S x m: category c's group-level part of eta (the
// gathered effects of ad::group_effects), added to eta_{s,n,c}; its adjoint is G's row block
// times dout, so the effects' gradient stays indexed (the gather op scatters it into r).
#include "inference/ad/ops/glm_rows.hpp"
#include "inference/ad/var.hpp"

namespace bvi::ad {

template <class T>
Var categorical_logit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows, int categories,
                          int reference, const Var* group = nullptr);

// The index c (0 ... K - 2) of category y's linear predictor, or -1 for the reference category.
inline int categorical_slot(int y, int reference) { return y == reference ? -1 : (y < reference ? y - 1 : y - 2); }

}  // namespace bvi::ad
