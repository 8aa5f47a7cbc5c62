#include "inference/ad/ops/grouped_multi_normal_lpdf.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "inference/ad/arena_values.hpp"
#include "inference/ad/math/cholesky_corr.hpp"
#include "inference/ad/tape.hpp"
#include "inference/math/log_ndtr.hpp"

namespace bvi::ad {

namespace {

// w = L^-1 x for lower-triangular L (K x K, column-major).
void forward_solve(const double* L, Index K, const double* x, double* w) {
  for (Index i = 0; i < K; ++i) {
    double acc = x[i];
    for (Index j = 0; j < i; ++j) acc -= L[j * K + i] * w[j];
    w[i] = acc / L[i * K + i];
  }
}

// v = L^-T w.
void backward_solve(const double* L, Index K, const double* w, double* v) {
  for (Index i = K - 1; i >= 0; --i) {
    double acc = w[i];
    for (Index j = i + 1; j < K; ++j) acc -= L[i * K + j] * v[j];
    v[i] = acc / L[i * K + i];
  }
}

}  // namespace

Var grouped_multi_normal_lpdf(const Var& r, const Var& sd, const Var& L_free) {
  const Index S = r.rows(), K = sd.cols();
  if (sd.rows() != S || L_free.rows() != S || K < 2 || r.cols() % K != 0 ||
      L_free.cols() != corr::free_entries(K))
    throw std::invalid_argument(
        "grouped_multi_normal_lpdf: r must be S x (G K), sd S x K and L S x K(K-1)/2");
  const Index G = r.cols() / K;
  Tape& tape = r.tape();
  Var out = tape.make(S, 1, any_adj(r, sd, L_free));
  double* o = tape.val_ptr(out);
  double* L = arena_array<double>(tape, K * K);
  double* x = arena_array<double>(tape, K);
  double* w = arena_array<double>(tape, K);
  const double* rv = r.val_data();
  const double* sv = sd.val_data();
  const double dG = static_cast<double>(G), dK = static_cast<double>(K);
  for (Index s = 0; s < S; ++s) {
    corr::fill_factor(L_free.val_data() + s, S, K, L);
    double log_det = 0.0;  // sum_k log(sd_k L_kk)
    bool valid = true;
    for (Index k = 0; k < K; ++k) {
      const double v = sv[k * S + s];
      valid = valid && v > 0.0;
      log_det += std::log(v) + std::log(L[k * K + k]);
    }
    double quad = 0.0;
    for (Index g = 0; g < G; ++g) {
      for (Index k = 0; k < K; ++k) x[k] = rv[(g * K + k) * S + s] / sv[k * S + s];
      forward_solve(L, K, x, w);
      for (Index k = 0; k < K; ++k) quad += w[k] * w[k];
    }
    o[s] = valid ? -dG * (dK * bvi::math::kLogSqrt2Pi + log_det) - 0.5 * quad
                 : std::numeric_limits<double>::quiet_NaN();
  }
  if (out.has_adj()) {
    double* v = arena_array<double>(tape, K);
    double* gL = arena_array<double>(tape, K * K);  // d out / d L, entry by entry
    tape.on_backward([r, sd, L_free, out, L, x, w, v, gL, S, K, G] {
      const double* a = out.adj_data();
      const double* rv = r.val_data();
      const double* sv = sd.val_data();
      const double dG = static_cast<double>(G);
      for (Index s = 0; s < S; ++s) {
        corr::fill_factor(L_free.val_data() + s, S, K, L);
        for (Index c = 0; c < K * K; ++c) gL[c] = 0.0;
        for (Index k = 0; k < K; ++k) {
          gL[k * K + k] = -dG / L[k * K + k];
          if (sd.has_adj()) sd.adj_data()[k * S + s] += -a[s] * dG / sv[k * S + s];
        }
        for (Index g = 0; g < G; ++g) {
          for (Index k = 0; k < K; ++k) x[k] = rv[(g * K + k) * S + s] / sv[k * S + s];
          forward_solve(L, K, x, w);
          backward_solve(L, K, w, v);
          for (Index k = 0; k < K; ++k) {
            const double sk = sv[k * S + s];
            if (r.has_adj()) r.adj_data()[(g * K + k) * S + s] += -a[s] * v[k] / sk;
            if (sd.has_adj()) sd.adj_data()[k * S + s] += a[s] * v[k] * rv[(g * K + k) * S + s] / (sk * sk);
          }
          for (Index j = 0; j < K; ++j)
            for (Index i = j; i < K; ++i) gL[j * K + i] += v[i] * w[j];
        }
        if (L_free.has_adj())
          for (Index i = 1; i < K; ++i)
            for (Index j = 0; j < i; ++j) {
              const double d = gL[j * K + i] - gL[i * K + i] * L[j * K + i] / L[i * K + i];
              L_free.adj_data()[corr::free_index(i, j) * S + s] += a[s] * d;
            }
      }
    });
  }
  return out;
}

}  // namespace bvi::ad
