#include "inference/exact/exact_cost.hpp"

#include <algorithm>
#include <sstream>

namespace bvi::vi {

ExactCost exact_cost(double rows, double linear, double parameters, bool dense) {
  ExactCost c;
  if (dense) {
    // Per pass: Y = X~ L11 and X~' diag(dv) X~, 4 N D^2; about 1.5 passes per iteration with the
    // line search. The optimizer: L^-1, Lambda, L' Lambda' L, two Cholesky factorizations and a
    // solve for Sigma', about 8 P^3 (and 3 more per halved step).
    c.flops_per_iteration = 1.5 * 4.0 * rows * linear * linear + 8.0 * parameters * parameters * parameters;
    c.matrix_bytes = 8.0 * 8.0 * parameters * parameters;
  } else {
    // An evaluation pass (moments, quadrature, gradient: about 10 N D and the quadrature) and
    // about three Hessian-vector passes (4 N D each).
    c.flops_per_iteration = 10.0 * rows * linear + 3.0 * 4.0 * rows * linear + 40.0 * rows;
    c.matrix_bytes = 8.0 * 16.0 * parameters;
  }
  return c;
}

ExactCost sparse_exact_cost(double rows, double linear, double parameters, double effects, double values,
                            double factor_nonzeros) {
  ExactCost c;
  const double L = factor_nonzeros > 0 ? factor_nonzeros : 0.5 * values;
  // Per pass (about 1.5 per iteration): the population block's two GEMMs, each effect's entries
  // with the population coordinates and its group's effects, both ways. The optimizer: a
  // factorization and a selected inversion per trial point, each about nnz(L) times the mean
  // column length, and a few passes over the pattern's values.
  c.flops_per_iteration = 1.5 * rows * (4.0 * linear * linear + 6.0 * effects * linear + 4.0 * effects * effects) +
                          4.0 * L * (L / std::max(1.0, parameters)) + 20.0 * values;
  c.matrix_bytes = 8.0 * (16.0 * values + 3.0 * L);
  return c;
}

std::string ExactCost::describe() const {
  std::ostringstream s;
  s.precision(2);
  s << "about " << flops_per_iteration << " flops per iteration, " << matrix_bytes / 1e6
    << " MB of optimizer state";
  return s.str();
}

}  // namespace bvi::vi
