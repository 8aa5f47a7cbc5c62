#include "inference/ad/ops/softplus.hpp"

#include "inference/ad/tape.hpp"

namespace bvi::ad {

namespace {
// Shared forward: saves e = exp(-|x|) for the backward pass, which then needs no exp.
// log(1 + e) rather than log1p(e): Eigen vectorizes log but evaluates log1p one scalar at a
// time; e <= 1, so the absolute error is below 1e-16.
template <int Sign>
Var softplus_signed(const Var& x) {
  Tape& tape = x.tape();
  Var y = tape.make(x.rows(), x.cols(), x.has_adj());
  Eigen::Map<Eigen::ArrayXXd> yv(tape.val_ptr(y), y.rows(), y.cols());
  double* saved = x.has_adj() ? tape.scratch(x.size()) : nullptr;
  Eigen::ArrayXXd::MapType e(saved, x.rows(), x.cols());
  if (saved) {
    e = (-x.val().abs()).exp();
    if (Sign > 0)
      yv = x.val().max(0.0) + (1.0 + e).log();
    else
      yv = x.val().min(0.0) - (1.0 + e).log();
  } else {
    if (Sign > 0)
      yv = x.val().max(0.0) + (1.0 + (-x.val().abs()).exp()).log();
    else
      yv = x.val().min(0.0) - (1.0 + (-x.val().abs()).exp()).log();
  }
  if (y.has_adj()) {
    tape.on_backward([x, y, saved] {
      Eigen::Map<const Eigen::ArrayXXd> e(saved, x.rows(), x.cols());
      // sigmoid(x) = 1/(1+e) for x >= 0 and e/(1+e) for x < 0, with e = exp(-|x|);
      // sigmoid(-x) swaps the two branches.
      const auto up = (x.val() >= 0.0);
      if (Sign > 0)
        x.adj() += y.adj() * up.select(1.0, e) / (1.0 + e);
      else
        x.adj() += y.adj() * up.select(e, 1.0) / (1.0 + e);
    });
  }
  return y;
}
}  // namespace

Var softplus(const Var& x) {
  return softplus_signed<1>(x);
}
Var log_sigmoid(const Var& x) {
  return softplus_signed<-1>(x);
}

}  // namespace bvi::ad
