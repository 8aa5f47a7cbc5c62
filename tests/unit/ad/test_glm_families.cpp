// The fused GLM primitives of the new likelihoods (bernoulli_probit, binomial_logit, poisson_log,
// normal, negative binomial, lognormal, gamma, beta) through the generic op checker: values against scalar formulas written here (erfc,
// lgamma, exp: not the code under test), gradients against central differences, every subset of
// (alpha, beta[, sigma or phi]) as variables; draw counts around the packet size, offsets, no features,
// no rows, float data, and the numerical edges (probit at |eta| = 40, poisson's exp overflow,
// binomial with y = 0 or y = n at infinite logits).
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <random>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_glm_families {

using namespace bvi;
using bvi::test::check_op;

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
enum class Family { probit, binomial, poisson, normal, negbin, lognormal, gamma, beta };

struct Block {
  RowMatrix x;  // m x D
  Eigen::VectorXd y, trials, offset;
};

Block random_block(Family f, Eigen::Index m, Eigen::Index d, unsigned seed, bool with_offset = false) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Block b{RowMatrix(m, d), Eigen::VectorXd(m), Eigen::VectorXd(m), Eigen::VectorXd()};
  for (Eigen::Index i = 0; i < m * d; ++i) b.x.data()[i] = normal(rng);
  for (Eigen::Index n = 0; n < m; ++n) {
    b.trials[n] = double(rng() % 12);
    switch (f) {
      case Family::probit:
        b.y[n] = double(rng() & 1);
        break;
      case Family::binomial:
        b.y[n] = double(rng() % (unsigned long)(b.trials[n] + 1));
        break;
      case Family::poisson:
        b.y[n] = double(rng() % 9);
        break;
      case Family::negbin:  // overdispersed: mostly small, some large
        b.y[n] = double(rng() % 4 == 0 ? rng() % 90 : rng() % 5);
        break;
      case Family::normal:
        b.y[n] = 2.0 * normal(rng);
        break;
      case Family::lognormal:  // positive, over several magnitudes
      case Family::gamma:
        b.y[n] = std::exp(1.5 * normal(rng));
        break;
      case Family::beta:  // in (0, 1)
        b.y[n] = 1.0 / (1.0 + std::exp(-1.5 * normal(rng)));
        break;
    }
  }
  if (with_offset) {
    b.offset.resize(m);
    for (Eigen::Index n = 0; n < m; ++n) b.offset[n] = 0.3 * normal(rng);
  }
  return b;
}

Eigen::ArrayXXd random_array(Eigen::Index r, Eigen::Index c, unsigned seed, double sd = 0.5) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, sd);
  Eigen::ArrayXXd a(r, c);
  for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = normal(rng);
  return a;
}

// log Phi(u) from erfc, fine for the moderate logits of these tests (|u| < 20).
double ref_log_Phi(double u) {
  return std::log(0.5 * std::erfc(-u / std::sqrt(2.0)));
}
double ref_log_sigmoid(double v) {
  return v >= 0 ? -std::log1p(std::exp(-v)) : v - std::log1p(std::exp(v));
}

// One row's log density with every constant, as scipy.stats writes it.
double ref_row(Family f, double y, double trials, double eta, double sigma) {
  switch (f) {
    case Family::probit:
      return ref_log_Phi(y > 0.5 ? eta : -eta);
    case Family::binomial:
      return std::lgamma(trials + 1) - std::lgamma(y + 1) - std::lgamma(trials - y + 1) +
             y * ref_log_sigmoid(eta) + (trials - y) * ref_log_sigmoid(-eta);
    case Family::poisson:
      return y * eta - std::exp(eta) - std::lgamma(y + 1);
    case Family::normal: {
      const double z = (y - eta) / sigma;
      return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * M_PI);
    }
    case Family::negbin: {  // scipy.stats.nbinom(n = phi, p = phi / (phi + mu)), sigma holding phi
      const double phi = sigma, mu = std::exp(eta);
      return std::lgamma(y + phi) - std::lgamma(phi) - std::lgamma(y + 1) + phi * std::log(phi / (phi + mu)) +
             y * std::log(mu / (phi + mu));
    }
    case Family::lognormal: {  // scipy.stats.lognorm(s = sigma, scale = exp(eta)).logpdf(y)
      const double z = (std::log(y) - eta) / sigma;
      return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * M_PI) - std::log(y);
    }
    case Family::gamma: {  // scipy.stats.gamma(a = shape, scale = mu / shape).logpdf(y), sigma holding the shape
      const double a = sigma, scale = std::exp(eta) / a;
      return -std::lgamma(a) - a * std::log(scale) + (a - 1) * std::log(y) - y / scale;
    }
    case Family::beta: {  // scipy.stats.beta(mu phi, (1 - mu) phi).logpdf(y), sigma holding phi
      const double mu = 1.0 / (1.0 + std::exp(-eta)), a = mu * sigma, b = (1.0 - mu) * sigma;
      return std::lgamma(sigma) - std::lgamma(a) - std::lgamma(b) + (a - 1) * std::log(y) + (b - 1) * std::log1p(-y);
    }
  }
  return 0;
}

