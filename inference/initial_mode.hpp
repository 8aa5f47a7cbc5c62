#pragma once
// A starting point for the natural optimizer near the posterior: the mode of log p by damped
// Newton steps from the origin, and the curvature there (Laplace's approximation). The Monte
// Carlo steps then refine q from there instead of walking from the origin inside their trust
// region (about 4 sqrt(P) of q's sds a step: some 25 steps on 10^5 rows).
//
// Each Newton iteration is two batches through the same log density the steps use: the gradient
// at x and at x + h w_j for P directions w_j (P + 1 points: the Hessian by forward differences of
// the gradient), and the backtracking line search's candidates x + a d, a = 1, 1/2, ..., 1/64
// (values only). The first directions are the axes (h w_j = 1e-4 max(1, |x_j|) e_j), later ones
// whiten the last curvature (1e-3 of a posterior sd along each, or enough to move some coordinate
// by the axes' step, for float32 data): along the axes an ill-conditioned posterior's flat
// directions drown in the differences' error. Where the Hessian is not negative definite (a
// non-log-concave density far from its mode) a multiple of the identity is added to its negative
// until it is (Levenberg), and a second direction shifts by a multiple of the last curvature
// instead; the line search, one batch for both, keeps the better point.
#include <Eigen/Core>

#include "inference/families/family.hpp"
#include "inference/log_density.hpp"

namespace bvi::vi {

struct ModeOptions {
  int max_iterations = 30;
  // Stop once the Newton decrement g^T H^-1 g, the squared distance to the mode in the metric of
  // the curvature (posterior sds), is below this: 1e-4 is 0.01 sd.
  double tol_decrement = 1e-4;
};

struct ModeFit {
  Eigen::VectorXd mode;       // the last iterate
  Eigen::MatrixXd precision;  // -Hessian of log p at it (symmetric, positive definite when ok)
  double log_density = 0;     // log p at `mode`
  int iterations = 0;         // Newton iterations taken
  int batches = 0;            // calls of the log density (passes over the data)
  bool converged = false;     // the decrement fell below tol_decrement
  bool ok = false;            // finite, with a positive definite precision: usable as a start
};

ModeFit find_mode(LogDensity& density, const Eigen::VectorXd& start, const ModeOptions& options = {});

// Puts q at Laplace's approximation of `fit` (fit.ok): its mean at the mode, and its precision
// the curvature there (fullrank), or its diagonal (meanfield: the KL-closest independent normals to
// a normal keep the diagonal of its precision). False, q untouched, for another family.
bool set_to_laplace(Family& q, const ModeFit& fit);

}  // namespace bvi::vi
