// The fused logistic primitive through the generic op checker: values against a scalar formula
// written here, gradients against central differences, every subset of (alpha, beta) as
// variables; draw counts around the packet sizes (1, 3, 7, 8, 9, 17 draws), blocks spanning
// several row tiles, no features, no rows, NaN and infinite draws, and float data. Also the
// vectorized log(1 + e) it uses, against std::log1p.
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <random>

#include "inference/ad/ad.hpp"
#include "inference/ad/packet_log1p.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_bernoulli_logit_glm {

// Eigen's packet types as template arguments: see bernoulli_logit_glm.cpp.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

using namespace bvi;
using bvi::test::check_op;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// log sigmoid(v) = -log(1 + e^-v), written so neither branch overflows.
double ref_log_sigmoid(double v) {
  return v >= 0 ? -std::log1p(std::exp(-v)) : v - std::log1p(std::exp(v));
}

struct Block {
  RowMatrix x;  // m x D
  Eigen::VectorXd y;
};

Block random_block(Eigen::Index m, Eigen::Index d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Block b{RowMatrix(m, d), Eigen::VectorXd(m)};
  for (Eigen::Index i = 0; i < m * d; ++i) b.x.data()[i] = normal(rng);
  for (Eigen::Index i = 0; i < m; ++i) b.y[i] = double(rng() & 1);
  return b;
}

Eigen::ArrayXXd random_array(Eigen::Index r, Eigen::Index c, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.5);
  Eigen::ArrayXXd a(r, c);
  for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = normal(rng);
  return a;
}

// out_s = sum_n log sigmoid(t_n (alpha_s + x_n . beta_s)), t_n = 2 y_n - 1, one scalar at a time.
Eigen::ArrayXXd reference(const Block& b, const Eigen::ArrayXXd* alpha, const Eigen::ArrayXXd& beta) {
  Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(beta.rows(), 1);
  for (Eigen::Index s = 0; s < beta.rows(); ++s) {
    double total = 0;
    for (Eigen::Index n = 0; n < b.x.rows(); ++n) {
      double z = alpha ? (*alpha)(s, 0) : 0.0;
      for (Eigen::Index j = 0; j < b.x.cols(); ++j) z += b.x(n, j) * beta(s, j);
      total += ref_log_sigmoid(b.y[n] > 0.5 ? z : -z);
    }
    out(s, 0) = total;
  }
  return out;
}

void check_glm(const std::string& name, const Block& b, Eigen::Index S, const test::CheckOptions& opt = {},
               unsigned seed = 1) {
  const Eigen::Index m = b.x.rows(), D = b.x.cols();
  const Eigen::ArrayXXd alpha = random_array(S, 1, seed), beta = random_array(S, D, seed + 1);
  check_op(
      name + " with intercept",
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::bernoulli_logit_glm<double>(&v[0], v[1], b.x.data(), b.y.data(), m);
      },
      [&](const test::Arrays& in) { return reference(b, &in[0], in[1]); }, {alpha, beta}, opt);
  check_op(
      name,
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::bernoulli_logit_glm<double>(nullptr, v[0], b.x.data(), b.y.data(), m);
      },
      [&](const test::Arrays& in) { return reference(b, nullptr, in[0]); }, {beta}, opt);
}

}  // namespace

TEST_CASE("bernoulli_logit_glm: draw counts around the packet size") {
  const Block b = random_block(37, 4, 3);
  for (Eigen::Index S : {1, 3, 7, 8, 9, 17}) check_glm("S = " + std::to_string(S), b, S);
}

TEST_CASE("bernoulli_logit_glm: blocks of many row tiles, wide and narrow") {
  // Tiles hold about 256 KiB of features and logits: these blocks need several, and a ragged last.
  check_glm("5000 x 3", random_block(5000, 3, 5), 5, {1e-12, 1e-6, 1e-6, true});
  // Logits of order 10 summed over 700 rows: central differences carry ~1e-6 of rounding.
  check_glm("700 x 300", random_block(700, 300, 6), 2, {1e-12, 2e-5, 1e-5, true});
}

TEST_CASE("bernoulli_logit_glm: no features, no rows, one row") {
  check_glm("no features", random_block(6, 0, 7), 3);
  check_glm("no rows", random_block(0, 4, 8), 3);
  check_glm("one row, one feature, one draw", random_block(1, 1, 9), 1);
}

