#pragma once
// Adaptive Gauss–Kronrod (7/15-point) quadrature of a small vector of integrands over [a, b],
// bisecting the subinterval with the largest error estimate until every component meets
// max(abs_tol, rel_tol · |integral|). For the rare integrals a fixed rule cannot be trusted with
// (the row expectations of a very wide linear predictor), not for hot loops.
#include <array>
#include <functional>
#include <vector>

namespace bvi::quadrature {

inline constexpr int kMaxComponents = 4;
using Values = std::array<double, kMaxComponents>;

struct AdaptiveResult {
  Values value{};
  Values error{};
  int intervals = 0;
  bool converged = false;
};

// f(x, out) writes the `components` integrand values at x. `breakpoints` (inside (a, b), any
// order) start the partition, e.g. where an integrand has a kink or a sharp feature.
AdaptiveResult integrate_adaptive(const std::function<void(double, double*)>& f, int components, double a,
                                  double b, const std::vector<double>& breakpoints, double rel_tol,
                                  double abs_tol, int max_intervals = 400);

}  // namespace bvi::quadrature
