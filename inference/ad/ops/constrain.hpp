#pragma once
// The change of variables from the unconstrained space, column by column, with the log-Jacobian
// of each draw in the same pass (Stan's constraint transforms):
//   none:      x = u                                log J = 0
//   lower a:   x = a + e^u                          log J = u
//   upper b:   x = b - e^u                          log J = u
//   interval:  x = a + (b - a) sigmoid(u)           log J = log(b - a) + log sigmoid(u) + log sigmoid(-u)
// (positive is lower 0; unit_interval is interval (0, 1)).
#include <vector>

#include "inference/ad/var.hpp"

namespace bvi::ad {

enum class Bound : unsigned char { none, lower, upper, interval };

struct ColumnTransform {
  Bound bound = Bound::none;
  double lower = 0.0, upper = 0.0;
};

struct Constrained {
  Var x;             // S x P constrained values
  Var log_jacobian;  // S x 1, summed over columns
};

// `transforms` has one entry per column of `u` and must outlive the tape's backward pass.
Constrained constrain(const Var& u, const std::vector<ColumnTransform>& transforms);

// The values alone (no tape): x for every column of u.
void constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& u, const std::vector<ColumnTransform>& transforms,
                      Eigen::Ref<Eigen::MatrixXd> x);

}  // namespace bvi::ad