// in = {alpha?, beta, sigma?}: out_s = sum_n ref_row(y_n, eta_sn).
Eigen::ArrayXXd reference(Family f, const Block& b, const Eigen::ArrayXXd* alpha, const Eigen::ArrayXXd& beta,
                          const Eigen::ArrayXXd* sigma) {
  Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(beta.rows(), 1);
  for (Eigen::Index s = 0; s < beta.rows(); ++s)
    for (Eigen::Index n = 0; n < b.x.rows(); ++n) {
      double eta = (alpha ? (*alpha)(s, 0) : 0.0) + (b.offset.size() ? b.offset[n] : 0.0);
      for (Eigen::Index j = 0; j < b.x.cols(); ++j) eta += b.x(n, j) * beta(s, j);
      out(s, 0) += ref_row(f, b.y[n], b.trials[n], eta, sigma ? (*sigma)(s, 0) : 1.0);
    }
  return out;
}

ad::GlmRows rows_of(const Block& b) {
  ad::GlmRows r;
  r.y = b.y.data();
  r.trials = b.trials.data();
  r.offset = b.offset.size() ? b.offset.data() : nullptr;
  r.rows = b.y.size();
  return r;
}

template <class T>
ad::Var call(Family f, const ad::Var* alpha, const ad::Var& beta, const ad::Var* sigma, const T* x,
             const ad::GlmRows& r) {
  switch (f) {
    case Family::probit:
      return ad::bernoulli_probit_glm<T>(alpha, beta, x, r);
    case Family::binomial:
      return ad::binomial_logit_glm<T>(alpha, beta, x, r);
    case Family::poisson:
      return ad::poisson_log_glm<T>(alpha, beta, x, r);
    case Family::normal:
      return ad::normal_glm<T>(alpha, beta, *sigma, x, r);
    case Family::negbin:
      return ad::neg_binomial_2_log_glm<T>(alpha, beta, *sigma, x, r);
    case Family::lognormal:
      return ad::lognormal_glm<T>(alpha, beta, *sigma, x, r);
    case Family::gamma:
      return ad::gamma_log_glm<T>(alpha, beta, *sigma, x, r);
    case Family::beta:
      return ad::beta_logit_glm<T>(alpha, beta, *sigma, x, r);
  }
  throw std::logic_error("family");
}

// With and without an intercept; the family's own parameter (sigma, phi, shape) is the last input. `alpha` and `beta` may be
// given to place the logits at the edges.
void check_family(Family f, const std::string& name, const Block& b, const Eigen::ArrayXXd& alpha,
                  const Eigen::ArrayXXd& beta, const test::CheckOptions& opt = {}) {
  const Eigen::Index S = beta.rows();
  const bool norm = f != Family::probit && f != Family::binomial && f != Family::poisson;
  const Eigen::ArrayXXd sigma = 0.5 + random_array(S, 1, 99).abs();
  const ad::GlmRows r = rows_of(b);
  test::Arrays with_alpha{alpha, beta}, without{beta};
  if (norm) with_alpha.push_back(sigma), without.push_back(sigma);
  check_op(
      name + " with intercept",
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return call<double>(f, &v[0], v[1], norm ? &v[2] : nullptr, b.x.data(), r);
      },
      [&](const test::Arrays& in) { return reference(f, b, &in[0], in[1], norm ? &in[2] : nullptr); },
      with_alpha, opt);
  check_op(
      name,
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return call<double>(f, nullptr, v[0], norm ? &v[1] : nullptr, b.x.data(), r);
      },
      [&](const test::Arrays& in) { return reference(f, b, nullptr, in[0], norm ? &in[1] : nullptr); },
      without, opt);
}

const Family kFamilies[] = {Family::probit, Family::binomial,  Family::poisson, Family::normal,
                            Family::negbin, Family::lognormal, Family::gamma,   Family::beta};
