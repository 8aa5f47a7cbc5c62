#pragma once
// One generic checker for every AD op (after Stan's test_ad.hpp): the op's values against an
// independent double-precision formula written in the test, its gradient against central
// differences of that formula, and "throws exactly when the double version throws". Every
// subset of the inputs is tried as variables (the rest as constants), so the code paths that
// skip the backward work for data are covered too.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "inference/ad/tape.hpp"
#include "support/sanitized.hpp"

namespace bvi::test {

inline const double inf = std::numeric_limits<double>::infinity();
inline const double qnan = std::numeric_limits<double>::quiet_NaN();

using Arrays = std::vector<Eigen::ArrayXXd>;
using AdFn = std::function<ad::Var(ad::Tape&, const std::vector<ad::Var>&)>;
using RefFn = std::function<Eigen::ArrayXXd(const Arrays&)>;

// Under the sanitizers (tests/support/sanitized.hpp) the gradient is checked by central
// differences of the reference at kFdEntries entries of each input: those evaluate the reference,
// test code that made up most of that run's time (a 700 x 300 block's 600 differences: 106 s under
// ASan against 2.7 s in Release), while the op still runs forward and backward on every input.

struct CheckOptions {
  double value_rtol = 1e-13;  // relative tolerance on values (absolute below 1)
  double grad_tol = 1e-6;     // |ad - fd| <= grad_tol * max(1, |fd|)
  double fd_step = 1e-6;      // relative central-difference step
  bool check_grad = true;
  // Bit k set: input k is tried as a variable. Clear a bit where central differences cannot
  // resolve that input's derivative (d/d scale at x = 1e300, where the value is -1e300 and a
  // step of the scale moves it by less than its rounding).
  unsigned variable_inputs = ~0u;
};

inline bool same_value(double a, double b, double rtol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= rtol * std::max(1.0, std::abs(b));
}

inline std::string describe(const Arrays& xs) {
  std::ostringstream os;
  for (std::size_t k = 0; k < xs.size(); ++k)
    os << "input " << k << " (" << xs[k].rows() << "x" << xs[k].cols()
       << "): " << xs[k].transpose().format(Eigen::IOFormat(4, Eigen::DontAlignCols, " ", "; ")) << "\n";
  return os.str();
}

// Runs the AD op with inputs marked variable where mask bit k is set; returns the output value
// and, for variables, d(sum(w .* out))/d(input).
struct AdRun {
  bool threw = false;
  Eigen::ArrayXXd value;
  Arrays grads;
};

inline AdRun run_ad(const AdFn& f, const Arrays& xs, unsigned mask, const Eigen::ArrayXXd* w) {
  AdRun r;
  ad::Tape tape;
  std::vector<ad::Var> vars;
  r.grads.resize(xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) {
    r.grads[k] = Eigen::ArrayXXd::Zero(xs[k].rows(), xs[k].cols());
    if (mask & (1u << k))
      vars.push_back(tape.leaf(xs[k].data(), r.grads[k].data(), xs[k].rows(), xs[k].cols()));
    else
      vars.push_back(tape.constant(xs[k].data(), xs[k].rows(), xs[k].cols()));
  }
  try {
    ad::Var out = f(tape, vars);
    r.value = out.val();
    if (w) {
      REQUIRE(out.has_adj() == (mask != 0));
      tape.backward(out, w->data());
    }
  } catch (const std::exception&) {
    r.threw = true;
  }
  return r;
}

inline void check_op(const std::string& name, const AdFn& f, const RefFn& ref, const Arrays& xs,
                     const CheckOptions& opt = {}) {
  INFO(name << "\n" << describe(xs));
  // Throw parity and values, with every input constant.
  bool ref_threw = false;
  Eigen::ArrayXXd expected;
  try {
    expected = ref(xs);
  } catch (const std::exception&) {
    ref_threw = true;
  }
  const AdRun plain = run_ad(f, xs, 0u, nullptr);
  REQUIRE_MESSAGE(plain.threw == ref_threw, "the op throws iff the double version throws");
  if (ref_threw) return;
  REQUIRE(plain.value.rows() == expected.rows());
  REQUIRE(plain.value.cols() == expected.cols());
  for (Eigen::Index i = 0; i < expected.size(); ++i)
    CHECK_MESSAGE(same_value(plain.value(i), expected(i), opt.value_rtol),
                  "value " << i << ": ad " << plain.value(i) << " vs reference " << expected(i));
  if (!opt.check_grad) return;

  // Random output weights make the check see the whole Jacobian, not just its column sums.
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> unif(0.5, 1.5);
  Eigen::ArrayXXd w(expected.rows(), expected.cols());
  for (Eigen::Index i = 0; i < w.size(); ++i) w(i) = unif(rng) * ((i % 2) ? -1.0 : 1.0);

  // Central differences of the reference, d(sum(w .* ref))/d(input k)[i], NaN where undefined
  // (an output at or stepping to an infinity). They do not depend on which other inputs are
  // variables, so each input's are taken once, on the first mask that has it.
  const unsigned n_inputs = static_cast<unsigned>(xs.size());
  std::vector<Eigen::ArrayXXd> fd(n_inputs);
  auto central_differences = [&](unsigned k) {
    fd[k].resize(xs[k].rows(), xs[k].cols());
    const Eigen::Index n = xs[k].size();
    for (Eigen::Index i = 0; i < n; ++i) {
      fd[k](i) = std::numeric_limits<double>::quiet_NaN();
      const double x0 = xs[k](i);
      if (!std::isfinite(x0) || !fd_entry(i, n)) continue;
      Arrays plus = xs, minus = xs;
      const double h = opt.fd_step * std::max(1.0, std::abs(x0));
      plus[k](i) = x0 + h;
      minus[k](i) = x0 - h;
      // Difference output by output before weighting, so a large unrelated output cannot
      // swamp the difference by cancellation.
      const Eigen::ArrayXXd fp = ref(plus), fm = ref(minus);
      double d = 0.0;
      bool defined = true;
      for (Eigen::Index o = 0; o < fp.size(); ++o) {
        if (fp(o) == fm(o)) {  // unaffected, unless it is stuck at an infinity
          if (!std::isfinite(fp(o))) defined = false;
          continue;
        }
        if (!std::isfinite(fp(o)) || !std::isfinite(fm(o))) defined = false;
        d += w(o) * (fp(o) - fm(o));
      }
      if (defined) fd[k](i) = d / (2 * h);
    }
  };
  for (unsigned mask = 1; mask < (1u << n_inputs); ++mask) {
    if (mask & ~opt.variable_inputs) continue;
    INFO("variable-input mask " << mask);
    const AdRun r = run_ad(f, xs, mask, &w);
    REQUIRE_FALSE(r.threw);
    for (unsigned k = 0; k < n_inputs; ++k) {
      if (!(mask & (1u << k))) continue;
      if (fd[k].size() != xs[k].size()) central_differences(k);
      for (Eigen::Index i = 0; i < xs[k].size(); ++i) {
        const double g = fd[k](i);
        if (std::isnan(g)) continue;  // no derivative to compare
        CHECK_MESSAGE(std::abs(r.grads[k](i) - g) <= opt.grad_tol * std::max(1.0, std::abs(g)),
                      "d/d input " << k << "[" << i << "]: ad " << r.grads[k](i) << " vs fd " << g);
      }
    }
  }
}

// Convenience: a matrix from rows of values.
inline Eigen::ArrayXXd arr(std::initializer_list<std::initializer_list<double>> rows) {
  const auto r = static_cast<Eigen::Index>(rows.size());
  const auto c = r ? static_cast<Eigen::Index>(rows.begin()->size()) : 0;
  Eigen::ArrayXXd a(r, c);
  Eigen::Index i = 0;
  for (const auto& row : rows) {
    Eigen::Index j = 0;
    for (double v : row) a(i, j++) = v;
    ++i;
  }
  return a;
}

}  // namespace bvi::test
