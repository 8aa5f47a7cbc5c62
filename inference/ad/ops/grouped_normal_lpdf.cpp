#include "inference/ad/ops/grouped_normal_lpdf.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "inference/ad/arena_values.hpp"
#include "inference/ad/tape.hpp"
#include "inference/math/log_ndtr.hpp"

namespace bvi::ad {

Var grouped_normal_lpdf(const Var& r, const Var& sd) {
  const Index S = r.rows(), K = sd.cols();
  if (sd.rows() != S || K < 1 || r.cols() % K != 0)
    throw std::invalid_argument("grouped_normal_lpdf: r must be S x (G K) and sd S x K");
  const Index G = r.cols() / K;
  Tape& tape = r.tape();
  Var out = tape.make(S, 1, any_adj(r, sd));
  // Per draw and column k: the sum over groups of r^2, which the sd's gradient needs too.
  double* ss = arena_array<double>(tape, S * K);
  std::fill(ss, ss + S * K, 0.0);
  const double* rv = r.val_data();
  for (Index g = 0; g < G; ++g)
    for (Index k = 0; k < K; ++k) {
      const double* rc = rv + (g * K + k) * S;
      double* sk = ss + k * S;
      for (Index s = 0; s < S; ++s) sk[s] += rc[s] * rc[s];
    }
  double* o = tape.val_ptr(out);
  const double* sv = sd.val_data();
  const double dG = static_cast<double>(G);
  for (Index s = 0; s < S; ++s) o[s] = 0.0;
  for (Index k = 0; k < K; ++k)
    for (Index s = 0; s < S; ++s) {
      const double v = sv[k * S + s];
      o[s] += v > 0.0 ? -0.5 * ss[k * S + s] / (v * v) - dG * (std::log(v) + bvi::math::kLogSqrt2Pi)
                      : std::numeric_limits<double>::quiet_NaN();
    }
  if (out.has_adj()) {
    tape.on_backward([r, sd, out, ss, S, K, G] {
      const double* g = out.adj_data();
      const double* sv = sd.val_data();
      if (r.has_adj()) {
        const double* rv = r.val_data();
        double* dr = r.adj_data();
        for (Index c = 0; c < G * K; ++c) {
          const double* svk = sv + (c % K) * S;
          for (Index s = 0; s < S; ++s) dr[c * S + s] -= g[s] * rv[c * S + s] / (svk[s] * svk[s]);
        }
      }
      if (sd.has_adj()) {
        double* dsd = sd.adj_data();
        const double dG = static_cast<double>(G);
        for (Index k = 0; k < K; ++k)
          for (Index s = 0; s < S; ++s) {
            const double v = sv[k * S + s];
            dsd[k * S + s] += g[s] * (ss[k * S + s] / (v * v * v) - dG / v);
          }
      }
    });
  }
  return out;
}

}  // namespace bvi::ad
