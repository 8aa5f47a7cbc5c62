#include "inference/ad/ops/normal_glm.hpp"

#include <limits>
#include <stdexcept>

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/math/log_ndtr.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct NormalFamily {
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
    for (Index n = 0; n < m; ++n) {
      auto a = eta.col(n);
      z = (rows.y[n] - a) / sd;
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
      ll = -0.5 * zz - wsum * (sd.log() + bvi::math::kLogSqrt2Pi);
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
Var normal_glm(const Var* alpha, const Var& beta, const Var& sigma, const T* x, const GlmRows& rows,
               const Var* extra) {
  if (sigma.rows() != beta.rows() || sigma.cols() != 1)
    throw std::invalid_argument("normal_glm: sigma must be S x 1");
  return glm_detail::glm(alpha, beta, x, rows, NormalFamily{sigma}, extra);
}

template Var normal_glm<double>(const Var*, const Var&, const Var&, const double*, const GlmRows&,
                                const Var*);
template Var normal_glm<float>(const Var*, const Var&, const Var&, const float*, const GlmRows&, const Var*);

}  // namespace bvi::ad
