#include "inference/ad/ops/ordinal_glm.hpp"

#include <stdexcept>

#include "inference/ad/ops/glm_kernel.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct OrdinalFamily {
  Var cutpoints;             // S x (K - 1)
  detail::OrdinalLink link;
  double* dcut = nullptr;    // d out_s / d c_sj, S x (K - 1), saved by forward() for backward()

  template <class T>
  using Compute = double;

  bool has_adj() const { return cutpoints.has_adj(); }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows, J = cutpoints.cols();
    const int K = static_cast<int>(J + 1);
    const double* c = cutpoints.val_data();
    const bool want_cut = grad && cutpoints.has_adj();
    if (want_cut) {
      dcut = arena_array<double>(tape, S * J);
      for (Index i = 0; i < S * J; ++i) dcut[i] = 0.0;
    }
    ll.setZero();
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n];
      const int k0 = static_cast<int>(y) - 1;
      if (!(y >= 1 && y <= K && static_cast<double>(k0 + 1) == y))
        throw std::invalid_argument("ordinal_glm: a category outside 1 ... K");
      // Row weights: the row's value and its cutpoint gradients times w_n (the kernel weights
      // dl/deta).
      const double wt = row_weight(rows, n);
      auto e = eta.col(n);
      for (Index s = 0; s < S; ++s) {
        double de = 0.0, dlo = 0.0, dhi = 0.0;
        ll[s] += wt * detail::ordinal_term(link, k0, K, c + s, S, static_cast<double>(e[s]), grad ? &de : nullptr,
                                      &dlo, &dhi);
        if (!grad) continue;
        e[s] = static_cast<C>(de);
        if (!want_cut) continue;
        if (k0 > 0) dcut[(k0 - 1) * S + s] += wt * dlo;
        if (k0 < K - 1) dcut[k0 * S + s] += wt * dhi;
      }
    }
  }

  void backward(const double* dout) const {
    if (!cutpoints.has_adj()) return;
    const Index S = cutpoints.rows();
    cutpoints.adj() += Eigen::Map<const Eigen::ArrayXXd>(dcut, S, cutpoints.cols()).colwise() *
                       Eigen::Map<const Eigen::ArrayXd>(dout, S);
  }
};

}  // namespace

template <class T>
Var ordinal_glm(const Var* alpha, const Var& beta, const Var& cutpoints, const T* x, const GlmRows& rows,
                detail::OrdinalLink link, const Var* extra) {
  if (cutpoints.rows() != beta.rows() || cutpoints.cols() < 1)
    throw std::invalid_argument("ordinal_glm: cutpoints must be S x (K - 1), K >= 2");
  return glm_detail::glm(alpha, beta, x, rows, OrdinalFamily{cutpoints, link}, extra);
}

template Var ordinal_glm<double>(const Var*, const Var&, const Var&, const double*, const GlmRows&,
                                 detail::OrdinalLink, const Var*);
template Var ordinal_glm<float>(const Var*, const Var&, const Var&, const float*, const GlmRows&,
                                detail::OrdinalLink, const Var*);

}  // namespace bvi::ad
