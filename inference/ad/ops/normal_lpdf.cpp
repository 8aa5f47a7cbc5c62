#include "inference/ad/ops/normal_lpdf.hpp"

#include <cmath>
#include <limits>

#include "inference/ad/broadcast.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

namespace {
constexpr double kHalfLog2Pi = 0.91893853320467274178;  // 0.5 * log(2 pi)
}

Var normal_lpdf(const Var& y, const Var& mu, const Var& sigma) {
  const Shape s = broadcast_shape(y, mu, sigma, "normal_lpdf");
  Tape& tape = y.tape();
  Var out = tape.make(s.rows, s.cols, any_adj(y, mu, sigma));
  double* ov = tape.val_ptr(out);
  // z is saved for the backward pass.
  double* z = out.has_adj() ? tape.scratch(s.rows * s.cols) : nullptr;
  for (Index j = 0; j < s.cols; ++j) {
    for (Index i = 0; i < s.rows; ++i) {
      const double sd = bval(sigma, i, j);
      const double zi = (bval(y, i, j) - bval(mu, i, j)) / sd;
      const double v =
          sd > 0.0 ? -0.5 * zi * zi - std::log(sd) - kHalfLog2Pi : std::numeric_limits<double>::quiet_NaN();
      ov[j * s.rows + i] = v;
      if (z) z[j * s.rows + i] = zi;
    }
  }
  if (out.has_adj()) {
    tape.on_backward([y, mu, sigma, out, z, s] {
      const double* g = out.adj_data();
      auto at = [s](Index i, Index j) { return j * s.rows + i; };
      if (y.has_adj())
        accumulate_broadcast(
            y, s, [&](Index i, Index j) { return -g[at(i, j)] * z[at(i, j)] / bval(sigma, i, j); });
      if (mu.has_adj())
        accumulate_broadcast(mu, s,
                             [&](Index i, Index j) { return g[at(i, j)] * z[at(i, j)] / bval(sigma, i, j); });
      if (sigma.has_adj())
        accumulate_broadcast(sigma, s, [&](Index i, Index j) {
          const double zz = z[at(i, j)];
          return g[at(i, j)] * (zz * zz - 1.0) / bval(sigma, i, j);
        });
    });
  }
  return out;
}

}  // namespace bvi::ad