const char* kNames[] = {"bernoulli_probit_glm",   "binomial_logit_glm", "poisson_log_glm", "normal_glm",
                        "neg_binomial_2_log_glm", "lognormal_glm",      "gamma_log_glm",   "beta_logit_glm"};
constexpr int kFamilyCount = 8;

}  // namespace

TEST_CASE("GLM families: values and gradients, draw counts around the packet size, offsets") {
  for (int k = 0; k < kFamilyCount; ++k) {
    const Family f = kFamilies[k];
    for (Eigen::Index S : {1, 3, 8, 9}) {
      const Block b = random_block(f, 37, 4, 3 + unsigned(S), S == 3);
      check_family(f, std::string(kNames[k]) + " S = " + std::to_string(S), b, random_array(S, 1, 1),
                   random_array(S, 4, 2));
    }
  }
}

TEST_CASE("GLM families: no features, no rows, one row") {
  for (int k = 0; k < kFamilyCount; ++k) {
    const Family f = kFamilies[k];
    const std::string n = kNames[k];
    check_family(f, n + " no features", random_block(f, 6, 0, 7), random_array(3, 1, 1),
                 random_array(3, 0, 2));
    check_family(f, n + " no rows", random_block(f, 0, 4, 8), random_array(3, 1, 1), random_array(3, 4, 2));
    check_family(f, n + " one row", random_block(f, 1, 1, 9), random_array(1, 1, 1), random_array(1, 1, 2));
  }
}

TEST_CASE("GLM families on float data: double elementwise pass, float GEMMs") {
  for (int k = 0; k < kFamilyCount; ++k) {
    const Family f = kFamilies[k];
    const Block b = random_block(f, 500, 5, 13, true);
    const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> xf = b.x.cast<float>();
    Block as_float = b;  // the reference sees the features the op sees: rounded to float
    as_float.x = xf.cast<double>();
    const bool norm = f != Family::probit && f != Family::binomial && f != Family::poisson;
    const Eigen::ArrayXXd alpha = random_array(4, 1, 14), beta = random_array(4, 5, 15),
                          sigma = Eigen::ArrayXXd::Constant(4, 1, 1.3);
    test::Arrays in{alpha, beta};
    if (norm) in.push_back(sigma);
    // The logits are float products: relative errors near 1e-7 per row.
    check_op(
        std::string(kNames[k]) + " float",
        [&](ad::Tape&, const std::vector<ad::Var>& v) {
          return call<float>(f, &v[0], v[1], norm ? &v[2] : nullptr, xf.data(), rows_of(b));
        },
        [&](const test::Arrays& a) { return reference(f, as_float, &a[0], a[1], norm ? &a[2] : nullptr); },
        in, {1e-5, 1e-4, 1e-5, true});
  }
}

TEST_CASE("bernoulli_probit_glm at logits of +-40: no underflow, finite exact gradients") {
  // One row y = 1 with a single feature x = 1, so eta = alpha + beta; scipy's log_ndtr(-40) =
  // -804.6084420137539 and its derivative phi/Phi there is 40.024968847210886.
  Block b{RowMatrix::Ones(1, 1), Eigen::VectorXd::Ones(1), Eigen::VectorXd::Zero(1), {}};
  ad::Tape tape(1 << 16);
  ad::Var alpha_v = tape.make(2, 1, true);
  ad::Var beta_v = tape.make(2, 1, true);
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(alpha_v), 2) << -40.0, 40.0;
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(beta_v), 2).setZero();
  const ad::Var out = ad::bernoulli_probit_glm<double>(&alpha_v, beta_v, b.x.data(), rows_of(b));
  tape.backward(out);
  CHECK(out.val()(0, 0) == doctest::Approx(-804.6084420137539).epsilon(1e-14));
  CHECK(out.val()(1, 0) == 0.0);  // log Phi(40) = -Phi(-40) = -3.7e-350, below the smallest double
  CHECK(alpha_v.adj()(0, 0) == doctest::Approx(40.024968847210886).epsilon(1e-12));
  CHECK(std::isfinite(alpha_v.adj()(1, 0)));
  CHECK(alpha_v.adj()(1, 0) >= 0.0);
  CHECK(alpha_v.adj()(1, 0) < 1e-300);
}

