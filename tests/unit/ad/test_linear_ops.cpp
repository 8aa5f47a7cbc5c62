// matmul, add, subtract, multiply (with every broadcasting shape), sum and row_sums.
#include <cmath>
#include <limits>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_linear_ops {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {
using test::inf;
using test::qnan;

// Reference broadcasting written independently of the op: index with modulo.
Eigen::ArrayXXd bin(const Eigen::ArrayXXd& a, const Eigen::ArrayXXd& b, double (*f)(double, double)) {
  auto dim = [](Eigen::Index x, Eigen::Index y) {
    if (x != y && x != 1 && y != 1) throw std::invalid_argument("shapes");
    return x == 1 ? y : x;
  };
  const Eigen::Index R = dim(a.rows(), b.rows()), C = dim(a.cols(), b.cols());
  Eigen::ArrayXXd o(R, C);
  for (Eigen::Index i = 0; i < R; ++i)
    for (Eigen::Index j = 0; j < C; ++j)
      o(i, j) =
          f(a(a.rows() == 1 ? 0 : i, a.cols() == 1 ? 0 : j), b(b.rows() == 1 ? 0 : i, b.cols() == 1 ? 0 : j));
  return o;
}

const Eigen::ArrayXXd M23 = arr({{0.3, -1.2, 2.5}, {0.1, 4.0, -7.5}});
const Eigen::ArrayXXd R13 = arr({{1.5, -0.5, 2.0}});
const Eigen::ArrayXXd C21 = arr({{-2.0}, {0.25}});
const Eigen::ArrayXXd S11 = arr({{3.0}});
const std::vector<Eigen::ArrayXXd> kShapes = {M23, R13, C21, S11};
}  // namespace

TEST_CASE("matmul") {
  auto f = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::matmul(v[0], v[1]); };
  auto r = [](const test::Arrays& x) -> Eigen::ArrayXXd {
    if (x[0].cols() != x[1].rows()) throw std::invalid_argument("inner");
    Eigen::ArrayXXd o = Eigen::ArrayXXd::Zero(x[0].rows(), x[1].cols());
    for (Eigen::Index i = 0; i < o.rows(); ++i)
      for (Eigen::Index j = 0; j < o.cols(); ++j)
        for (Eigen::Index k = 0; k < x[0].cols(); ++k) o(i, j) += x[0](i, k) * x[1](k, j);
    return o;
  };
  check_op("matmul 2x3 3x2", f, r, {M23, arr({{1.0, 2.0}, {-0.5, 0.3}, {0.7, -1.1}})});
  check_op("matmul 1x1 1x1", f, r, {S11, arr({{-2.0}})});
  check_op("matmul outer", f, r, {C21, R13});
  check_op("matmul inner", f, r, {R13, arr({{1.0}, {2.0}, {3.0}})});
  check_op("matmul empty inner", f, r, {Eigen::ArrayXXd(2, 0), Eigen::ArrayXXd(0, 3)});
  check_op("matmul empty outer", f, r, {Eigen::ArrayXXd(0, 3), arr({{1.0}, {2.0}, {3.0}})});
  check_op("matmul mismatch throws", f, r, {M23, M23});
  check_op("matmul with inf", f, r, {arr({{inf, 1.0}}), arr({{1.0}, {2.0}})}, {1e-13, 1e-6, 1e-6, false});
  // A block big enough for Eigen's blocked GEMM path.
  Eigen::ArrayXXd a = Eigen::ArrayXXd::Random(37, 19), b = Eigen::ArrayXXd::Random(19, 23);
  check_op("matmul blocked", f, r, {a, b}, {1e-12, 1e-6, 1e-6, true});
}

