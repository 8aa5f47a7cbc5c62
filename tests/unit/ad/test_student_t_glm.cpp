// student_t_glm, the fused Student-t regression likelihood: values and partials (d/deta, d/dsigma,
// d/dnu) against scipy.stats.t and mpmath (tests/reference/student_t_table.py), values against a
// double formula of the density written here (lgamma, log1p: not the code under test) and
// gradients against its central differences through the generic op checker, every subset of
// (alpha, beta, sigma, nu) as variables, with offsets, no rows, float data; the same model
// composed from student_t_lpdf to 1e-12; nu = inf as the normal; invalid sigma or nu give NaN.
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <random>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_student_t_glm {

using namespace bvi;
using bvi::test::check_op;

namespace {

const double inf = std::numeric_limits<double>::infinity();
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct TBlock {
  RowMatrix x;  // m x D
  Eigen::VectorXd y, offset;
};

// Responses with outliers: normal noise, every fifth row far out.
TBlock t_block(Eigen::Index m, Eigen::Index d, unsigned seed, bool with_offset = false) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  TBlock b{RowMatrix(m, d), Eigen::VectorXd(m), Eigen::VectorXd()};
  for (Eigen::Index i = 0; i < m * d; ++i) b.x.data()[i] = normal(rng);
  for (Eigen::Index n = 0; n < m; ++n) b.y[n] = (n % 5 == 4 ? 12.0 : 1.0) * normal(rng);
  if (with_offset) {
    b.offset.resize(m);
    for (Eigen::Index n = 0; n < m; ++n) b.offset[n] = 0.3 * normal(rng);
  }
  return b;
}

Eigen::ArrayXXd t_random(Eigen::Index r, Eigen::Index c, unsigned seed, double sd = 0.5) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, sd);
  Eigen::ArrayXXd a(r, c);
  for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = normal(rng);
  return a;
}

// scipy.stats.t(df = nu, loc = eta, scale = sigma).logpdf(y), written out.
double t_logpdf(double y, double eta, double sigma, double nu) {
  if (!(nu > 0) || !(sigma > 0)) return std::numeric_limits<double>::quiet_NaN();
  const double z = (y - eta) / sigma;
  if (std::isinf(nu)) return -0.5 * z * z - std::log(sigma * std::sqrt(2 * M_PI));
  return std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2) - 0.5 * std::log(nu * M_PI) - std::log(sigma) -
         (nu + 1) / 2 * std::log1p(z * z / nu);
}

// in = {alpha?, beta, sigma, nu}: out_s = sum_n t_logpdf(y_n, eta_sn, sigma_s, nu_s).
Eigen::ArrayXXd t_reference(const TBlock& b, const Eigen::ArrayXXd* alpha, const Eigen::ArrayXXd& beta,
                            const Eigen::ArrayXXd& sigma, const Eigen::ArrayXXd& nu) {
  Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(beta.rows(), 1);
  for (Eigen::Index s = 0; s < beta.rows(); ++s)
    for (Eigen::Index n = 0; n < b.x.rows(); ++n) {
      double eta = (alpha ? (*alpha)(s, 0) : 0.0) + (b.offset.size() ? b.offset[n] : 0.0);
      for (Eigen::Index j = 0; j < b.x.cols(); ++j) eta += b.x(n, j) * beta(s, j);
      out(s, 0) += t_logpdf(b.y[n], eta, sigma(s, 0), nu(s, 0));
    }
  return out;
}

ad::GlmRows t_rows(const TBlock& b) {
  ad::GlmRows r;
  r.y = b.y.data();
  r.offset = b.offset.size() ? b.offset.data() : nullptr;
  r.rows = b.y.size();
  return r;
}

