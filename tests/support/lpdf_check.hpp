#pragma once
// The checks every elementwise log density goes through, on top of check_op (ad_check.hpp):
// the reference is a scalar double formula written in the test, broadcast here the numpy way;
// check_broadcasting runs it over the shapes a prior sees (x S x K, each hyperparameter 1 x 1,
// 1 x K per coefficient, S x 1 per draw, S x K, and mixtures), a broadcast x, a 1 x 1 call, an
// empty x and mismatched shapes (which must throw).
#include <array>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/ad_check.hpp"

namespace bvi::test {

// One element of the log density: args[0] is x, then the hyperparameters in order.
using ScalarLpdf = std::function<double(const std::vector<double>& args)>;

// The op over broadcast arrays; throws std::invalid_argument where numpy would refuse the shapes.
inline RefFn broadcast_ref(ScalarLpdf f) {
  return [f](const Arrays& xs) {
    auto dim = [](Eigen::Index a, Eigen::Index b) {
      if (a != b && a != 1 && b != 1) throw std::invalid_argument("shapes do not broadcast");
      return a == 1 ? b : a;
    };
    Eigen::Index R = xs[0].rows(), C = xs[0].cols();
    for (std::size_t k = 1; k < xs.size(); ++k) {
      R = dim(R, xs[k].rows());
      C = dim(C, xs[k].cols());
    }
    Eigen::ArrayXXd out(R, C);
    std::vector<double> args(xs.size());
    for (Eigen::Index i = 0; i < R; ++i)
      for (Eigen::Index j = 0; j < C; ++j) {
        for (std::size_t k = 0; k < xs.size(); ++k)
          args[k] = xs[k](xs[k].rows() == 1 ? 0 : i, xs[k].cols() == 1 ? 0 : j);
        out(i, j) = f(args);
      }
    return out;
  };
}

// The op on its inputs as Vars, for check_op.
template <class Op>
AdFn as_ad(Op op) {
  return [op](ad::Tape&, const std::vector<ad::Var>& v) -> ad::Var {
    if constexpr (std::is_invocable_v<Op, ad::Var, ad::Var>) {
      return op(v[0], v[1]);
    } else if constexpr (std::is_invocable_v<Op, ad::Var, ad::Var, ad::Var>) {
      return op(v[0], v[1], v[2]);
    } else {
      return op(v[0], v[1], v[2], v[3]);
    }
  };
}

// A hyperparameter's valid values: `per_coef` (K of them, for 1 x K and S x K) and `per_draw`
// (S of them, for S x 1 and S x K).
struct HyperValues {
  std::vector<double> per_coef;
  std::vector<double> per_draw;
};

inline Eigen::ArrayXXd row_of(const std::vector<double>& v) {
  Eigen::ArrayXXd a(1, static_cast<Eigen::Index>(v.size()));
  for (std::size_t j = 0; j < v.size(); ++j) a(0, static_cast<Eigen::Index>(j)) = v[j];
  return a;
}
inline Eigen::ArrayXXd col_of(const std::vector<double>& v) {
  return row_of(v).transpose();
}

// x is S x K; every hyperparameter takes each of the prior's shapes in turn, together and mixed.
inline void check_broadcasting(const std::string& name, const AdFn& f, const RefFn& ref, const Eigen::ArrayXXd& x,
                               const std::vector<HyperValues>& hypers, const CheckOptions& opt = {}) {
  const Eigen::Index S = x.rows(), K = x.cols();
  for (const auto& h : hypers) {
    REQUIRE(static_cast<Eigen::Index>(h.per_coef.size()) == K);
    REQUIRE(static_cast<Eigen::Index>(h.per_draw.size()) == S);
  }
  enum Kind { scalar, coef, draw, full };
  auto make = [&](const HyperValues& h, Kind kind) -> Eigen::ArrayXXd {
    switch (kind) {
      case scalar: return row_of({h.per_coef[0]});
      case coef: return row_of(h.per_coef);
      case draw: return col_of(h.per_draw);
      default: {
        Eigen::ArrayXXd a(S, K);  // a valid value at each entry, varying along both dimensions
        for (Eigen::Index i = 0; i < S; ++i)
          for (Eigen::Index j = 0; j < K; ++j) a(i, j) = (i + j) % 2 ? h.per_coef[j] : h.per_draw[i];
        return a;
      }
    }
  };
  const char* kind_names[] = {"1x1", "1xK", "Sx1", "SxK"};
  auto run = [&](const Eigen::ArrayXXd& xx, const std::vector<Kind>& kinds, const std::string& what) {
    Arrays in{xx};
    std::string shapes;
    for (std::size_t k = 0; k < hypers.size(); ++k) {
      in.push_back(make(hypers[k], kinds[k]));
      shapes += std::string(k ? ", " : "") + kind_names[kinds[k]];
    }
    check_op(name + ": " + what + " hyperparameters " + shapes, f, ref, in, opt);
  };
  const std::size_t n = hypers.size();
  for (Kind kind : {scalar, coef, draw, full}) run(x, std::vector<Kind>(n, kind), "x SxK,");
  // Mixed: hyperparameter k takes shape (k + shift) mod 4.
  for (int shift = 1; shift < 4; ++shift) {
    std::vector<Kind> kinds;
    for (std::size_t k = 0; k < n; ++k) kinds.push_back(static_cast<Kind>((k + shift) % 4));
    run(x, kinds, "x SxK, mixed");
  }
  // x broadcast against full hyperparameters; a single element; no draws.
  run(x.block(0, 0, 1, 1), std::vector<Kind>(n, full), "x 1x1,");
  run(x.block(0, 0, 1, 1), std::vector<Kind>(n, scalar), "all 1x1,");
  run(Eigen::ArrayXXd(0, K), std::vector<Kind>(n, coef), "x empty (0xK),");
  // Shapes that do not broadcast throw, in the op as in the reference.
  Arrays bad{x};
  for (std::size_t k = 0; k < n; ++k) bad.push_back(make(hypers[k], scalar));
  bad[1] = Eigen::ArrayXXd::Constant(1, K + 1, hypers[0].per_coef[0]);
  check_op(name + ": mismatched shapes", f, ref, bad, opt);
}

// Values only (no gradient check), for inputs where there is no derivative to compare.
inline CheckOptions values_only() {
  CheckOptions o;
  o.check_grad = false;
  return o;
}

// Gradients with respect to x only: for values so large (|log p| ~ 1e10 and beyond) that a
// difference step in a hyperparameter is lost in their rounding.
inline CheckOptions x_gradient_only() {
  CheckOptions o;
  o.variable_inputs = 1u;
  return o;
}

}  // namespace bvi::test
