#include "inference/ad/ops/categorical_logit_glm.hpp"

#include <algorithm>
#include <new>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "inference/ad/arena_values.hpp"
#include "inference/ad/gemm.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

template <class T>
Var categorical_logit_glm(const Var* alpha, const Var& beta, const T* x, const GlmRows& rows, int categories,
                          int reference, const Var* group) {
  const Index C = categories - 1;
  if (categories < 2 || reference < 1 || reference > categories)
    throw std::invalid_argument("categorical_logit_glm: K >= 2 categories and a reference in 1 ... K needed");
  const Index S = beta.rows(), m = rows.rows;
  if (beta.cols() % C != 0) throw std::invalid_argument("categorical_logit_glm: beta must be S x (K - 1) D");
  const Index D = beta.cols() / C, CS = C * S;
  if (alpha && (alpha->rows() != S || alpha->cols() != C))
    throw std::invalid_argument("categorical_logit_glm: alpha must be S x (K - 1)");
  bool group_adj = false;
  if (group)
    for (Index c = 0; c < C; ++c) {
      if (group[c].rows() != S || group[c].cols() != m)
        throw std::invalid_argument("categorical_logit_glm: each category's group effects must be S x m");
      group_adj = group_adj || group[c].has_adj();
    }
  Tape& tape = beta.tape();
  const bool alpha_adj = alpha && alpha->has_adj();
  const bool beta_adj = beta.has_adj() && D > 0;
  const bool needs_adj = alpha_adj || beta_adj || group_adj;
  Var out = tape.make(S, 1, needs_adj);
  Eigen::Map<Eigen::ArrayXd> ll(tape.val_ptr(out), S);
  ll.setZero();
  GemmWorkspace<T> gemm(tape.arena());

  // Z = B X^T, (C S) x m, B = beta's storage as (C S) x D.
  T* z = arena_array<T>(tape, CS * m);
  std::fill(z, z + CS * m, T(0));
  const T* b = values_as<T>(tape, beta);
  gemm.template add_product<Eigen::ColMajor, Eigen::ColMajor>(CS, m, D, b, CS, x, D, z, CS);
  double* eta = nullptr;
  if constexpr (std::is_same_v<T, double>) {
    eta = z;
  } else {
    eta = arena_array<double>(tape, CS * m);
    for (Index i = 0; i < CS * m; ++i) eta[i] = static_cast<double>(z[i]);
  }
  // alpha's storage (S x C column-major) is the (C S)-vector of the same row order.
  if (alpha) Eigen::Map<Eigen::MatrixXd>(eta, CS, m).colwise() += Eigen::Map<const Eigen::VectorXd>(alpha->val_data(), CS);
  // Category c's group part (S x m, column n the row) into rows c S ... c S + S - 1 of eta's column n.
  if (group)
    for (Index c = 0; c < C; ++c) {
      const double* e = group[c].val_data();
      for (Index n = 0; n < m; ++n)
        Eigen::Map<Eigen::VectorXd>(eta + n * CS + c * S, S) += Eigen::Map<const Eigen::VectorXd>(e + n * S, S);
    }

  // Row by row: an S x C block of linear predictors (leading dimension S). hi = max(0, eta's), then
  // log sum_k exp(eta_k) = hi + log(exp(-hi) + sum_c exp(eta_c - hi)).
  double* hi = arena_array<double>(tape, S);
  double* den = arena_array<double>(tape, S);
  double* top = arena_array<double>(tape, S);
  for (Index n = 0; n < m; ++n) {
    const double yv = rows.y[n];
    const int y = static_cast<int>(yv);
    if (!(yv >= 1 && yv <= categories && static_cast<double>(y) == yv))
      throw std::invalid_argument("categorical_logit_glm: a category outside 1 ... K");
    const int slot = categorical_slot(y, reference);
    const double w = row_weight(rows, n);
    Eigen::Map<Eigen::ArrayXXd> e(eta + n * CS, S, C);
    Eigen::Map<Eigen::ArrayXd> h(hi, S), d(den, S), ey(top, S);
    h = e.rowwise().maxCoeff().max(0.0);
    if (slot >= 0)
      ey = e.col(slot) - h;  // eta_y - hi, before eta is overwritten (no exp/log round trip)
    else
      ey = -h;
    d = (-h).exp();
    for (Index c = 0; c < C; ++c) {
      e.col(c) = (e.col(c) - h).exp();  // exp(eta_c - hi): eta is no longer needed but through it
      d += e.col(c);
    }
    // eta_y - lse = (eta_y - hi) - log(den), den in [1, K].
    ll += w * (ey - d.log());
    if (!needs_adj) continue;
    // G = w (1[y = c] - softmax_c), in place.
    for (Index c = 0; c < C; ++c) e.col(c) = -w * e.col(c) / d;
    if (slot >= 0) e.col(slot) += w;
  }
  if (!needs_adj) return out;
  double* gsum = nullptr;
  if (alpha_adj) {
    gsum = arena_array<double>(tape, CS);
    std::fill(gsum, gsum + CS, 0.0);
    for (Index n = 0; n < m; ++n)
      for (Index i = 0; i < CS; ++i) gsum[i] += eta[n * CS + i];
  }
  double* gx = nullptr;
  if (beta_adj) {
    // G X: (C S) x D, which is beta's S x (C D) layout again.
    gx = arena_array<double>(tape, CS * D);
    std::fill(gx, gx + CS * D, 0.0);
    if constexpr (std::is_same_v<T, double>) {
      gemm.template add_product<Eigen::ColMajor, Eigen::RowMajor>(CS, D, m, eta, CS, x, D, gx, CS);
    } else {
      T* g = arena_array<T>(tape, CS * m);
      for (Index i = 0; i < CS * m; ++i) g[i] = static_cast<T>(eta[i]);
      T* gxt = arena_array<T>(tape, CS * D);
      std::fill(gxt, gxt + CS * D, T(0));
      gemm.template add_product<Eigen::ColMajor, Eigen::RowMajor>(CS, D, m, g, CS, x, D, gxt, CS);
      for (Index i = 0; i < CS * D; ++i) gx[i] = static_cast<double>(gxt[i]);
    }
  }
  const Var bv = beta_adj ? beta : Var();
  const Var av = alpha_adj ? *alpha : Var();
  // The group parts' adjoints need G itself (in eta's place): the op's own copy of the C Vars.
  Var* gv = nullptr;
  if (group_adj) {
    gv = tape.arena().allocate_array<Var>(static_cast<std::size_t>(C));
    for (Index c = 0; c < C; ++c) new (gv + c) Var(group[c]);
  }
  const double* g_rows = eta;
  tape.on_backward([bv, av, out, gx, gsum, gv, g_rows, S, C, D, m] {
    Eigen::Map<const Eigen::ArrayXd> dout(out.adj_data(), S);
    if (gv)
      for (Index c = 0; c < C; ++c) {
        if (!gv[c].has_adj()) continue;
        double* ga = gv[c].adj_data();
        for (Index n = 0; n < m; ++n)
          Eigen::Map<Eigen::ArrayXd>(ga + n * S, S) +=
              Eigen::Map<const Eigen::ArrayXd>(g_rows + n * S * C + c * S, S) * dout;
      }
    if (bv.has_adj()) bv.adj() += Eigen::Map<const Eigen::ArrayXXd>(gx, S, C * D).colwise() * dout;
    if (av.has_adj()) av.adj() += Eigen::Map<const Eigen::ArrayXXd>(gsum, S, C).colwise() * dout;
  });
  return out;
}

template Var categorical_logit_glm<double>(const Var*, const Var&, const double*, const GlmRows&, int, int,
                                           const Var*);
template Var categorical_logit_glm<float>(const Var*, const Var&, const float*, const GlmRows&, int, int,
                                          const Var*);

}  // namespace bvi::ad
