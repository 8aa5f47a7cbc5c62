#include "inference/quadrature/gauss_kronrod.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

namespace bvi::quadrature {

namespace {

// The 15-point Kronrod extension of the 7-point Gauss–Legendre rule on [-1, 1] (nodes ±x_k and
// 0; the Gauss nodes are the odd-indexed ones), as tabulated by Piessens et al. (QUADPACK).
constexpr double kNodes[8] = {0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                              0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                              0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                              0.207784955007898467600689403773245, 0.0};
constexpr double kKronrod[8] = {0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                                0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                                0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                                0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
constexpr double kGauss[4] = {0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                              0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

struct Piece {
  double a, b;
  Values value, error;
  double worst;  // the largest error relative to its component's tolerance
  bool operator<(const Piece& o) const { return worst < o.worst; }
};

Piece rule(const std::function<void(double, double*)>& f, int n, double a, double b) {
  const double c = 0.5 * (a + b), h = 0.5 * (b - a);
  Values k{}, g{};
  double v[kMaxComponents], u[kMaxComponents];
  f(c, v);
  for (int j = 0; j < n; ++j) {
    k[j] = kKronrod[7] * v[j];
    g[j] = kGauss[3] * v[j];
  }
  for (int i = 0; i < 7; ++i) {
    f(c - h * kNodes[i], v);
    f(c + h * kNodes[i], u);
    for (int j = 0; j < n; ++j) {
      k[j] += kKronrod[i] * (v[j] + u[j]);
      if (i % 2 == 1) g[j] += kGauss[i / 2] * (v[j] + u[j]);
    }
  }
  Piece p{a, b, {}, {}, 0.0};
  for (int j = 0; j < n; ++j) {
    p.value[j] = h * k[j];
    p.error[j] = std::abs(h * (k[j] - g[j]));
  }
  return p;
}

}  // namespace

AdaptiveResult integrate_adaptive(const std::function<void(double, double*)>& f, int components, double a,
                                  double b, const std::vector<double>& breakpoints, double rel_tol,
                                  double abs_tol, int max_intervals) {
  components = std::clamp(components, 1, kMaxComponents);
  std::vector<double> cuts{a};
  for (double x : breakpoints)
    if (x > a && x < b) cuts.push_back(x);
  cuts.push_back(b);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  std::vector<Piece> pieces;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    pieces.push_back(rule(f, components, cuts[i], cuts[i + 1]));
  AdaptiveResult r;
  for (;;) {
    Values total{}, error{};
    for (const Piece& p : pieces)
      for (int j = 0; j < components; ++j) {
        total[j] += p.value[j];
        error[j] += p.error[j];
      }
    bool done = true;
    Values tol{};
    for (int j = 0; j < components; ++j) {
      tol[j] = std::max(abs_tol, rel_tol * std::abs(total[j]));
      if (error[j] > tol[j]) done = false;
    }
    r.value = total;
    r.error = error;
    r.intervals = static_cast<int>(pieces.size());
    if (done) {
      r.converged = true;
      return r;
    }
    if (static_cast<int>(pieces.size()) >= max_intervals) return r;
    // Bisect the piece that contributes most to the worst component's error.
    std::size_t worst = 0;
    double worst_ratio = -1.0;
    for (std::size_t i = 0; i < pieces.size(); ++i)
      for (int j = 0; j < components; ++j) {
        const double ratio = pieces[i].error[j] / tol[j];
        if (ratio > worst_ratio) {
          worst_ratio = ratio;
          worst = i;
        }
      }
    const Piece p = pieces[worst];
    const double mid = 0.5 * (p.a + p.b);
    if (!(mid > p.a && mid < p.b)) return r;  // no room left to bisect
    pieces[worst] = rule(f, components, p.a, mid);
    pieces.push_back(rule(f, components, mid, p.b));
  }
}

}  // namespace bvi::quadrature
