#pragma once
// Anderson acceleration of a fixed-point iteration x <- G(x) (Walker & Ni 2011, "type II"):
// from the last few iterates x_i and residuals f_i = G(x_i) - x_i, the next iterate is
//   x + f - (dX + dF) gamma,   gamma = argmin |f - dF gamma|,
// with dX, dF the differences of consecutive x's and f's. Where the plain iteration converges
// linearly at a rate near 1 (meanfield's precisions on wide data, each row's predictor variance
// summing thousands of coordinates, contract by ~0.94 per step), the combination extrapolates
// along the slow directions; with no history it is the plain step x + f.
#include <Eigen/Core>
#include <Eigen/QR>
#include <deque>
#include <vector>

namespace bvi::vi {

class Anderson {
 public:
  explicit Anderson(int memory = 5) : memory_(memory) {}

  // The next iterate for x and f = G(x) - x.
  Eigen::VectorXd next(const Eigen::VectorXd& x, const Eigen::VectorXd& f);
  void reset();
  bool empty() const { return dx_.empty(); }

  // For checkpoints: the whole history, and its restoration.
  std::vector<double> state() const;
  void set_state(const std::vector<double>& s);

 private:
  int memory_;
  Eigen::VectorXd last_x_, last_f_;
  std::deque<Eigen::VectorXd> dx_, df_;
  // Reused from call to call (the sparse family's iterates have millions of coordinates): the
  // history as matrices (DF_ then factorized in place), their sum, a dropped difference.
  Eigen::MatrixXd DF_, DX_, sum_;
  Eigen::VectorXd spare_x_, spare_f_;
};

}  // namespace bvi::vi
