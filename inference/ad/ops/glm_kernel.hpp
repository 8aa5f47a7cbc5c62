#pragma once
// The one kernel behind every fused GLM likelihood (Stan's *_glm functions, JAX's custom_vjp).
// For S draws and a block of m rows:
//   eta_sn = alpha_s + x_n . beta_s + offset_n     the logits: one GEMM, Z = beta X^T
//   out_s  = sum_n l(y_n | eta_sn)                 the family, elementwise, in one pass
// and, with g_sn = dl/deta_sn from the same pass (it overwrites eta), the backward pass is one GEMM:
//   dbeta += diag(dout) G X,   dalpha += dout .* rowsum(G),   and the family's own parameters.
//
// A Family is a small trivially-destructible functor (it is captured by the backward closure):
//   template <class T> using Compute = ...;  precision of the elementwise pass for features of
//                                            type T (double for T = double)
//   bool has_adj() const;                    whether its own per-draw parameters need adjoints
//   template <class C>
//   void forward(Tape&, Eigen::Map<Eigen::Array<C, -1, -1>> eta, const GlmRows&,
//                Eigen::Map<Eigen::ArrayXd> out, bool grad);
//                                            out_s = sum_n l; with grad, eta <- dl/deta and the
//                                            family saves what backward() needs in the arena
//   void backward(const double* dout) const; adds dout_s * d out_s / d own parameters
// Only this header's includers instantiate the kernel: one .cpp per family.
#include <stdexcept>
#include <type_traits>

#include "inference/ad/ops/glm_rows.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad::glm_detail {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic>>;

template <class T>
T* arena_array(Tape& tape, Index n) {
  return tape.arena().allocate_array<T>(static_cast<std::size_t>(n));
}

// `alpha` (S x 1) may be null (no intercept); `beta` is S x D; `x` is the block's m x D features,
// row-major, of type T (float: the GEMMs run in single precision, the sums in double).
template <class Family, class T>
Var glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows, Family family) {
  using C = typename Family::template Compute<T>;
  static_assert(std::is_same_v<T, double> ? std::is_same_v<C, double> : true,
                "double data is never evaluated in lower precision");
  const Index S = beta.rows(), D = beta.cols(), m = rows.rows;
  if (alpha && (alpha->rows() != S || alpha->cols() != 1))
    throw std::invalid_argument("glm: alpha must be S x 1");
  Tape& tape = beta.tape();
  const bool needs_adj = beta.has_adj() || (alpha && alpha->has_adj()) || family.has_adj();
  Var out = tape.make(S, 1, needs_adj);
  Eigen::Map<Eigen::ArrayXd> ll(tape.val_ptr(out), S);

  // Z = beta X^T in T precision, S x m.
  Eigen::Map<const RowMat<T>> X(x, m, D);
  Eigen::Map<ColMat<T>> Z(arena_array<T>(tape, S * m), S, m);
  if (D == 0 || m == 0) {
    Z.setZero();
  } else if constexpr (std::is_same_v<T, double>) {
    Z.noalias() = beta.mat() * X.transpose();
  } else {
    Eigen::Map<ColMat<T>> B(arena_array<T>(tape, S * D), S, D);
    B = beta.mat().template cast<T>();
    Z.noalias() = B * X.transpose();
  }
  // eta in the family's precision: Z itself, or a double copy of float logits.
  C* eta_data = nullptr;
  if constexpr (std::is_same_v<C, T>) {
    eta_data = Z.data();
  } else {
    eta_data = arena_array<C>(tape, S * m);
    Eigen::Map<ColMat<C>>(eta_data, S, m) = Z.template cast<C>();
  }
  Eigen::Map<ColMat<C>> eta(eta_data, S, m);
  if (alpha) eta.colwise() += alpha->mat().col(0).template cast<C>();
  if (rows.offset && m > 0)
    eta.rowwise() += Eigen::Map<const Eigen::RowVectorXd>(rows.offset, m).template cast<C>();

  family.forward(tape, ArrayMap<C>(eta_data, S, m), rows, ll, needs_adj);

  if (needs_adj) {
    const Var a = alpha ? *alpha : Var();  // an empty Var when there is no intercept
    // For float data the backward GEMM needs a float S x D result before it is added in double,
    // and a float copy of G when the family ran in double.
    T* gb = std::is_same_v<T, double> ? nullptr : arena_array<T>(tape, S * D);
    T* g_low = std::is_same_v<C, T> ? nullptr : arena_array<T>(tape, S * m);
    tape.on_backward([beta, a, out, family, eta_data, gb, g_low, x, S, D, m] {
      Eigen::Map<ColMat<C>> G(eta_data, S, m);
      Eigen::Map<const Eigen::ArrayXd> dout(out.adj_data(), S);
      family.backward(out.adj_data());
      G.array().colwise() *= dout.template cast<C>();
      if (a.has_adj()) {
        // dalpha_s += sum_n G_sn, column by column: an explicit order, so the bits do not depend
        // on the alignment of the destination (Eigen's rowwise().sum() pairs terms differently
        // in its vectorized and scalar paths).
        double* da = a.adj_data();
        for (Index n = 0; n < m; ++n)
          for (Index s = 0; s < S; ++s) da[s] += static_cast<double>(G(s, n));
      }
      if (beta.has_adj() && D > 0 && m > 0) {
        Eigen::Map<const RowMat<T>> Xb(x, m, D);
        if constexpr (std::is_same_v<T, double>) {
          beta.adj_mat().noalias() += G * Xb;
        } else {
          Eigen::Map<ColMat<T>> GB(gb, S, D);
          if constexpr (std::is_same_v<C, T>) {
            GB.noalias() = G * Xb;
          } else {
            Eigen::Map<ColMat<T>> GL(g_low, S, m);
            GL = G.template cast<T>();
            GB.noalias() = GL * Xb;
          }
          beta.adj_mat() += GB.template cast<double>();
        }
      }
    });
  }
  return out;
}

}  // namespace bvi::ad::glm_detail
