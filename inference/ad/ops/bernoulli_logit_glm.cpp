#include "inference/ad/ops/bernoulli_logit_glm.hpp"

#include <stdexcept>

#include "inference/ad/tape.hpp"

namespace bvi::ad {

namespace {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

template <class T>
T* arena_array(Tape& tape, Index n) {
  return tape.arena().allocate_array<T>(static_cast<std::size_t>(n));
}

}  // namespace

template <class T>
Var bernoulli_logit_glm(const Var* alpha, const Var& beta, const T* x, const double* y, Index rows) {
  const Index S = beta.rows(), D = beta.cols(), m = rows;
  if (alpha && (alpha->rows() != S || alpha->cols() != 1))
    throw std::invalid_argument("bernoulli_logit_glm: alpha must be S x 1");
  Tape& tape = beta.tape();
  const bool needs_adj = beta.has_adj() || (alpha && alpha->has_adj());
  Var out = tape.make(S, 1, needs_adj);
  Eigen::Map<Eigen::ArrayXd> ll(tape.val_ptr(out), S);

  Eigen::Map<const RowMat<T>> X(x, m, D);
  // z = beta X^T (+ alpha), S x m, in T precision. Then u = t z and e = exp(-|u|).
  Eigen::Map<ColMat<T>> Z(arena_array<T>(tape, S * m), S, m);
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> t(arena_array<T>(tape, m), m);
  for (Index n = 0; n < m; ++n) t[n] = y[n] > 0.5 ? T(1) : T(-1);
  if (D == 0 || m == 0) {
    Z.setZero();
  } else if constexpr (std::is_same_v<T, double>) {
    Z.noalias() = beta.mat() * X.transpose();
  } else {
    Eigen::Map<ColMat<T>> B(arena_array<T>(tape, S * D), S, D);
    B = beta.mat().template cast<T>();
    Z.noalias() = B * X.transpose();
  }
  if (alpha) Z.colwise() += alpha->mat().col(0).template cast<T>();
  auto U = Z.array();
  U.rowwise() *= t.transpose();
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic>> E(arena_array<T>(tape, S * m), S, m);
  E = (-U.abs()).exp();
  // log sigmoid(u) = min(u, 0) - log(1 + e^-|u|); log(1 + e) rather than log1p(e) because Eigen
  // vectorizes log but not log1p, and e <= 1 keeps the absolute error below 1e-16. Sums are
  // accumulated in double whatever T is.
  if (m == 0)
    ll.setZero();
  else
    ll = (U.min(T(0)) - (T(1) + E).log()).template cast<double>().rowwise().sum();

  if (needs_adj) {
    // G = t sigmoid(-u), overwriting Z: sigmoid(-u) = e/(1+e) for u >= 0, 1/(1+e) for u < 0.
    U = (U >= T(0)).select(E, T(1)) / (T(1) + E);
    U.rowwise() *= t.transpose();
    const T* g = Z.data();
    const Var a = alpha ? *alpha : Var();  // an empty Var when there is no intercept
    // For float data the backward GEMM needs a float S x D result before it is added in double.
    T* gb = std::is_same_v<T, double> ? nullptr : arena_array<T>(tape, S * D);
    tape.on_backward([beta, a, out, g, gb, x, S, D, m] {
      Eigen::Map<ColMat<T>> G(const_cast<T*>(g), S, m);
      Eigen::Map<const Eigen::ArrayXd> dout(out.adj_data(), S);
      G.array().colwise() *= dout.template cast<T>();
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
          GB.noalias() = G * Xb;
          beta.adj_mat() += GB.template cast<double>();
        }
      }
    });
  }
  return out;
}

template Var bernoulli_logit_glm<double>(const Var*, const Var&, const double*, const double*, Index);
template Var bernoulli_logit_glm<float>(const Var*, const Var&, const float*, const double*, Index);

}  // namespace bvi::ad
