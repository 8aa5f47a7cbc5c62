// Every fused GLM likelihood with the optional extra S x m linear-predictor term (the group-level
// effects): values against one scalar formula per family written here, gradients with respect
// to alpha, beta, the extra term and sigma against central differences; the tiled logistic op
// over several row tiles (the extra term's gradient is copied out tile by tile), float data, and
// an extra term of the wrong shape (throws).
#include <Eigen/Core>
#include <cmath>
#include <random>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_glm_extra_eta {

using namespace bvi;
using bvi::test::check_op;

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
enum class Family { logit, probit, binomial, poisson, normal };
const Family kFamilies[] = {Family::logit, Family::probit, Family::binomial, Family::poisson, Family::normal};

struct Block {
  RowMatrix x;
  Eigen::VectorXd y, trials;
};

Block random_block(Family f, Eigen::Index m, Eigen::Index d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Block b{RowMatrix(m, d), Eigen::VectorXd(m), Eigen::VectorXd(m)};
  for (Eigen::Index i = 0; i < m * d; ++i) b.x.data()[i] = normal(rng) / std::sqrt(double(d));
  for (Eigen::Index n = 0; n < m; ++n) {
    b.trials[n] = double(rng() % 10);
    if (f == Family::logit || f == Family::probit) b.y[n] = double(rng() & 1);
    if (f == Family::binomial) b.y[n] = double(rng() % (unsigned long)(b.trials[n] + 1));
    if (f == Family::poisson) b.y[n] = double(rng() % 7);
    if (f == Family::normal) b.y[n] = 1.5 * normal(rng);
  }
  return b;
}

double log_sigmoid(double v) {
  return v >= 0 ? -std::log1p(std::exp(-v)) : v - std::log1p(std::exp(v));
}

double ref_row(Family f, double y, double trials, double eta, double sigma) {
  switch (f) {
    case Family::logit:
      return log_sigmoid(y > 0.5 ? eta : -eta);
    case Family::probit:
      return std::log(0.5 * std::erfc(-(y > 0.5 ? eta : -eta) / std::sqrt(2.0)));
    case Family::binomial:
      return std::lgamma(trials + 1) - std::lgamma(y + 1) - std::lgamma(trials - y + 1) +
             y * log_sigmoid(eta) + (trials - y) * log_sigmoid(-eta);
    case Family::poisson:
      return y * eta - std::exp(eta) - std::lgamma(y + 1);
    case Family::normal: {
      const double z = (y - eta) / sigma;
      return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * M_PI);
    }
  }
  return 0;
}

// in = {alpha, beta, extra[, sigma]}.
Eigen::ArrayXXd reference(Family f, const Block& b, const test::Arrays& in) {
  const Eigen::ArrayXXd &alpha = in[0], &beta = in[1], &extra = in[2];
  if (extra.rows() != beta.rows() || extra.cols() != b.x.rows()) throw std::invalid_argument("shape");
  Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(beta.rows(), 1);
  for (Eigen::Index s = 0; s < beta.rows(); ++s)
    for (Eigen::Index n = 0; n < b.x.rows(); ++n) {
      double eta = alpha(s, 0) + extra(s, n);
      for (Eigen::Index j = 0; j < b.x.cols(); ++j) eta += b.x(n, j) * beta(s, j);
      out(s, 0) += ref_row(f, b.y[n], b.trials[n], eta, f == Family::normal ? in[3](s, 0) : 1.0);
    }
  return out;
}

template <class T>
test::AdFn op(Family f, const Block& b, const Eigen::Matrix<T, -1, -1, Eigen::RowMajor>& x) {
  return [f, &b, &x](ad::Tape&, const std::vector<ad::Var>& v) {
    ad::GlmRows rows;
    rows.y = b.y.data();
    rows.trials = b.trials.data();
    rows.rows = b.y.size();
    const ad::Var* alpha = &v[0];
    switch (f) {
      case Family::logit:
        return ad::bernoulli_logit_glm<T>(alpha, v[1], x.data(), b.y.data(), rows.rows, &v[2]);
      case Family::probit:
        return ad::bernoulli_probit_glm<T>(alpha, v[1], x.data(), rows, &v[2]);
      case Family::binomial:
        return ad::binomial_logit_glm<T>(alpha, v[1], x.data(), rows, &v[2]);
      case Family::poisson:
        return ad::poisson_log_glm<T>(alpha, v[1], x.data(), rows, &v[2]);
      case Family::normal:
        return ad::normal_glm<T>(alpha, v[1], v[3], x.data(), rows, &v[2]);
    }
    throw std::logic_error("family");
  };
}

Eigen::ArrayXXd normal_array(Eigen::Index r, Eigen::Index c, unsigned seed, double sd) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, sd);
  Eigen::ArrayXXd a(r, c);
  for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = normal(rng);
  return a;
}

test::Arrays inputs(Family f, Eigen::Index S, Eigen::Index m, Eigen::Index d, unsigned seed) {
  test::Arrays in = {normal_array(S, 1, seed, 0.5), normal_array(S, d, seed + 1, 0.5),
                     normal_array(S, m, seed + 2, 0.7)};
  if (f == Family::normal) in.push_back(0.6 + normal_array(S, 1, seed + 3, 0.2).abs());
  return in;
}

}  // namespace

TEST_CASE("fused GLM ops add an extra linear-predictor term and return its gradient") {
  for (Family f : kFamilies) {
    for (Eigen::Index S : {1, 3, 9}) {
      const Block b = random_block(f, 7, 3, 11 + unsigned(S));
      const test::Arrays in = inputs(f, S, 7, 3, 5 + unsigned(S));
      INFO("family " << int(f) << ", S = " << S);
      check_op("glm + extra", op<double>(f, b, b.x),
               [&](const test::Arrays& x) { return reference(f, b, x); }, in, {1e-12, 1e-6, 1e-6, true});
      // Float features: the reference sees them rounded.
      const Eigen::Matrix<float, -1, -1, Eigen::RowMajor> xf = b.x.cast<float>();
      Block rounded = b;
      rounded.x = xf.cast<double>();
      check_op("glm + extra, float", op<float>(f, b, xf),
               [&](const test::Arrays& x) { return reference(f, rounded, x); }, in, {2e-5, 1e-3, 1e-6, true});
    }
  }
}

TEST_CASE("the tiled logistic op keeps the extra term's gradient across row tiles") {
  // 2000 features make 16-row tiles: 50 rows span four of them. beta stays constant (its
  // central differences would be 10^5 reference evaluations); alpha and the extra term vary.
  const Block b = random_block(Family::logit, 50, 2000, 3);
  for (Eigen::Index S : {2, 9}) {
    const test::Arrays in = inputs(Family::logit, S, 50, 2000, 7);
    test::CheckOptions opt{1e-12, 1e-6, 1e-6, true};
    opt.variable_inputs = 0b101;
    check_op(
        "logit tiles + extra", op<double>(Family::logit, b, b.x),
        [&](const test::Arrays& x) { return reference(Family::logit, b, x); }, in, opt);
  }
}

TEST_CASE("an extra term of the wrong shape throws") {
  for (Family f : kFamilies) {
    const Block b = random_block(f, 4, 2, 1);
    test::Arrays in = inputs(f, 3, 4, 2, 1);
    in[2] = Eigen::ArrayXXd::Zero(3, 5);
    check_op(
        "extra 3 x 5 for 4 rows", op<double>(f, b, b.x),
        [&](const test::Arrays& x) { return reference(f, b, x); }, in);
  }
}

}  // namespace test_glm_extra_eta