void check_t(const std::string& name, const TBlock& b, Eigen::Index S, unsigned seed) {
  const Eigen::ArrayXXd alpha = t_random(S, 1, seed), beta = t_random(S, b.x.cols(), seed + 1);
  const Eigen::ArrayXXd sigma = 0.5 + t_random(S, 1, seed + 2).abs();
  const Eigen::ArrayXXd nu = 0.7 + 8.0 * t_random(S, 1, seed + 3).abs();
  const ad::GlmRows r = t_rows(b);
  check_op(
      name + " with intercept",
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::student_t_glm<double>(&v[0], v[1], v[2], v[3], b.x.data(), r);
      },
      [&](const test::Arrays& in) { return t_reference(b, &in[0], in[1], in[2], in[3]); },
      {alpha, beta, sigma, nu});
  check_op(
      name,
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::student_t_glm<double>(nullptr, v[0], v[1], v[2], b.x.data(), r);
      },
      [&](const test::Arrays& in) { return t_reference(b, nullptr, in[0], in[1], in[2]); },
      {beta, sigma, nu});
}

struct TRow {
  double y, eta, sigma, nu, value, d_eta, d_sigma, d_nu;
};
const TRow kTRows[] = {
#include "student_t_reference.inc"
};

}  // namespace

TEST_CASE("student_t_glm: values and partials against scipy and mpmath") {
  for (const TRow& t : kTRows) {
    INFO("y " << t.y << " eta " << t.eta << " sigma " << t.sigma << " nu " << t.nu);
    // One row, x = 1 and no intercept: eta = beta.
    const double x = 1.0;
    ad::GlmRows rows;
    rows.y = &t.y;
    rows.rows = 1;
    ad::Tape tape(1 << 16);
    ad::Var be = tape.make(1, 1, true), sg = tape.make(1, 1, true), nu = tape.make(1, 1, true);
    *tape.val_ptr(be) = t.eta;
    *tape.val_ptr(sg) = t.sigma;
    *tape.val_ptr(nu) = t.nu;
    const ad::Var v = ad::student_t_glm<double>(nullptr, be, sg, nu, &x, rows);
    CHECK(v.val()(0, 0) == doctest::Approx(t.value).epsilon(1e-14));
    const double one = 1.0;
    tape.backward(v, &one);
    CHECK(be.adj()(0, 0) == doctest::Approx(t.d_eta).epsilon(1e-13));
    CHECK(sg.adj()(0, 0) == doctest::Approx(t.d_sigma).epsilon(1e-13));
    CHECK(nu.adj()(0, 0) == doctest::Approx(t.d_nu).epsilon(1e-11));
  }
}

TEST_CASE("student_t_glm: values and gradients, draw counts, offsets, no features, no rows") {
  for (Eigen::Index S : {1, 3, 8, 9})
    check_t("S = " + std::to_string(S), t_block(37, 4, 3 + unsigned(S), S == 3), S, 20 + unsigned(S));
  check_t("no features", t_block(6, 0, 7), 3, 40);
  check_t("no rows", t_block(0, 4, 8), 3, 41);
  check_t("one row", t_block(1, 1, 9), 1, 42);
}

TEST_CASE("student_t_glm on float data: double elementwise pass, float GEMMs") {
  const TBlock b = t_block(300, 5, 13, true);
  const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> xf = b.x.cast<float>();
  TBlock as_float = b;  // the reference sees the features the op sees: rounded to float
  as_float.x = xf.cast<double>();
  const Eigen::ArrayXXd alpha = t_random(4, 1, 14), beta = t_random(4, 5, 15),
                        sigma = Eigen::ArrayXXd::Constant(4, 1, 1.3),
                        nu = Eigen::ArrayXXd::Constant(4, 1, 3.5);
  check_op(
      "student_t_glm float",
      [&](ad::Tape&, const std::vector<ad::Var>& v) {
        return ad::student_t_glm<float>(&v[0], v[1], v[2], v[3], xf.data(), t_rows(b));
      },
      [&](const test::Arrays& a) { return t_reference(as_float, &a[0], a[1], a[2], a[3]); },
      {alpha, beta, sigma, nu}, {1e-5, 1e-4, 1e-5, true});
}

