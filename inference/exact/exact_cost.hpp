#pragma once
// What an iteration of the exact method costs, from the problem's sizes alone, for `check`, the
// log at the start of a fit and the README's cost model:
//   meanfield: a pass over the data (moments, quadrature, gradient) and a few Hessian-vector
//              passes, O(N D) each; vectors of P;
//   fullrank:  the same passes with two GEMMs each, O(N D^2), and the precision's Cholesky
//              factorizations and inverses, O(P^3); a handful of P x P matrices;
//   sparse:    fullrank's passes over the population coordinates plus each row's effects,
//              O(N (D^2 + K D + K^2)), and the sparse factorization and selected inversion,
//              O(nnz(L) x its mean column length); vectors on the precision's pattern.
#include <string>

namespace bvi::vi {

struct ExactCost {
  double flops_per_iteration = 0;
  double matrix_bytes = 0;  // the optimizer's P x P matrices (fullrank) or P-vectors (meanfield)
  std::string describe() const;
};

// rows N, linear coefficients D (features, plus the intercept), all parameters P.
ExactCost exact_cost(double rows, double linear, double parameters, bool dense);
// The sparse family: K the group effects per row (summed over factors), `values` the pattern's
// values, `factor_nonzeros` its Cholesky factor's (0: not known, taken as values / 2).
ExactCost sparse_exact_cost(double rows, double linear, double parameters, double effects, double values,
                            double factor_nonzeros = 0);

}  // namespace bvi::vi
