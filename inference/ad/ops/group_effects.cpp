#include "inference/ad/ops/group_effects.hpp"

#include <stdexcept>
#include <string>

#include "inference/ad/arena_values.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

template <class T>
Var group_effects(const GroupTermRows<T>* terms, int n_terms, Index rows) {
  if (n_terms < 1) throw std::invalid_argument("group_effects: no terms");
  const Index S = terms[0].r.rows(), m = rows;
  Tape& tape = terms[0].r.tape();
  bool needs_adj = false;
  for (int f = 0; f < n_terms; ++f) {
    const GroupTermRows<T>& t = terms[f];
    const Index K = t.effects();
    if (t.r.rows() != S) throw std::invalid_argument("group_effects: every r needs the same draws");
    if (K < 1 || t.r.cols() % K != 0)
      throw std::invalid_argument("group_effects: r has " + std::to_string(t.r.cols()) +
                                  " columns, not a multiple of " + std::to_string(K) + " effects");
    const Index G = t.r.cols() / K;
    for (Index n = 0; n < m; ++n)
      if (t.level[n] < 0 || t.level[n] >= G)
        throw std::invalid_argument("group_effects: level " + std::to_string(t.level[n]) + " outside [0, " +
                                    std::to_string(G) + ")");
    needs_adj = needs_adj || t.r.has_adj();
  }
  Var out = tape.make(S, m, needs_adj);
  double* o = tape.val_ptr(out);
  std::fill(o, o + S * m, 0.0);
  for (int f = 0; f < n_terms; ++f) {
    const GroupTermRows<T>& t = terms[f];
    const Index K = t.effects(), J = t.n_slopes, first_slope = t.intercept ? 1 : 0;
    const double* r = t.r.val_data();
    for (Index n = 0; n < m; ++n) {
      double* on = o + n * S;
      const double* rg = r + static_cast<Index>(t.level[n]) * K * S;  // column g K of r
      if (t.intercept)
        for (Index s = 0; s < S; ++s) on[s] += rg[s];
      for (Index j = 0; j < J; ++j) {
        const double z = static_cast<double>(t.slopes[n * J + j]);
        const double* rk = rg + (first_slope + j) * S;
        for (Index s = 0; s < S; ++s) on[s] += z * rk[s];
      }
    }
  }
  if (needs_adj) {
    // The terms are copied to the arena: the caller's array may be reused for the next block.
    GroupTermRows<T>* saved =
        tape.arena().template allocate_array<GroupTermRows<T>>(static_cast<std::size_t>(n_terms));
    for (int f = 0; f < n_terms; ++f) saved[f] = terms[f];
    tape.on_backward([saved, n_terms, out, S, m] {
      const double* g = out.adj_data();
      for (int f = 0; f < n_terms; ++f) {
        const GroupTermRows<T>& t = saved[f];
        if (!t.r.has_adj()) continue;
        const Index K = t.effects(), J = t.n_slopes, first_slope = t.intercept ? 1 : 0;
        double* dr = t.r.adj_data();
        for (Index n = 0; n < m; ++n) {
          const double* gn = g + n * S;
          double* drg = dr + static_cast<Index>(t.level[n]) * K * S;
          if (t.intercept)
            for (Index s = 0; s < S; ++s) drg[s] += gn[s];
          for (Index j = 0; j < J; ++j) {
            const double z = static_cast<double>(t.slopes[n * J + j]);
            double* drk = drg + (first_slope + j) * S;
            for (Index s = 0; s < S; ++s) drk[s] += z * gn[s];
          }
        }
      }
    });
  }
  return out;
}

template Var group_effects<double>(const GroupTermRows<double>*, int, Index);
template Var group_effects<float>(const GroupTermRows<float>*, int, Index);

}  // namespace bvi::ad
