#pragma once
// The plumbing every elementwise log density shares (after Stan's operands_and_partials): numpy
// broadcasting of its N inputs, the value on plain doubles, and one backward closure that adds
// partial_k * adjoint, summed back to input k's shape, into each input that needs a gradient.
// A density supplies only its formula and its hand-derived partials, as a kernel
//   double kernel(const double* in, double* d)    // in[N] the inputs of one element
// returning the log density and, when `d` is not null, writing d[k] = d value / d in[k].
//
// A kernel may return early without writing `d` where the value is not finite; the partials
// recorded there follow one rule. Where the value is -inf (x outside the support, or a density
// that underflows to 0) every partial is 0: the log density is flat -inf there, the draw is
// rejected upstream, and zeros keep NaN out of sums over other elements. Where it is NaN (an
// invalid hyperparameter, a NaN input) every partial is NaN, so nothing is silently
// differentiated. (+inf, a density singular at the edge of its support, keeps the kernel's.)
#include <array>
#include <cmath>
#include <limits>

#include "inference/ad/broadcast.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

template <std::size_t N, class Kernel>
Var elementwise_lpdf(const char* op, const std::array<Var, N>& in, Kernel kernel) {
  static_assert(N >= 1);
  Shape s{in[0].rows(), in[0].cols()};
  for (std::size_t k = 1; k < N; ++k)
    s = {broadcast_dim(s.rows, in[k].rows(), op), broadcast_dim(s.cols, in[k].cols(), op)};
  Tape& tape = in[0].tape();
  bool needs_adj = false;
  for (const Var& v : in) needs_adj = needs_adj || v.has_adj();
  Var out = tape.make(s.rows, s.cols, needs_adj);
  double* ov = tape.val_ptr(out);
  const Index n = s.rows * s.cols;

  // Partials are saved for the inputs that need them; the others are computed and dropped.
  std::array<double*, N> partial{};
  for (std::size_t k = 0; k < N; ++k)
    if (in[k].has_adj()) partial[k] = tape.scratch(n);

  std::array<double, N> a{}, d{};
  for (Index j = 0; j < s.cols; ++j) {
    std::array<const double*, N> col;
    std::array<Index, N> step;  // 0 for an input broadcast along the rows
    for (std::size_t k = 0; k < N; ++k) {
      col[k] = bcol(in[k], j);
      step[k] = in[k].rows() == 1 ? 0 : 1;
    }
    for (Index i = 0; i < s.rows; ++i) {
      for (std::size_t k = 0; k < N; ++k) a[k] = col[k][i * step[k]];
      const Index o = j * s.rows + i;
      const double v = kernel(a.data(), needs_adj ? d.data() : nullptr);
      ov[o] = v;
      if (!needs_adj) continue;
      const bool flat = v == -std::numeric_limits<double>::infinity();
      const bool nan = std::isnan(v);
      for (std::size_t k = 0; k < N; ++k)
        if (partial[k]) partial[k][o] = flat ? 0.0 : nan ? std::numeric_limits<double>::quiet_NaN() : d[k];
    }
  }

  if (needs_adj) {
    tape.on_backward([in, partial, out, s] {
      const double* g = out.adj_data();
      for (std::size_t k = 0; k < N; ++k)
        if (partial[k]) {
          const double* p = partial[k];
          accumulate_broadcast(in[k], s, [g, p, s](Index i, Index j) {
            const Index o = j * s.rows + i;
            return g[o] * p[o];
          });
        }
    });
  }
  return out;
}

}  // namespace bvi::ad
