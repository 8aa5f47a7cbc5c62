#pragma once
// Gauss–Hermite rules for expectations under a standard normal: E f(z) ≈ Σ_k w_k f(z_k), exact for
// polynomials of degree < 2n, with nodes z_k ascending and weights w_k summing to 1 (the
// "probabilists'" form of the rule for ∫ e^{-x²} g(x) dx, with z = √2 x and w = weight / √π).
#include <Eigen/Core>

namespace bvi::quadrature {

struct GaussHermiteRule {
  Eigen::ArrayXd nodes;    // z_k, ascending, symmetric about 0
  Eigen::ArrayXd weights;  // w_k > 0, Σ w_k = 1
  int size() const { return static_cast<int>(nodes.size()); }
};

// The n-point rule (1 <= n <= 512), computed once and kept: the returned reference stays valid
// for the life of the program and may be used from several threads.
const GaussHermiteRule& gauss_hermite(int n);

// The same computed afresh (what gauss_hermite caches).
GaussHermiteRule compute_gauss_hermite(int n);

}  // namespace bvi::quadrature
