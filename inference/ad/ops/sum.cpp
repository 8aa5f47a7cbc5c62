#include "inference/ad/ops/sum.hpp"

#include "inference/ad/tape.hpp"

namespace bvi::ad {

Var sum(const Var& x) {
  Tape& tape = x.tape();
  Var y = tape.make(1, 1, x.has_adj());
  *tape.val_ptr(y) = x.size() ? x.val().sum() : 0.0;
  if (y.has_adj()) tape.on_backward([x, y] { x.adj() += *y.adj_data(); });
  return y;
}

Var row_sums(const Var& x) {
  Tape& tape = x.tape();
  Var y = tape.make(x.rows(), 1, x.has_adj());
  Eigen::Map<Eigen::ArrayXd> yv(tape.val_ptr(y), x.rows());
  if (x.cols() == 0)
    yv.setZero();
  else
    yv = x.val().rowwise().sum();
  if (y.has_adj())
    tape.on_backward([x, y] { x.adj().colwise() += Eigen::Map<Eigen::ArrayXd>(y.adj_data(), y.rows()); });
  return y;
}

}  // namespace bvi::ad
