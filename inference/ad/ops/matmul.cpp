#include "inference/ad/ops/matmul.hpp"

#include <stdexcept>
#include <string>

#include "inference/ad/gemm.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

Var matmul(const Var& a, const Var& b) {
  if (a.cols() != b.rows())
    throw std::invalid_argument("matmul: inner dimensions differ (" + std::to_string(a.cols()) + " vs " +
                                std::to_string(b.rows()) + ")");
  Tape& tape = a.tape();
  Var c = tape.make(a.rows(), b.cols(), any_adj(a, b));
  const Index m = a.rows(), k = a.cols(), n = b.cols();
  Eigen::Map<Eigen::MatrixXd>(tape.val_ptr(c), m, n).setZero();
  // Through the arena-backed GEMM: Eigen's own would allocate its packing buffers per call.
  GemmWorkspace<double>(tape.arena())
      .add_product<Eigen::ColMajor, Eigen::ColMajor>(m, n, k, a.val_data(), m, b.val_data(), k, tape.val_ptr(c), m);
  if (c.has_adj()) {
    tape.on_backward([a, b, c, m, n, k] {
      GemmWorkspace<double> gemm(a.tape().arena());
      // dA += dC B^T: B (k x n, column-major) read row-major is B^T.
      if (a.has_adj())
        gemm.add_product<Eigen::ColMajor, Eigen::RowMajor>(m, k, n, c.adj_data(), m, b.val_data(), k, a.adj_data(), m);
      // dB += A^T dC: A (m x k, column-major) read row-major is A^T.
      if (b.has_adj())
        gemm.add_product<Eigen::RowMajor, Eigen::ColMajor>(k, n, m, a.val_data(), m, c.adj_data(), m, b.adj_data(), k);
    });
  }
  return c;
}

}  // namespace bvi::ad
