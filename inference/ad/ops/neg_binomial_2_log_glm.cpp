#include "inference/ad/ops/neg_binomial_2_log_glm.hpp"

#include <limits>
#include <stdexcept>

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/ad/ops/neg_binomial_2_log_kernel.hpp"
#include "inference/ad/packet_log1p.hpp"

// Packet types carry alignment attributes that template arguments drop; harmless here.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct NegBinomial2LogFamily {
  Var phi;                 // S x 1
  double* dphi = nullptr;  // d out_s / d phi_s, saved by forward() for backward()

  template <class T>
  using Compute = double;

  bool has_adj() const { return phi.has_adj(); }

  // Row by row (eta is column-major, one column per row), every draw of the row at once as
  // arrays: log phi once per draw, exp and log1p on whole packets (the kernel's formula,
  // neg_binomial_2_log_kernel.hpp, vectorized; the scalar kernel is the composed path's).
  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    namespace ei = Eigen::internal;
    using Packet = ei::packet_traits<double>::type;
    constexpr Index W = ei::unpacket_traits<Packet>::size;
    const Index S = eta.rows(), m = rows.rows;
    Eigen::Map<const Eigen::ArrayXd> ph(phi.val_data(), S);
    Eigen::Map<Eigen::ArrayXd> log_phi(arena_array<double>(tape, S), S), x(arena_array<double>(tape, S), S),
        e(arena_array<double>(tape, S), S), sp(arena_array<double>(tape, S), S);
    // phi <= 0 (or NaN) makes every row's value NaN, as the scalar kernel does.
    log_phi = (ph > 0.0).select(ph.log(), std::numeric_limits<double>::quiet_NaN());
    ll.setZero();
    const bool want_phi = grad && phi.has_adj();
    // R(y, phi) = log prod_{j<y} (phi + j) for every draw at once while the product cannot
    // overflow (y <= 64 factors, each below 1e4 + 64: under 1e257), one vectorized log per draw;
    // R1 = sum_j 1 / (phi + j) likewise. Otherwise the scalar log_rising_factorial per draw.
    const bool vector_rising = S > 0 && (ph > 0.0).all() && ph.maxCoeff() <= 1e4;
    Eigen::Map<Eigen::ArrayXd> prod(arena_array<double>(tape, S), S), inv(arena_array<double>(tape, S), S);
    Eigen::Map<Eigen::ArrayXd> dp(want_phi ? arena_array<double>(tape, S) : nullptr, want_phi ? S : 0);
    if (want_phi) {
      dphi = dp.data();
      dp.setZero();
    }
    double constant = 0.0;
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n], w = row_weight(rows, n);
      constant += w * (rows.log_constant ? rows.log_constant[n] : -bvi::math::log_factorial(y));
      auto a = eta.col(n);
      x = a.template cast<double>() - log_phi;
      e = (-x.abs()).exp();
      // softplus(x) = max(x, 0) + log1p(e), e = exp(-|x|) in [0, 1]
      Index s = 0;
      for (; s + W <= S; s += W)
        ei::pstoreu(sp.data() + s,
                    ei::padd(ei::pmax(ei::ploadu<Packet>(x.data() + s), ei::pset1<Packet>(0.0)),
                             packet_log1p_unit(ei::ploadu<Packet>(e.data() + s))));
      for (; s < S; ++s) sp[s] = std::max(x[s], 0.0) + std::log1p(e[s]);
      // y d is left out for y = 0 (xlogy), so eta = -inf gives 0 there.
      if (y != 0.0)
        ll += w * (y * x - (y + ph) * sp);
      else
        ll -= w * (ph * sp);
      if (y != 0.0 && vector_rising && y <= bvi::math::kRisingDirect) {
        prod = ph;
        if (want_phi) inv = ph.inverse();
        for (double j = 1.0; j < y; j += 1.0) {
          prod *= ph + j;
          if (want_phi) inv += (ph + j).inverse();
        }
        ll += w * prod.log();
        if (want_phi) dp += w * inv;
      } else if (y != 0.0) {
        for (s = 0; s < S; ++s) {
          const bvi::math::RisingFactorial r = bvi::math::log_rising_factorial(y, ph[s], want_phi);
          ll[s] += w * r.value;
          if (want_phi) dp[s] += w * r.d1;
        }
      }
      if (!grad) continue;
      // sigmoid(x) = 1/(1 + e) for x >= 0, e/(1 + e) below; d/deta = y - (y + phi) sigmoid(x),
      // d/dphi = R1 - y/phi - softplus(x) + (y + phi) sigmoid(x) / phi.
      for (s = 0; s < S; ++s) {
        const double inv = 1.0 / (1.0 + e[s]), sig = x[s] >= 0.0 ? inv : e[s] * inv;
        const double g = y - (y + ph[s]) * sig;
        a[s] = static_cast<C>(g);
        if (want_phi) dp[s] += w * ((sig - sp[s]) - (y - y * sig) / ph[s]);
      }
    }
    ll += constant;
  }

  void backward(const double* dout) const {
    if (!phi.has_adj()) return;
    Eigen::Map<Eigen::ArrayXd>(phi.adj_data(), phi.rows()) +=
        Eigen::Map<const Eigen::ArrayXd>(dout, phi.rows()) *
        Eigen::Map<const Eigen::ArrayXd>(dphi, phi.rows());
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
