#include "inference/ad/ops/lognormal_glm.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/math/constants.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

// normal_glm's family on log y, with the Jacobian -log y summed once per block.
struct LognormalFamily {
  Var sigma;                 // S x 1
  double* dsigma = nullptr;  // d out_s / d sigma_s, saved by forward() for backward()

  template <class T>
  using Compute = double;

  bool has_adj() const { return sigma.has_adj(); }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows;
    Eigen::Map<const Eigen::ArrayXd> sd(sigma.val_data(), S);
    Eigen::Map<Eigen::ArrayXd> z(arena_array<double>(tape, S), S);
    Eigen::Map<Eigen::ArrayXd> zz(arena_array<double>(tape, S), S);  // sum_n z^2
    zz.setZero();
    double wsum = 0.0;  // sum_n w_n: m without weights
    double jacobian = 0.0;  // sum_n -log y_n
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n];
      // -log y from the precomputed constants; log(0) = -inf, log(negative) = NaN: both
      // become -inf below, as scipy's logpdf outside the support.
      const double neg_log_y = rows.log_constant ? rows.log_constant[n] : -std::log(y);
      jacobian += y > 0.0 ? row_weight(rows, n) * neg_log_y : -std::numeric_limits<double>::infinity();
      const double ly = y > 0.0 ? -neg_log_y : 0.0;
      auto a = eta.col(n);
      z = (ly - a) / sd;
      const double w = row_weight(rows, n);
      wsum += w;
      // Unweighted, the old statement: w z^2 would round z^2 before the add that z * z + zz
      // contracts into one fma, and change the bits of unweighted fits.
      if (rows.weight)
        zz += w * z.square();
      else
        zz += z.square();
      if (grad) a = z / sd;
    }
    if (m == 0) {
      ll.setZero();
    } else {
      ll = -0.5 * zz - wsum * (sd.log() + bvi::math::kHalfLog2Pi) + jacobian;
      ll = (sd > 0.0).select(ll, std::numeric_limits<double>::quiet_NaN());
    }
    if (grad && sigma.has_adj()) {
      dsigma = arena_array<double>(tape, S);
      Eigen::Map<Eigen::ArrayXd>(dsigma, S) = (zz - wsum) / sd;
    }
  }

  void backward(const double* dout) const {
    if (!sigma.has_adj()) return;
    Eigen::Map<Eigen::ArrayXd>(sigma.adj_data(), sigma.rows()) +=
        Eigen::Map<const Eigen::ArrayXd>(dout, sigma.rows()) *
        Eigen::Map<const Eigen::ArrayXd>(dsigma, sigma.rows());
  }
};

}  // namespace

template <class T>
Var lognormal_glm(const Var* alpha, const Var& beta, const Var& sigma, const T* x, const GlmRows& rows,
                  const Var* extra) {
  if (sigma.rows() != beta.rows() || sigma.cols() != 1)
    throw std::invalid_argument("lognormal_glm: sigma must be S x 1");
  return glm_detail::glm(alpha, beta, x, rows, LognormalFamily{sigma}, extra);
}

template Var lognormal_glm<double>(const Var*, const Var&, const Var&, const double*, const GlmRows&,
                                   const Var*);
template Var lognormal_glm<float>(const Var*, const Var&, const Var&, const float*, const GlmRows&,
                                  const Var*);

}  // namespace bvi::ad