TEST_CASE("poisson_log_glm where exp(eta) overflows: -inf, never NaN; binomial at infinite logits") {
  Block b{RowMatrix::Ones(2, 1), Eigen::VectorXd(2), Eigen::VectorXd(2), {}};
  b.y << 3, 0;
  b.trials << 3, 4;  // binomial: row 1 has y = n, row 2 has y = 0
  ad::Tape tape(1 << 16);
  ad::Var alpha_v = tape.make(3, 1, true);
  ad::Var beta_v = tape.make(3, 1, true);
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(alpha_v), 3) << 800.0, 1.0,
      -std::numeric_limits<double>::infinity();
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(beta_v), 3).setZero();
  const ad::Var p = ad::poisson_log_glm<double>(&alpha_v, beta_v, b.x.data(), rows_of(b));
  tape.backward(p);
  CHECK(p.val()(0, 0) == -std::numeric_limits<double>::infinity());
  // Each row's derivative y - exp(eta) is held at -DBL_MAX; their sum may still overflow to
  // -inf, but it is never NaN (inf - inf).
  CHECK(!std::isnan(alpha_v.adj()(0, 0)));
  CHECK(!std::isnan(beta_v.adj()(0, 0)));
  CHECK(p.val()(1, 0) == doctest::Approx(3.0 - 2 * std::exp(1.0) - std::lgamma(4.0)).epsilon(1e-14));
  CHECK(p.val()(2, 0) == -std::numeric_limits<double>::infinity());  // y = 3 at rate 0

  // Binomial with y = n = 3 at eta = +inf and y = 0 of 4 at eta = -inf: probability 1 each.
  for (double e : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    tape.rewind();
    ad::Var a1 = tape.make(1, 1, true), b1 = tape.make(1, 1, true);
    tape.val_ptr(a1)[0] = e;
    tape.val_ptr(b1)[0] = 0.0;
    Block one{RowMatrix::Ones(1, 1),
              Eigen::VectorXd::Constant(1, e > 0 ? 3.0 : 0.0),
              Eigen::VectorXd::Constant(1, e > 0 ? 3.0 : 4.0),
              {}};
    const ad::Var v = ad::binomial_logit_glm<double>(&a1, b1, one.x.data(), rows_of(one));
    tape.backward(v);
    CHECK(v.val()(0, 0) == 0.0);
    CHECK(a1.adj()(0, 0) == 0.0);
  }
}

TEST_CASE("neg_binomial_2_log_glm: huge logits stay finite, y = 0 at eta = -inf is log 1, phi <= 0 is NaN") {
  // One row, x = 1, so eta = alpha + beta. At eta = 800, exp(eta) overflows but the log mass is
  // finite: log p = R(y, phi) - log y! + y (eta - log phi) - (y + phi) (eta - log phi + log1p(phi e^-eta))
  // ~ log phi^y / y! - phi (eta - log phi) - ..., here y = 2, phi = 1.5.
  Block b{RowMatrix::Ones(1, 1), Eigen::VectorXd::Constant(1, 2.0), Eigen::VectorXd::Zero(1), {}};
  ad::Tape tape(1 << 16);
  ad::Var a = tape.make(3, 1, true), be = tape.make(3, 1, true), phi = tape.make(3, 1, true);
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(a), 3) << 800.0, 0.0, 0.3;
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(be), 3).setZero();
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(phi), 3) << 1.5, 1.5, -1.0;
  const ad::Var v = ad::neg_binomial_2_log_glm<double>(&a, be, phi, b.x.data(), rows_of(b));
  tape.backward(v);
  const double x = 800.0 - std::log(1.5);
  CHECK(v.val()(0, 0) == doctest::Approx(std::log(2.5 * 1.5) - std::log(2.0) + 2 * x - 3.5 * x).epsilon(1e-14));
  CHECK(a.adj()(0, 0) == doctest::Approx(-1.5).epsilon(1e-12));  // y - (y + phi) sigmoid(x) -> -phi
  CHECK(std::isfinite(phi.adj()(0, 0)));
  CHECK(std::isnan(v.val()(2, 0)));
  tape.rewind();
  Block zero{RowMatrix::Ones(1, 1), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Zero(1), {}};
  ad::Var a0 = tape.make(1, 1, false), b0 = tape.make(1, 1, false), p0 = tape.make(1, 1, false);
  tape.val_ptr(a0)[0] = -std::numeric_limits<double>::infinity();
  tape.val_ptr(b0)[0] = 0.0;
  tape.val_ptr(p0)[0] = 2.0;
  CHECK(ad::neg_binomial_2_log_glm<double>(&a0, b0, p0, zero.x.data(), rows_of(zero)).val()(0, 0) == 0.0);
}

}  // namespace test_glm_families
