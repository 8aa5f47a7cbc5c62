#pragma once
// The two functions of a linear predictor whose Gaussian expectations have no closed form, as
// kernels for quadrature::gaussian_expectations (values, first and second derivatives), with the
// Gauss–Hermite tiers that reach the double-precision floor for each (measured by
// tests/reference/gauss_hermite_tiers.py against mpmath quadrature over |E eta| <= 60: the
// worst relative error of E f, E f' and E f'' at each tier's largest sd is below 1e-12 for
// softplus and below 1e-11, the accuracy of the double-precision log Phi itself, for log Phi).
#include <Eigen/Core>
#include <vector>

#include "inference/quadrature/gaussian_expectation.hpp"

namespace bvi::models {

using quadrature::Index;

// softplus(x) = log(1 + e^x) = -log sigmoid(-x): the logistic and binomial likelihoods.
//   f' = sigmoid(x),  f'' = sigmoid(x) sigmoid(-x).
// Its poles at x = ±iπ limit Gauss–Hermite to sd(eta) <= 2; wider rows go adaptive.
struct SoftplusKernel {
  void values(const double* eta, Index n, double* f0, double* f1, double* f2) const;
  // values, and g0, g1, g2 = softplus, sigmoid, sigmoid sigmoid(-) at -eta from the same exp.
  void values_reflected(const double* eta, Index n, double* f0, double* f1, double* f2, double* g0,
                        double* g1, double* g2) const;
  void value(double eta, double* f) const;
  double feature() const { return 0.0; }
  static const std::vector<quadrature::Tier>& tiers();
};

// log Phi(x): the probit likelihood.  f' = phi(x)/Phi(x) = r,  f'' = -r (x + r).
// Phi's complex zeros lie nearer the real axis than softplus's poles, so it needs more points
// at the same sd.
struct LogNdtrKernel {
  void values(const double* eta, Index n, double* f0, double* f1, double* f2) const;
  void value(double eta, double* f) const;
  double feature() const { return 0.0; }
  static const std::vector<quadrature::Tier>& tiers();
};

}  // namespace bvi::models
