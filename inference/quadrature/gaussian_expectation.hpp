#pragma once
// Expectations of a scalar function under many normals at once: for each row i,
//   E f(eta), E f'(eta), E f''(eta),   eta ~ N(m_i, v_i),
// the building block of the exact expected log likelihood (each row's likelihood depends on the
// parameters through its linear predictor only, and under a Gaussian q that predictor is
// normal). A Gauss–Hermite rule is exact for polynomials and converges geometrically for
// functions analytic in a strip around the real axis, at a rate set by the strip's half-width
// measured in units of sd(eta): each kernel states, as tiers, how many points reach the
// double-precision floor up to which sd (tests/reference/gauss_hermite_tiers.py measured them
// against adaptive quadrature). Rows beyond the last tier (a very wide predictor, typical of
// more parameters than rows) get adaptive Gauss–Kronrod over z, one row at a time.
//
// A Kernel provides
//   void values(const double* eta, Index n, double* f0, double* f1, double* f2) const;  // f, f', f''
//   void value(double eta, double* f012) const;                                       // the same, one point
//   double feature() const;  // where f bends most (0 for softplus and log Phi): a breakpoint
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "inference/quadrature/gauss_hermite.hpp"
#include "inference/quadrature/gauss_kronrod.hpp"

namespace bvi::quadrature {

using Index = Eigen::Index;

struct Tier {
  double max_sd;  // the rule is accurate to the floor for sd(eta) <= max_sd
  int points;
  // The largest tilt |b| at which the rule's nodes, reweighted by exp(b z - b^2/2), are as
  // accurate for the mean shifted by b sd (gaussian_expectations_reflected_tilt); 0: never.
  double max_tilt = 0.0;
};

// Per-thread buffers of the vectorized loop; sized on first use, then reused (no allocation
// in later passes).
struct ExpectationScratch {
  static constexpr Index kRows = 256;  // rows per sub-block: five arrays of this stay in L1
  Eigen::ArrayXd sd, eta, f0, f1, f2;
  Eigen::ArrayXd arg, e0, e1, e2;  // for the caller: the kernel's argument and the expectations
  Eigen::ArrayXd g0, g1, g2, tilt, rho;  // the reflected kernel and its reweighting
  // Terms a likelihood computes per small count from q's moments of its own parameter alone (the
  // negative binomial's rule over log phi): kept across the sub-blocks of a pass while the key,
  // whose terms they are (a tag: the address of a variable of the likelihood's own) and those
  // moments, is the same bits.
  struct CountTerms {
    static constexpr int kCounts = 64;
    const void* tag = nullptr;  // nullptr: empty
    std::array<double, 2> key{};
    std::array<std::array<double, 3>, kCounts> value;
    std::array<bool, kCounts> have{};
    // Empties the table unless it holds tag's terms of (a, b).
    void keep_for(const void* of, double a, double b) {
      if (tag == of && std::memcmp(key.data(), &a, sizeof a) == 0 &&
          std::memcmp(key.data() + 1, &b, sizeof b) == 0)
        return;
      tag = of;
      key = {a, b};
      have.fill(false);
    }
  } count_terms;
  void reserve() {
    if (sd.size() == kRows) return;
    for (Eigen::ArrayXd* a : {&sd, &eta, &f0, &f1, &f2, &arg, &e0, &e1, &e2, &g0, &g1, &g2, &tilt, &rho})
      a->resize(kRows);
  }
};

// The rows whose sd exceeds every tier: adaptive quadrature of the three integrands at once.
template <class Kernel>
void wide_expectation(const Kernel& k, double m, double sd, double* e) {
  // z beyond ±38 carries a mass below the smallest double; within that, wherever the bend is.
  const double z0 = (k.feature() - m) / sd;  // where eta crosses the kernel's bend
  const double lo = std::max(-38.0, std::min(-10.0, z0 - 10.0)),
               hi = std::min(38.0, std::max(10.0, z0 + 10.0));
  std::vector<double> cuts;
  if (z0 > lo && z0 < hi) {
    cuts.push_back(z0);
    // The bend spans about one unit of eta, 1/sd in z.
    for (double d : {-4.0, -1.0, 1.0, 4.0})
      if (z0 + d / sd > lo && z0 + d / sd < hi) cuts.push_back(z0 + d / sd);
  }
  const AdaptiveResult r = integrate_adaptive(
      [&](double z, double* out) {
        double f[3];
        k.value(m + sd * z, f);
        const double phi = 0.39894228040143267794 * std::exp(-0.5 * z * z);
        for (int j = 0; j < 3; ++j) out[j] = f[j] * phi;
      },
      3, lo, hi, cuts, 1e-14, 1e-300, 2000);
  for (int j = 0; j < 3; ++j) e[j] = r.value[j];
}

// e0[i] = E f, e1[i] = E f', e2[i] = E f'' for eta ~ N(m[i], v[i]), i < n.
template <class Kernel>
void gaussian_expectations(const Kernel& k, const std::vector<Tier>& tiers, const double* m, const double* v,
                           Index n, double* e0, double* e1, double* e2, ExpectationScratch& s) {
  s.reserve();
  const double widest = tiers.back().max_sd;
  for (Index b0 = 0; b0 < n; b0 += ExpectationScratch::kRows) {
    const Index len = std::min(ExpectationScratch::kRows, n - b0);
    auto sd = s.sd.head(len);
    sd = Eigen::Map<const Eigen::ArrayXd>(v + b0, len).max(0.0).sqrt();
    // One rule for the sub-block, the one its widest ordinary row needs.
    double need = 0.0;
    bool any_wide = false;
    for (Index i = 0; i < len; ++i) {
      if (sd[i] > widest)
        any_wide = true;
      else
        need = std::max(need, sd[i]);
    }
    std::size_t t = 0;
    while (t + 1 < tiers.size() && tiers[t].max_sd < need) ++t;
    const GaussHermiteRule& rule = gauss_hermite(tiers[t].points);
    Eigen::Map<const Eigen::ArrayXd> M(m + b0, len);
    Eigen::Map<Eigen::ArrayXd> E0(e0 + b0, len), E1(e1 + b0, len), E2(e2 + b0, len);
    E0.setZero();
    E1.setZero();
    E2.setZero();
    auto eta = s.eta.head(len);
    auto f0 = s.f0.head(len), f1 = s.f1.head(len), f2 = s.f2.head(len);
    for (int q = 0; q < rule.size(); ++q) {
      eta = M + rule.nodes[q] * sd;
      k.values(eta.data(), len, f0.data(), f1.data(), f2.data());
      E0 += rule.weights[q] * f0;
      E1 += rule.weights[q] * f1;
      E2 += rule.weights[q] * f2;
    }
    if (any_wide)
      for (Index i = 0; i < len; ++i)
        if (sd[i] > widest) {
          double e[3];
          wide_expectation(k, M[i], sd[i], e);
          E0[i] = e[0];
          E1[i] = e[1];
          E2[i] = e[2];
        }
  }
}

// e^x by its Taylor series to x^7, coefficient-wise: within 1e-19 relative for |x| <= 1/64.
template <class Array>
auto exp_series7(const Array& x) {
  constexpr double c2 = 1.0 / 2, c3 = 1.0 / 6, c4 = 1.0 / 24, c5 = 1.0 / 120, c6 = 1.0 / 720, c7 = 1.0 / 5040;
  return 1.0 + x * (1.0 + x * (c2 + x * (c3 + x * (c4 + x * (c5 + x * (c6 + x * c7))))));
}

// Two expectations per row from one set of kernel evaluations: for i < n,
//   e0, e1, e2 [i] = E f, E f', E f''      of x ~ N(m[i], v[i]),
//   t0, t1, t2 [i] = E g, E g', E g''      of x ~ N(m[i] + shift[i], v[i]),  g(x) = f(-x) and its
//                                          derivatives in -x (the kernel's f at -x, f' at -x, ...),
// the second by reweighting the first's nodes: with x = m + sd z, the density of the shifted
// normal over the unshifted one is exp(b z - b^2/2), b = shift / sd. That is an entire function of
// z, so the rule keeps its accuracy while |b| is within the tier's max_tilt (measured against a
// 250-point rule at the shifted mean for softplus over means -36 to 35: the reweighted rule's
// error is the direct rule's own). The kernel gives f and g at each node
// (Kernel::values_reflected). Returns false when some row is beyond every tier or beyond its
// tier's max_tilt (or has sd 0 and a shift): the outputs are then unspecified, and the caller takes
// two gaussian_expectations calls.
template <class Kernel>
bool gaussian_expectations_reflected_tilt(const Kernel& k, const std::vector<Tier>& tiers, const double* m,
                                          const double* v, const double* shift, Index n, double* e0,
                                          double* e1, double* e2, double* t0, double* t1, double* t2,
                                          ExpectationScratch& s) {
  s.reserve();
  const double widest = tiers.back().max_sd;
  for (Index b0 = 0; b0 < n; b0 += ExpectationScratch::kRows) {
    const Index len = std::min(ExpectationScratch::kRows, n - b0);
    auto sd = s.sd.head(len), b = s.tilt.head(len), rho = s.rho.head(len);
    sd = Eigen::Map<const Eigen::ArrayXd>(v + b0, len).max(0.0).sqrt();
    double need = 0.0;
    for (Index i = 0; i < len; ++i) {
      if (!(sd[i] <= widest)) return false;
      need = std::max(need, sd[i]);
    }
    std::size_t t = 0;
    while (t + 1 < tiers.size() && tiers[t].max_sd < need) ++t;
    for (Index i = 0; i < len; ++i) {
      const double d = shift[b0 + i];
      b[i] = d == 0.0 ? 0.0 : d / sd[i];
      if (!(std::abs(b[i]) <= tiers[t].max_tilt)) return false;
    }
    const GaussHermiteRule& rule = gauss_hermite(tiers[t].points);
    Eigen::Map<const Eigen::ArrayXd> M(m + b0, len);
    Eigen::Map<Eigen::ArrayXd> E0(e0 + b0, len), E1(e1 + b0, len), E2(e2 + b0, len);
    Eigen::Map<Eigen::ArrayXd> T0(t0 + b0, len), T1(t1 + b0, len), T2(t2 + b0, len);
    for (auto* a : {&E0, &E1, &E2, &T0, &T1, &T2}) a->setZero();
    auto eta = s.eta.head(len);
    auto f0 = s.f0.head(len), f1 = s.f1.head(len), f2 = s.f2.head(len);
    auto g0 = s.g0.head(len), g1 = s.g1.head(len), g2 = s.g2.head(len);
    const auto half_b2 = 0.5 * b.square();
    // The reweighting's exponent is at most |b| max|z| + b^2/2; within 1/64 (as at a narrow q,
    // where b is ~s) its Taylor series to the 7th power is exact to 1e-19, cheaper than exp.
    const double b_max = b.abs().maxCoeff(), z_max = std::abs(rule.nodes[0]);
    const bool series = b_max * z_max + 0.5 * b_max * b_max <= 1.0 / 64.0;
    for (int q = 0; q < rule.size(); ++q) {
      const double z = rule.nodes[q], w = rule.weights[q];
      eta = M + z * sd;
      k.values_reflected(eta.data(), len, f0.data(), f1.data(), f2.data(), g0.data(), g1.data(), g2.data());
      rho = z * b - half_b2;
      if (series)
        rho = w * exp_series7(rho);
      else
        rho = w * rho.exp();
      E0 += w * f0;
      E1 += w * f1;
      E2 += w * f2;
      T0 += rho * g0;
      T1 += rho * g1;
      T2 += rho * g2;
    }
  }
  return true;
}

}  // namespace bvi::quadrature
