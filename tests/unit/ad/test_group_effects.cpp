// The gather of group-level effects into a block's linear predictor (group_effects): values
// against a loop over rows written here, gradients with respect to every factor's r against
// central differences; intercept-only, slopes-only and intercept + slopes terms, two factors at
// once, float slopes, a level outside [0, G) and a bad width (both throw, as the reference does).
#include <cstdint>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "support/ad_check.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_group_effects {

using namespace bvi;
using bvi::test::arr;
using bvi::test::check_op;

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Factor {
  std::vector<std::int32_t> level;
  RowMatrix z;  // m x n_slopes
  bool intercept;
};

// out(s, n) = sum_f sum_k z_nk r_f(s, g K + k), one scalar at a time.
Eigen::ArrayXXd reference(const std::vector<Factor>& fs, const test::Arrays& r, Eigen::Index m) {
  const Eigen::Index S = r[0].rows();
  Eigen::ArrayXXd out = Eigen::ArrayXXd::Zero(S, m);
  for (std::size_t f = 0; f < fs.size(); ++f) {
    const Eigen::Index J = fs[f].z.cols(), K = J + (fs[f].intercept ? 1 : 0);
    if (r[f].cols() % K != 0) throw std::invalid_argument("width");
    const Eigen::Index G = r[f].cols() / K;
    for (Eigen::Index n = 0; n < m; ++n) {
      const Eigen::Index g = fs[f].level[static_cast<std::size_t>(n)];
      if (g < 0 || g >= G) throw std::invalid_argument("level");
      for (Eigen::Index s = 0; s < S; ++s) {
        Eigen::Index k = 0;
        if (fs[f].intercept) out(s, n) += r[f](s, g * K + k++);
        for (Eigen::Index j = 0; j < J; ++j) out(s, n) += fs[f].z(n, j) * r[f](s, g * K + k++);
      }
    }
  }
  return out;
}

template <class T>
test::AdFn op(const std::vector<Factor>& fs, const std::vector<Eigen::Matrix<T, -1, -1, Eigen::RowMajor>>& zs,
              Eigen::Index m) {
  return [&fs, &zs, m](ad::Tape&, const std::vector<ad::Var>& v) {
    std::vector<ad::GroupTermRows<T>> terms;
    for (std::size_t f = 0; f < fs.size(); ++f)
      terms.push_back({v[f], fs[f].level.data(), zs[f].data(), zs[f].cols(), fs[f].intercept});
    ad::Var out = ad::group_effects<T>(terms.data(), static_cast<int>(terms.size()), m);
    terms.clear();  // the op keeps its own copy for the backward pass
    return out;
  };
}

}  // namespace

TEST_CASE("group_effects: one and two grouping factors, with and without intercepts") {
  const Eigen::Index m = 5;
  // Factor a: 3 levels, intercept + 2 slopes (K = 3); factor b: 2 levels, intercept only;
  // factor c: 4 levels, one slope and no intercept.
  std::vector<Factor> fs = {
      {{0, 2, 1, 2, 0}, RowMatrix(m, 2), true},
      {{1, 0, 0, 1, 1}, RowMatrix(m, 0), true},
      {{3, 3, 0, 1, 2}, RowMatrix(m, 1), false},
  };
  fs[0].z << 0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 0.1, 0.2, -2.0, 3.0;
  fs[2].z << 1.5, -0.5, 0.0, 2.5, -1.25;
  std::vector<RowMatrix> zs;
  for (const auto& f : fs) zs.push_back(f.z);
  for (Eigen::Index S : {1, 3, 8}) {
    test::Arrays r = {Eigen::ArrayXXd::Random(S, 9), Eigen::ArrayXXd::Random(S, 2),
                      Eigen::ArrayXXd::Random(S, 4)};
    auto ref = [&](const test::Arrays& x) { return reference(fs, x, m); };
    check_op("three factors, S = " + std::to_string(S), op<double>(fs, zs, m), ref, r);
    std::vector<Factor> one = {fs[0]};
    std::vector<RowMatrix> zone = {zs[0]};
    check_op("one factor", op<double>(one, zone, m),
             [&](const test::Arrays& x) { return reference(one, x, m); }, {r[0]});
  }
  // Float slopes: the reference sees them rounded to float.
  std::vector<Eigen::Matrix<float, -1, -1, Eigen::RowMajor>> zf;
  std::vector<Factor> rounded = fs;
  for (auto& f : rounded) {
    zf.push_back(f.z.cast<float>());
    f.z = zf.back().cast<double>();
  }
  test::Arrays r = {Eigen::ArrayXXd::Random(4, 9), Eigen::ArrayXXd::Random(4, 2),
                    Eigen::ArrayXXd::Random(4, 4)};
  check_op(
      "float slopes", op<float>(fs, zf, m), [&](const test::Arrays& x) { return reference(rounded, x, m); },
      r);
  // No rows.
  check_op(
      "no rows", op<double>(fs, zs, 0), [&](const test::Arrays& x) { return reference(fs, x, 0); }, r);
}

TEST_CASE("group_effects throws for a level outside the factor and for a bad width") {
  const Eigen::Index m = 3;
  std::vector<Factor> bad_level = {{{0, 2, 1}, RowMatrix(m, 0), true}};
  std::vector<RowMatrix> zs = {bad_level[0].z};
  check_op("level 2 of 2", op<double>(bad_level, zs, m),
           [&](const test::Arrays& x) { return reference(bad_level, x, m); },
           {Eigen::ArrayXXd::Random(2, 2)});
  std::vector<Factor> negative = {{{0, -1, 1}, RowMatrix(m, 0), true}};
  check_op("level -1", op<double>(negative, zs, m),
           [&](const test::Arrays& x) { return reference(negative, x, m); }, {Eigen::ArrayXXd::Random(2, 2)});
  std::vector<Factor> k2 = {{{0, 0, 1}, RowMatrix(m, 1), true}};
  std::vector<RowMatrix> z1 = {RowMatrix::Ones(m, 1)};
  check_op("5 columns for K = 2", op<double>(k2, z1, m),
           [&](const test::Arrays& x) { return reference(k2, x, m); }, {Eigen::ArrayXXd::Random(2, 5)});
}

}  // namespace test_group_effects
