#include "inference/ad/ops/lkj_corr_cholesky_lpdf.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "inference/ad/math/cholesky_corr.hpp"
#include "inference/ad/tape.hpp"
#include "inference/math/constants.hpp"

namespace bvi::ad {

namespace {

double log_beta(double a, double b) {
  return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
}

// The exponent of L_ii (0-based row i = 1 ... K - 1; 1-based it is K - i + 2 eta - 2).
double coefficient(Index i, Index K, double eta) {
  return static_cast<double>(K - i - 1) + 2.0 * eta - 2.0;
}

}  // namespace

double lkj_log_normalizer(double eta, Index K) {
  using bvi::math::kLog2;
  double c = 0.0;
  for (Index k = 1; k < K; ++k) {
    const double Kk = static_cast<double>(K - k);
    const double b = eta + (Kk - 1.0) / 2.0;
    c += (2.0 * eta - 2.0 + Kk) * Kk * kLog2 + Kk * log_beta(b, b);
  }
  return c;
}

Var lkj_corr_cholesky_lpdf(const Var& L_free, double eta, Index K) {
  if (!(eta > 0.0)) throw std::invalid_argument("lkj_corr_cholesky_lpdf: eta must be positive");
  if (K < 2 || L_free.cols() != corr::free_entries(K))
    throw std::invalid_argument("lkj_corr_cholesky_lpdf: expected K (K - 1) / 2 columns with K >= 2");
  const Index S = L_free.rows();
  Tape& tape = L_free.tape();
  Var out = tape.make(S, 1, L_free.has_adj());
  double* o = tape.val_ptr(out);
  const double constant = -lkj_log_normalizer(eta, K);
  const double* w = L_free.val_data();
  for (Index s = 0; s < S; ++s) {
    double lp = constant;
    for (Index i = 1; i < K; ++i) {
      double ss = 0.0;
      for (Index j = 0; j < i; ++j) {
        const double v = w[corr::free_index(i, j) * S + s];
        ss += v * v;
      }
      // A row longer than 1 is no Cholesky factor of a correlation matrix: NaN. Where the exponent
      // is 0 (K = 2, eta = 1 ...) the term is absent, also at L_ii = 0 (no 0 * log 0).
      if (!(ss <= 1.0)) lp = std::numeric_limits<double>::quiet_NaN();
      const double c = coefficient(i, K, eta);
      if (c != 0.0) lp += c * 0.5 * std::log1p(-ss);
    }
    o[s] = lp;
  }
  if (out.has_adj()) {
    tape.on_backward([L_free, out, eta, K, S] {
      const double* w = L_free.val_data();
      double* dw = L_free.adj_data();
      const double* g = out.adj_data();
      for (Index s = 0; s < S; ++s)
        for (Index i = 1; i < K; ++i) {
          double ss = 0.0;
          for (Index j = 0; j < i; ++j) {
            const double v = w[corr::free_index(i, j) * S + s];
            ss += v * v;
          }
          const double c = coefficient(i, K, eta);
          if (c == 0.0) continue;
          for (Index j = 0; j < i; ++j) {
            const Index at = corr::free_index(i, j) * S + s;
            dw[at] += -g[s] * c * w[at] / (1.0 - ss);
          }
        }
    });
  }
  return out;
}

}  // namespace bvi::ad