TEST_CASE("bernoulli_logit_glm: NaN and infinite draws give the limits, not garbage") {
  const Block b = random_block(5, 2, 11);
  // Draw 0 is NaN in beta; draws 1 and 2 have an infinite intercept: every logit is +-inf.
  Eigen::ArrayXXd alpha(4, 1), beta = random_array(4, 2, 12);
  alpha << 0.1, inf, -inf, -0.3;
  beta(0, 1) = qnan;
  check_op(
      "special draws",
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::bernoulli_logit_glm<double>(&v[0], v[1], b.x.data(), b.y.data(), 5);
      },
      [&](const test::Arrays& in) { return reference(b, &in[0], in[1]); }, {alpha, beta});
  // Logits of +-1000 (|u| far past where exp(-|u|) underflows): exact limits, finite gradients.
  Eigen::ArrayXXd big(2, 1), zero_beta = Eigen::ArrayXXd::Zero(2, 2);
  big << 1000.0, -1000.0;
  check_op(
      "logits of +-1000",
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::bernoulli_logit_glm<double>(&v[0], v[1], b.x.data(), b.y.data(), 5);
      },
      [&](const test::Arrays& in) { return reference(b, &in[0], in[1]); }, {big, zero_beta});
}

TEST_CASE("bernoulli_logit_glm on float data: single-precision GEMMs, double sums") {
  const Block b = random_block(3000, 7, 13);
  const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> xf = b.x.cast<float>();
  Block as_float = b;  // the reference sees the features the op sees: rounded to float
  as_float.x = xf.cast<double>();
  for (Eigen::Index S : {3, 8, 16, 21}) {
    const Eigen::ArrayXXd alpha = random_array(S, 1, 14), beta = random_array(S, 7, 15);
    // Logits and their transcendental functions in float: relative errors near 1e-7 per row,
    // so the sum over 3000 rows and its central-difference gradient agree to about 1e-5.
    check_op(
        "float, S = " + std::to_string(S),
        [&](ad::Tape&, const std::vector<ad::Var>& v) {
          return ad::bernoulli_logit_glm<float>(&v[0], v[1], xf.data(), b.y.data(), 3000);
        },
        [&](const test::Arrays& in) { return reference(as_float, &in[0], in[1]); }, {alpha, beta},
        {1e-5, 1e-4, 1e-5, true});
  }
}

TEST_CASE("packet_log1p_unit matches std::log1p on [0, 1]") {
  namespace ei = Eigen::internal;
  using PacketD = ei::packet_traits<double>::type;
  using PacketF = ei::packet_traits<float>::type;
  constexpr int WD = ei::unpacket_traits<PacketD>::size, WF = ei::unpacket_traits<PacketF>::size;
  double worst_d = 0, worst_f = 0;
  alignas(64) double ind[WD], outd[WD];
  alignas(64) float inf_[WF], outf[WF];
  // Dense on [0, 1], both sides of the switch at sqrt(2) - 1, the end points, tiny values.
  std::vector<double> es{0.0, 1.0, 1e-300, 1e-17, 1e-8, 0.41421356237309503, 0.41421356237309509, 0.5};
  for (int i = 0; i <= 200000; ++i) es.push_back(i / 200000.0);
  for (std::size_t k = 0; k < es.size(); ++k) {
    for (int l = 0; l < WD; ++l) ind[l] = es[k] * (1 - 1e-7 * l);
    ei::pstore(outd, ad::packet_log1p_unit(ei::pload<PacketD>(ind)));
    for (int l = 0; l < WD; ++l) {
      const double ref = std::log1p(ind[l]);
      worst_d = std::max(worst_d, ref == 0 ? std::abs(outd[l]) : std::abs(outd[l] - ref) / ref);
    }
    for (int l = 0; l < WF; ++l) inf_[l] = float(es[k]) * (1 - 1e-4f * float(l));
    ei::pstore(outf, ad::packet_log1p_unit(ei::pload<PacketF>(inf_)));
    for (int l = 0; l < WF; ++l) {
      const double ref = std::log1p(double(inf_[l]));
      worst_f = std::max(worst_f, ref == 0 ? std::abs(double(outf[l])) : std::abs(outf[l] - ref) / ref);
    }
  }
  CHECK(worst_d <= 4e-16);
  CHECK(worst_f <= 3e-7);
  for (int l = 0; l < WD; ++l) ind[l] = qnan;
  ei::pstore(outd, ad::packet_log1p_unit(ei::pload<PacketD>(ind)));
  CHECK(std::isnan(outd[0]));
}

}  // namespace test_bernoulli_logit_glm
