#include "inference/ad/ops/neg_binomial_2_log_glm.hpp"

#include <limits>
#include <stdexcept>

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/ad/ops/neg_binomial_2_log_kernel.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct NegBinomial2LogFamily {
  Var phi;                 // S x 1
  double* dphi = nullptr;  // d out_s / d phi_s, saved by forward() for backward()

  template <class T>
  using Compute = double;

  bool has_adj() const { return phi.has_adj(); }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows;
    const double* ph = phi.val_data();
    ll.setZero();
    const bool want_phi = grad && phi.has_adj();
    if (want_phi) {
      dphi = arena_array<double>(tape, S);
      std::fill(dphi, dphi + S, 0.0);
    }
    // Row by row (eta is column-major, one column per row), every draw of the row at once.
    double d[2];
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n];
      const double c = rows.log_constant ? rows.log_constant[n] : -bvi::math::log_factorial(y);
      for (Index s = 0; s < S; ++s) {
        C& e = eta(s, n);
        ll[s] += detail::neg_binomial_2_log(y, static_cast<double>(e), ph[s], c, grad ? d : nullptr);
        if (!grad) continue;
        e = static_cast<C>(d[0]);
        if (want_phi) dphi[s] += d[1];
      }
    }
  }

  void backward(const double* dout) const {
    if (!phi.has_adj()) return;
    Eigen::Map<Eigen::ArrayXd>(phi.adj_data(), phi.rows()) +=
        Eigen::Map<const Eigen::ArrayXd>(dout, phi.rows()) * Eigen::Map<const Eigen::ArrayXd>(dphi, phi.rows());
  }
};

}  // namespace

template <class T>
Var neg_binomial_2_log_glm(const Var* alpha, const Var& beta, const Var& phi, const T* x, const GlmRows& rows,
                           const Var* extra) {
  if (phi.rows() != beta.rows() || phi.cols() != 1)
    throw std::invalid_argument("neg_binomial_2_log_glm: phi must be S x 1");
  return glm_detail::glm(alpha, beta, x, rows, NegBinomial2LogFamily{phi}, extra);
}

template Var neg_binomial_2_log_glm<double>(const Var*, const Var&, const Var&, const double*, const GlmRows&,
                                            const Var*);
template Var neg_binomial_2_log_glm<float>(const Var*, const Var&, const Var&, const float*, const GlmRows&,
                                           const Var*);

}  // namespace bvi::ad
