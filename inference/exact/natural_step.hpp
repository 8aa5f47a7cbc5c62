#pragma once
// One iteration's proposals of the exact method's optimizer (exact_vi.cpp runs the loop): the
// natural-gradient fixed-point proposal for each family, the point a fraction of the way to it,
// the Anderson-mixed point, and q kept exactly representable by its family.
#include <Eigen/Core>
#include <string>

#include "inference/exact/anderson.hpp"
#include "inference/exact/exact_vi.hpp"
#include "inference/exact/expected_log_density.hpp"

namespace bvi::vi::exact {

// One natural-gradient proposal from q and the gradient there.
struct Proposal {
  Eigen::VectorXd step;                // the mean's Newton step
  Eigen::VectorXd lambda, lambda_new;  // meanfield: precisions now and proposed (structured: given the parent)
  Eigen::VectorXd b_new;               // structured: the proposed ties to the parents
  Eigen::MatrixXd Lambda, Lambda_new;  // fullrank
  Eigen::VectorXd prec_new;            // sparse: the proposed precision on the pattern
  double residual = 0.0;
  int cg_iterations = 0;
  // Fullrank: the proposed move in q's own units (L' step and L' (Lambda' - Lambda) L), for
  // telling oscillation from steady progress.
  Eigen::VectorXd direction;
};

// q as the family stores it: meanfield keeps log sd, fullrank the log of L's diagonal, and
// exp(log(x)) need not give back the last bit of x. Every q the optimizer evaluates goes through
// this first, so the state a checkpoint saves is exactly the state the run continues from.
void canonicalize(GaussianQ& q);

// The fixed-point proposal from q, given the gradient g there: new precisions (and, structured,
// ties), the mean's Newton step (meanfield by conjugate gradients to relative residual
// `forcing`), and the residual of the fixed point in q's own units.
Proposal propose(ExpectedLogDensity& density, const GaussianQ& q, const ExpectationGradient& g,
                 const ExactOptions& o, double forcing);

// q at fraction t of the way from q to the proposal (the precisions interpolated).
GaussianQ along(const GaussianQ& q, const Proposal& p, double t);

// Tries the Anderson-mixed point of the fixed-point map: meanfield (and structured) in
// (mean / scale_ref, log precision, ties in units of sd_p / sd_j; a point whose precisions stray
// more than 16-fold from the plain proposal's is not tried), fullrank in coordinates
// whitened by L0 (scale_ref holds it, flattened); the history restarts every 25 iterations and
// whenever a mixed point is no better than `elbo - slack`. True when a mixed point was tried
// and accepted (then trial, g_trial and trial_elbo hold it).
bool anderson_trial(ExpectedLogDensity& density, const GaussianQ& q, const Proposal& p, const ExactOptions& o,
                    long t, double elbo, double slack, Anderson& anderson, Eigen::VectorXd& scale_ref,
                    GaussianQ& trial, ExpectationGradient& g_trial, double& trial_elbo);

std::string format(double x);

}  // namespace bvi::vi::exact
