#include "inference/ad/ops/ordinal_lpmf.hpp"

#include <stdexcept>

#include "inference/ad/arena_values.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

Var ordinal_lpmf(const double* y, const Var& eta, const Var& cutpoints, OrdinalLink link) {
  const Index S = eta.rows(), m = eta.cols(), J = cutpoints.cols();
  if (cutpoints.rows() != S || J < 1) throw std::invalid_argument("ordinal_lpmf: cutpoints must be S x (K - 1), K >= 2");
  const int K = static_cast<int>(J + 1);
  Tape& tape = eta.tape();
  const bool adj = eta.has_adj() || cutpoints.has_adj();
  Var out = tape.make(S, m, adj);
  double* o = tape.val_ptr(out);
  const double* e = eta.val_data();
  const double* c = cutpoints.val_data();
  // Per element: d/deta, d/dc_{k-1}, d/dc_k, saved for the backward pass.
  double* d = adj ? tape.scratch(3 * S * m) : nullptr;
  int* cat = adj ? arena_array<int>(tape, m) : nullptr;
  for (Index n = 0; n < m; ++n) {
    const int k0 = static_cast<int>(y[n]) - 1;
    if (!(y[n] >= 1 && y[n] <= K && static_cast<double>(k0 + 1) == y[n]))
      throw std::invalid_argument("ordinal_lpmf: a category outside 1 ... K");
    if (cat) cat[n] = k0;
    for (Index s = 0; s < S; ++s) {
      const Index i = n * S + s;
      o[i] = detail::ordinal_term(link, k0, K, c + s, S, e[i], d ? d + 3 * i : nullptr, d ? d + 3 * i + 1 : nullptr,
                                  d ? d + 3 * i + 2 : nullptr);
    }
  }
  if (adj)
    tape.on_backward([eta, cutpoints, out, d, cat, S, m, K] {
      const double* g = out.adj_data();
      double* ge = eta.has_adj() ? eta.adj_data() : nullptr;
      double* gc = cutpoints.has_adj() ? cutpoints.adj_data() : nullptr;
      for (Index n = 0; n < m; ++n)
        for (Index s = 0; s < S; ++s) {
          const Index i = n * S + s;
          if (ge) ge[i] += g[i] * d[3 * i];
          if (!gc) continue;
          if (cat[n] > 0) gc[(cat[n] - 1) * S + s] += g[i] * d[3 * i + 1];
          if (cat[n] < K - 1) gc[cat[n] * S + s] += g[i] * d[3 * i + 2];
        }
    });
  return out;
}

}  // namespace bvi::ad
