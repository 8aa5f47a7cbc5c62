// student_t_glm's packet path (whole SIMD packets of draws, the rest one at a time): with 19 draws
// (packets and a tail at any packet width), nu from 0.6 to 4e4 (d/dnu's series and L - w), a
// residual of exactly 0, and an outlier row where z^2/nu passes 1e16 for some draws (that packet
// and the rest of the row fall back to the scalar loop mid-row): values against the density written
// here (lgamma, log1p: not the code under test), gradients against central differences.
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <random>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_student_t_packets {

using namespace bvi;

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// scipy.stats.t(df = nu, loc = eta, scale = sigma).logpdf(y), written out.
double logpdf(double y, double eta, double sigma, double nu) {
  const double z = (y - eta) / sigma, pi = std::acos(-1.0);
  return std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2) - 0.5 * std::log(nu * pi) - std::log(sigma) -
         (nu + 1) / 2 * std::log1p(z * z / nu);
}

// `outlier`: row 7's response, `large_nu`: every fourth draw's nu (the rest 13.2 down to 0.6, sigma
// 1.7 down to 0.8: at 3e8 z^2/nu passes 1e16 from the second packet on, AVX-512's or AVX's). The two
// apart: a huge nu and a huge residual together make a value whose central differences are noise.
void check_packets(const std::string& name, double outlier, double large_nu, double value_rtol) {
  const Eigen::Index S = 19, m = 40, D = 2;
  std::mt19937_64 rng(91);
  std::normal_distribution<double> normal;
  RowMatrix x(m, D);
  Eigen::VectorXd y(m);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
  for (Eigen::Index n = 0; n < m; ++n) y[n] = normal(rng);
  x.row(3).setZero();
  y[3] = 0.0;  // z = 0 at every draw (no intercept)
  y[7] = outlier;
  Eigen::ArrayXXd beta(S, D), sigma(S, 1), nu(S, 1);
  for (Eigen::Index s = 0; s < S; ++s) {
    beta(s, 0) = 0.3 * normal(rng);
    beta(s, 1) = 0.3 * normal(rng);
    sigma(s, 0) = 1.7 - 0.05 * static_cast<double>(s);
    nu(s, 0) = s % 4 == 3 ? large_nu : 0.6 + 0.7 * static_cast<double>(S - 1 - s);
  }
  ad::GlmRows rows;
  rows.y = y.data();
  rows.rows = m;
  test::check_op(
      name,
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::student_t_glm<double>(nullptr, v[0], v[1], v[2], x.data(), rows);
      },
      [&](const test::Arrays& in) {
        Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(in[0].rows(), 1);
        for (Eigen::Index s = 0; s < in[0].rows(); ++s)
          for (Eigen::Index n = 0; n < m; ++n)
            out(s, 0) +=
                logpdf(y[n], x(n, 0) * in[0](s, 0) + x(n, 1) * in[0](s, 1), in[1](s, 0), in[2](s, 0));
        return out;
      },
      {beta, sigma, nu}, {value_rtol});
}

}  // namespace

TEST_CASE("student_t_glm: packets of draws, a scalar tail and a mid-row fallback") {
  check_packets("z^2 / nu > 1e16 where nu < 9, mid-row", 3e8, 9.0, 1e-13);
  // The reference's lgamma((nu + 1)/2) - lgamma(nu/2) at nu = 2000 is a difference of two numbers
  // near 5900: its rounding, 40 rows of it, is about 1e-12 of the value.
  check_packets("nu = 2000: d/dnu's series where z^2 / nu < 1e-3", 2.5, 2000.0, 1e-11);
}

}  // namespace test_student_t_packets
