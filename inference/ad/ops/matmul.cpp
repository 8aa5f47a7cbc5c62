#include "inference/ad/ops/matmul.hpp"

#include <stdexcept>
#include <string>

#include "inference/ad/tape.hpp"

namespace bvi::ad {

Var matmul(const Var& a, const Var& b) {
  if (a.cols() != b.rows())
    throw std::invalid_argument("matmul: inner dimensions differ (" + std::to_string(a.cols()) + " vs " +
                                std::to_string(b.rows()) + ")");
  Tape& tape = a.tape();
  Var c = tape.make(a.rows(), b.cols(), any_adj(a, b));
  Eigen::Map<Eigen::MatrixXd> cv(tape.val_ptr(c), c.rows(), c.cols());
  if (a.cols() == 0)
    cv.setZero();
  else
    cv.noalias() = a.mat() * b.mat();
  if (c.has_adj()) {
    tape.on_backward([a, b, c] {
      if (a.has_adj()) a.adj_mat().noalias() += c.adj_mat() * b.mat().transpose();
      if (b.has_adj()) b.adj_mat().noalias() += a.mat().transpose() * c.adj_mat();
    });
  }
  return c;
}

}  // namespace bvi::ad
