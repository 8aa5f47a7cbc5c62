#pragma once
// The bound on q's mean move per iteration that both natural-gradient rules (exact and Monte
// Carlo) apply: a coordinate on a log or logit scale moves by at most 1 (a factor e) per step.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

namespace bvi::vi {

// Shortens `step` as a whole, keeping its direction, so that no coordinate moves more than its
// bound (infinity: unbounded). An empty `bounds` leaves the step as it is.
inline void bound_step(Eigen::VectorXd& step, const Eigen::VectorXd& bounds) {
  if (bounds.size() != step.size()) return;
  double factor = 1.0;
  for (Eigen::Index j = 0; j < step.size(); ++j) factor = std::max(factor, std::abs(step[j]) / bounds[j]);
  if (factor > 1.0) step /= factor;
}

}  // namespace bvi::vi
