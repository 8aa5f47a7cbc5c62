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
#include <cmath>
#include <vector>

#include "inference/quadrature/gauss_hermite.hpp"
#include "inference/quadrature/gauss_kronrod.hpp"

namespace bvi::quadrature {

using Index = Eigen::Index;

struct Tier {
  double max_sd;  // the rule is accurate to the floor for sd(eta) <= max_sd
  int points;
};

// Per-thread buffers of the vectorized loop; sized on first use, then reused (no allocation
// in later passes).
struct ExpectationScratch {
  static constexpr Index kRows = 256;  // rows per sub-block: five arrays of this stay in L1
  Eigen::ArrayXd sd, eta, f0, f1, f2;
  Eigen::ArrayXd arg, e0, e1, e2;  // for the caller: the kernel's argument and the expectations
  void reserve() {
    if (sd.size() == kRows) return;
    for (Eigen::ArrayXd* a : {&sd, &eta, &f0, &f1, &f2, &arg, &e0, &e1, &e2}) a->resize(kRows);
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

}  // namespace bvi::quadrature