TEST_CASE("student_t_glm: the same as student_t_lpdf composed, values and gradients to 1e-12") {
  const TBlock b = t_block(50, 3, 31, true);
  const Eigen::Index S = 5;
  Eigen::ArrayXXd alpha = t_random(S, 1, 32), beta = t_random(S, 3, 33);
  Eigen::ArrayXXd sigma = 0.3 + t_random(S, 1, 34).abs();
  Eigen::ArrayXXd nu(S, 1);
  nu << 0.6, 2.0, 7.5, 150.0, 4e4;  // the large ones exercise d/dnu's series
  Eigen::ArrayXXd grads[2][4];
  Eigen::ArrayXd values[2];
  for (int fused = 0; fused < 2; ++fused) {
    ad::Tape tape(1 << 20);
    Eigen::ArrayXXd* g = grads[fused];
    g[0] = Eigen::ArrayXXd::Zero(S, 1), g[1] = Eigen::ArrayXXd::Zero(S, 3),
    g[2] = Eigen::ArrayXXd::Zero(S, 1), g[3] = Eigen::ArrayXXd::Zero(S, 1);
    const ad::Var a = tape.leaf(alpha.data(), g[0].data(), S, 1),
                  be = tape.leaf(beta.data(), g[1].data(), S, 3),
                  sg = tape.leaf(sigma.data(), g[2].data(), S, 1),
                  v = tape.leaf(nu.data(), g[3].data(), S, 1);
    ad::Var out;
    if (fused) {
      out = ad::student_t_glm<double>(&a, be, sg, v, b.x.data(), t_rows(b));
    } else {
      const ad::Var xv = tape.constant(b.x.data(), b.x.cols(), b.x.rows());  // X^T, D x m
      ad::Var eta = ad::matmul(be, xv);
      eta = ad::add(eta, a);
      eta = ad::add(eta, tape.constant(b.offset.data(), 1, b.offset.size()));
      out = ad::row_sums(ad::student_t_lpdf(tape.constant(b.y.data(), 1, b.y.size()), v, eta, sg));
    }
    values[fused] = out.val().col(0);
    const Eigen::ArrayXd w = Eigen::ArrayXd::LinSpaced(S, 0.5, 1.5);
    tape.backward(out, w.data());
  }
  for (Eigen::Index s = 0; s < S; ++s) {
    CAPTURE(s);
    CHECK(values[1][s] == doctest::Approx(values[0][s]).epsilon(1e-12));
    for (int k = 0; k < 4; ++k)
      for (Eigen::Index j = 0; j < grads[0][k].cols(); ++j)
        CHECK(grads[1][k](s, j) == doctest::Approx(grads[0][k](s, j)).epsilon(1e-12).scale(1e-6));
  }
}

TEST_CASE("student_t_glm: nu = inf is the normal; sigma or nu <= 0 or NaN give NaN") {
  const double y[2] = {0.5, -3.0}, x[2] = {1.0, 1.0};
  ad::GlmRows rows;
  rows.y = y;
  rows.rows = 2;
  ad::Tape tape(1 << 16);
  ad::Var be = tape.make(4, 1, true), sg = tape.make(4, 1, true), nu = tape.make(4, 1, true);
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(be), 4) << 0.2, 0.2, 0.2, 0.2;
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(sg), 4) << 1.5, -1.0, 1.0, 1.5;
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(nu), 4) << inf, 3.0, 0.0, std::nan("");
  const ad::Var v = ad::student_t_glm<double>(nullptr, be, sg, nu, x, rows);
  const double normal = -0.5 * (0.09 + 10.24) / 2.25 - 2.0 * std::log(1.5 * std::sqrt(2 * M_PI));
  CHECK(v.val()(0, 0) == doctest::Approx(normal).epsilon(1e-14));
  CHECK(std::isnan(v.val()(1, 0)));
  CHECK(std::isnan(v.val()(2, 0)));
  CHECK(std::isnan(v.val()(3, 0)));
  const double w[4] = {1.0, 0.0, 0.0, 0.0};
  tape.backward(v, w);
  // The normal's partials: d/deta = sum z / sigma, d/dsigma = (sum z^2 - m) / sigma.
  CHECK(be.adj()(0, 0) == doctest::Approx((0.3 - 3.2) / 2.25).epsilon(1e-14));
  CHECK(sg.adj()(0, 0) == doctest::Approx(((0.09 + 10.24) / 2.25 - 2.0) / 1.5).epsilon(1e-14));
  CHECK(nu.adj()(0, 0) == 0.0);
}

}  // namespace test_student_t_glm
