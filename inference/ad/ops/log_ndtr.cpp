#include "inference/ad/ops/log_ndtr.hpp"

#include "inference/ad/tape.hpp"
#include "inference/math/log_ndtr.hpp"

namespace bvi::ad {

Var log_ndtr(const Var& x) {
  Tape& tape = x.tape();
  Var y = tape.make(x.rows(), x.cols(), x.has_adj());
  double* yv = tape.val_ptr(y);
  const double* xv = x.val_data();
  const Index n = x.size();
  // The derivative shares the value's erfc, so it is saved now rather than recomputed.
  double* d = x.has_adj() ? tape.scratch(n) : nullptr;
  if (d)
    for (Index i = 0; i < n; ++i) yv[i] = bvi::math::log_ndtr(xv[i], &d[i]);
  else
    for (Index i = 0; i < n; ++i) yv[i] = bvi::math::log_ndtr(xv[i]);
  if (y.has_adj())
    tape.on_backward(
        [x, y, d] { x.adj() += y.adj() * Eigen::Map<const Eigen::ArrayXXd>(d, x.rows(), x.cols()); });
  return y;
}

}  // namespace bvi::ad