TEST_CASE("add, subtract and multiply broadcast every shape pair") {
  auto fa = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::add(v[0], v[1]); };
  auto fs = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::subtract(v[0], v[1]); };
  auto fm = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::multiply(v[0], v[1]); };
  auto ra = [](const test::Arrays& x) { return bin(x[0], x[1], [](double a, double b) { return a + b; }); };
  auto rs = [](const test::Arrays& x) { return bin(x[0], x[1], [](double a, double b) { return a - b; }); };
  auto rm = [](const test::Arrays& x) { return bin(x[0], x[1], [](double a, double b) { return a * b; }); };
  for (const auto& a : kShapes)
    for (const auto& b : kShapes) {
      check_op("add", fa, ra, {a, b});
      check_op("subtract", fs, rs, {a, b});
      check_op("multiply", fm, rm, {a, b});
    }
  // Incompatible shapes throw in both versions.
  check_op("add mismatch", fa, ra, {M23, arr({{1.0, 2.0}})});
  check_op("multiply mismatch", fm, rm, {arr({{1.0}, {2.0}, {3.0}}), C21});
  // Empty and special values.
  check_op("multiply empty", fm, rm, {Eigen::ArrayXXd(0, 3), R13});
  check_op("add empty", fa, ra, {Eigen::ArrayXXd(0, 0), S11});
  check_op("multiply nan/inf", fm, rm, {arr({{qnan, inf, -inf, 2.0}}), arr({{1.0, 2.0, 0.5, inf}})});
  check_op(
      "multiply a by itself",
      [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::multiply(v[0], v[0]); },
      [](const test::Arrays& x) { return Eigen::ArrayXXd(x[0] * x[0]); }, {M23});
}

TEST_CASE("sum and row_sums") {
  auto fs = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::sum(v[0]); };
  auto rs = [](const test::Arrays& x) {
    double t = 0;
    for (Eigen::Index i = 0; i < x[0].size(); ++i) t += x[0](i);
    return Eigen::ArrayXXd::Constant(1, 1, t);
  };
  auto fr = [](ad::Tape&, const std::vector<ad::Var>& v) { return ad::row_sums(v[0]); };
  auto rr = [](const test::Arrays& x) {
    Eigen::ArrayXXd o = Eigen::ArrayXXd::Zero(x[0].rows(), 1);
    for (Eigen::Index i = 0; i < x[0].rows(); ++i)
      for (Eigen::Index j = 0; j < x[0].cols(); ++j) o(i, 0) += x[0](i, j);
    return o;
  };
  for (const auto& x : kShapes) {
    check_op("sum", fs, rs, {x});
    check_op("row_sums", fr, rr, {x});
  }
  check_op("sum empty", fs, rs, {Eigen::ArrayXXd(0, 0)});
  check_op("row_sums no columns", fr, rr, {Eigen::ArrayXXd(3, 0)});
  check_op("row_sums no rows", fr, rr, {Eigen::ArrayXXd(0, 3)});
  check_op("sum with inf", fs, rs, {arr({{inf, 1.0}})});
}

TEST_CASE("column slices share storage, so gradients flow without a tape node") {
  ad::Tape tape;
  Eigen::ArrayXXd x = M23, g = Eigen::ArrayXXd::Zero(2, 3);
  ad::Var v = tape.leaf(x.data(), g.data(), 2, 3);
  ad::Var tail = v.cols(1, 2);
  CHECK(tail.val()(0, 0) == -1.2);
  const auto before = tape.callback_count();
  ad::Var y = ad::sum(ad::exp(tail));
  CHECK(tape.callback_count() == before + 2);
  tape.backward(y);
  CHECK(g(0, 0) == 0.0);
  CHECK(g(0, 1) == doctest::Approx(std::exp(-1.2)).epsilon(1e-15));
  CHECK(g(1, 2) == doctest::Approx(std::exp(-7.5)).epsilon(1e-15));
}

TEST_CASE("constants record nothing on the tape") {
  ad::Tape tape;
  Eigen::ArrayXXd x = M23;
  ad::Var c = tape.constant(x.data(), 2, 3);
  ad::Var y = ad::row_sums(ad::log_sigmoid(ad::multiply(c, c)));
  CHECK_FALSE(y.has_adj());
  CHECK(tape.callback_count() == 0);
}

TEST_CASE("a rewound tape reuses its memory") {
  ad::Tape tape;
  Eigen::ArrayXXd x = Eigen::ArrayXXd::Random(64, 50), g = Eigen::ArrayXXd::Zero(64, 50);
  auto pass = [&] {
    ad::Var v = tape.leaf(x.data(), g.data(), 64, 50);
    tape.backward(ad::row_sums(ad::softplus(ad::multiply(v, v))));
    tape.rewind();
  };
  pass();
  const auto reserved = tape.arena().bytes_reserved();
  const auto blocks = tape.arena().block_count();
  for (int i = 0; i < 5; ++i) pass();
  CHECK(tape.arena().bytes_reserved() == reserved);
  CHECK(tape.arena().block_count() == blocks);
}

}  // namespace test_linear_ops
