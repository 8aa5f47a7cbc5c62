#pragma once
// A node of the array-level tape: a whole matrix of values and, when something upstream needs a
// gradient, a matrix of adjoints of the same shape. Storage is column-major and contiguous, so
// a run of columns (one parameter block of an S x P draw matrix) is itself a Var, with no copy.
#include <Eigen/Core>
#include <cassert>

namespace bvi::ad {

class Tape;

using Index = Eigen::Index;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXXd>;
using ConstMatrixMap = Eigen::Map<const Eigen::MatrixXd>;

class Var {
 public:
  Var() = default;
  // `differentiable` says whether this node carries adjoints; it is separate from `adj` because
  // an empty matrix has no storage (a null pointer) and may still be a variable.
  Var(Tape* tape, const double* val, double* adj, Index rows, Index cols, bool differentiable)
      : tape_(tape), val_(val), adj_(adj), rows_(rows), cols_(cols), has_adj_(differentiable) {}

  Index rows() const { return rows_; }
  Index cols() const { return cols_; }
  Index size() const { return rows_ * cols_; }
  bool is_scalar() const { return rows_ == 1 && cols_ == 1; }

  // Constants (data, hyperparameters) carry no adjoint; ops skip their backward work.
  bool has_adj() const { return has_adj_; }

  ConstArrayMap val() const { return ConstArrayMap(val_, rows_, cols_); }
  ConstMatrixMap mat() const { return ConstMatrixMap(val_, rows_, cols_); }
  Eigen::Map<Eigen::ArrayXXd> adj() const {
    assert(has_adj_);
    return Eigen::Map<Eigen::ArrayXXd>(adj_, rows_, cols_);
  }
  Eigen::Map<Eigen::MatrixXd> adj_mat() const {
    assert(has_adj_);
    return Eigen::Map<Eigen::MatrixXd>(adj_, rows_, cols_);
  }
  const double* val_data() const { return val_; }
  double* adj_data() const { return adj_; }
  double value() const {  // the single value of a 1 x 1 Var
    assert(is_scalar());
    return *val_;
  }

  // Columns [first, first + n) as a Var sharing this one's storage: gradients flow back through
  // the shared adjoint memory, so slicing records nothing on the tape.
  Var cols(Index first, Index n) const {
    assert(first >= 0 && n >= 0 && first + n <= cols_);
    return Var(tape_, val_ + first * rows_, adj_ ? adj_ + first * rows_ : nullptr, rows_, n, has_adj_);
  }
  Var col(Index j) const { return cols(j, 1); }

  Tape& tape() const {
    assert(tape_ != nullptr);
    return *tape_;
  }

 private:
  Tape* tape_ = nullptr;
  const double* val_ = nullptr;
  double* adj_ = nullptr;
  Index rows_ = 0;
  Index cols_ = 0;
  bool has_adj_ = false;
};

}  // namespace bvi::ad
