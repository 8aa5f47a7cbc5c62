#include "inference/ad/ops/log.hpp"

#include "inference/ad/tape.hpp"

namespace bvi::ad {

Var log(const Var& x) {
  Tape& tape = x.tape();
  Var y = tape.make(x.rows(), x.cols(), x.has_adj());
  Eigen::Map<Eigen::ArrayXXd>(tape.val_ptr(y), y.rows(), y.cols()) = x.val().log();
  if (y.has_adj()) tape.on_backward([x, y] { x.adj() += y.adj() / x.val(); });
  return y;
}

}  // namespace bvi::ad
