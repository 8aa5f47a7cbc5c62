#include "inference/optimizers/natural_convergence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "inference/families/fullrank.hpp"

namespace bvi::vi {

double natural_step_move(const Family& before, const Family& after) {
  const Eigen::ArrayXd sd0 = before.marginal_sd().array(), sd1 = after.marginal_sd().array();
  const Eigen::ArrayXd dmu = (after.mean() - before.mean()).array().abs() / sd1;
  const Eigen::ArrayXd dsd = (sd1.log() - sd0.log()).abs();
  double move = std::max(dmu.maxCoeff(), dsd.maxCoeff());
  // Fullrank: the Cholesky diagonal too, the conditional sds, which move with the correlations
  // where the marginal sds may not.
  const auto* f0 = dynamic_cast<const FullRank*>(&before);
  const auto* f1 = dynamic_cast<const FullRank*>(&after);
  if (f0 && f1) {
    const Eigen::ArrayXd l0 = f0->cholesky().diagonal().array(), l1 = f1->cholesky().diagonal().array();
    move = std::max(move, (l1.log() - l0.log()).abs().maxCoeff());
  }
  // NaN (a diverged step) is never quiet.
  return std::isnan(move) ? std::numeric_limits<double>::infinity() : move;
}

bool NaturalConvergence::record(long t, double move_over_rho) {
  if (converged_) return true;
  if (move_over_rho <= tol_) {
    largest_ = quiet_ == 0 ? move_over_rho : std::max(largest_, move_over_rho);
    ++quiet_;
  } else {
    quiet_ = 0;
    largest_ = 0;
  }
  converged_ = t >= kMinIterations && quiet_ >= kWindow;
  return converged_;
}

std::string NaturalConvergence::reason() const {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "q stopped moving: %ld consecutive natural steps each within %.3g of the optimum "
                "they estimate (step / rho, in posterior sds and log sds), below tol_step %.3g",
                quiet_, largest_, tol_);
  return buf;
}

void NaturalConvergence::set_state(const std::vector<double>& s) {
  if (s.size() != 2 || !(s[0] >= 0) || s[0] != std::floor(s[0]) || s[0] > 1e15 || !(s[1] >= 0) ||
      !std::isfinite(s[1]))
    throw std::invalid_argument("natural convergence rule: bad state");
  quiet_ = static_cast<long>(s[0]);
  largest_ = s[1];
  converged_ = false;
}

}  // namespace bvi::vi
