#pragma once
// Pareto smoothed importance sampling (PSIS) and its k-hat diagnostic, used to judge a fitted
// approximation q (Yao, Vehtari, Simpson, Gelman 2018, "Yes, but did it work?: Evaluating
// variational inference"). Draws theta_s ~ q give importance ratios r_s = p(theta_s, y) / q(theta_s);
// a generalized Pareto distribution (GPD) is fitted to the largest ratios, and its shape k says
// how heavy their tail is: k < 0.5 the ratios have finite variance, k > 0.7 the approximation is
// not to be trusted (Yao et al. 2018; Vehtari et al. 2024, Sec. 3.2.4, eq. 13, give the sample-size-aware
// threshold 1 - 1/log10(S), 0.67 for S = 1000).
//
// The algorithm follows Vehtari, Simpson, Gelman, Yao, Gabry, "Pareto smoothed importance
// sampling", JMLR 25(72), 2024 (arXiv 1507.02646), as the R package loo (psis(), gpdfit()) and
// ArviZ's psislw implement it, with r_eff = 1 because the draws from q are independent:
//   - tail length M = ceil(min(S / 5, 3 sqrt(S)))                       (loo's n_pareto)
//   - threshold u = the (M+1)-th largest ratio; the GPD is fitted to r_s - u for the draws with
//     r_s > u (M of them unless ratios tie with u: a tie is not an exceedance);
//   - the fit is Zhang & Stephens' (2009) empirical-Bayes estimator with loo's weakly
//     informative prior on k;
//   - the smoothed weights replace the tail by u + F^{-1}((z - 1/2) / M), z = 1..M, truncated at
//     the largest raw ratio.
// Everything is computed on log ratios shifted by their maximum, so nothing over- or underflows
// before it is needed (log p values of -1e5 are normal for a large data set).
//
// Edge cases (decided here, tested in tests/unit/diagnostics/test_psis.cpp). k-hat is a
// reliability diagnostic read as "k > threshold => do not trust q", so every case where the tail
// cannot be judged returns k = +inf: NaN would compare false against any threshold and let a
// broken fit pass silently (loo returns Inf there too). `status` says which case it was.
//   - NaN or +inf log ratio: the model or q is broken at some draw. k = +inf, non_finite_ratio.
//   - -inf log ratio: a zero ratio (p = 0, or underflow far in q's tail). Allowed: such draws
//     weigh nothing and are ordinary members of the sample of S draws.
//   - Fewer than 5 draws strictly above the threshold (S <= 20, or ties at the threshold): too few
//     to fit a two-parameter distribution (loo's and ArviZ's minimum). k = +inf,
//     too_few_tail_draws.
//   - The threshold ratio is 0 (fewer than M + 1 draws have a finite log ratio): at least ~80%
//     of q's draws land where p has no mass, whatever the tail looks like. k = +inf,
//     zero_weight_threshold. The same when it is 0 relative to the largest ratio in double
//     precision (u / r_max < 2^-1022, log ratios more than 708 apart): the exceedances would
//     underflow to 0, and one draw outweighs the ~80% at or below the threshold by more than
//     double range. (loo fits those zeros and gets NaN, which it reports as Inf.)
//   - A flat tail: the M + 1 largest log ratios agree to within rounding, i.e.
//     max - u <= 1e-9 * max(1, |max log ratio|). This is what p = q looks like (constant ratios,
//     or constant up to the rounding of log p - log q, whose size grows with |log p|). A GPD
//     collapsing onto a point is the limit k -> -inf (support [0, sigma / |k|] shrinking to {0}),
//     and such a tail is as light as a tail can be, so k = -inf, sigma = 0, flat_tail. Here we
//     depart from loo and ArviZ, which return +inf ("cannot fit") and would flag an exact
//     approximation as unreliable. Rounding noise has an arbitrary shape, so fitting it would
//     give an arbitrary k. A JSON writer must map -inf and +inf itself (nlohmann writes null).
#include <Eigen/Core>

namespace bvi::diagnostics {

// Why k has the value it has; see the edge cases above.
enum class ParetoStatus {
  fitted,                 // k and sigma come from the GPD fit to the tail
  too_few_tail_draws,     // k = +inf
  zero_weight_threshold,  // k = +inf
  flat_tail,              // k = -inf, sigma = 0
  non_finite_ratio,       // k = +inf
};

// A short phrase for log messages: "fitted", "too few tail draws", ...
const char* to_string(ParetoStatus status);

struct ParetoFit {
  double k;                  // GPD shape k-hat, after the weakly informative prior adjustment
  double sigma;              // GPD scale of (r - u) / max_s r_s (NaN unless status is fitted or flat_tail)
  Eigen::Index tail_length;  // draws the GPD was fitted to and smoothed; 0 when not fitted
  ParetoStatus status;
};

// A generalized Pareto distribution with location 0: P(X > x) = (1 + k x / sigma)^(-1/k),
// P(X > x) = exp(-x / sigma) at k = 0. Positive k is a heavy (power-law) tail.
struct GeneralizedPareto {
  double k;
  double sigma;
};

// M = ceil(min(S / 5, 3 sqrt(S))): the number of largest ratios the GPD is fitted to
// (Vehtari et al. 2024, App. H; loo's n_pareto with r_eff = 1). 95 for S = 1000.
Eigen::Index psis_tail_length(Eigen::Index num_draws);

// Zhang & Stephens (2009) estimate of (k, sigma) from exceedances x_i >= 0 over a threshold,
// in any order, as loo's gpdfit(): a grid of 30 + floor(sqrt(n)) points in theta = -k / sigma,
// the profile log likelihood at each, and the posterior mean of theta. With
// weakly_informative_prior, k <- (n k + 10 * 0.5) / (n + 10): a prior worth 10 observations
// centred at k = 0.5 (loo's wip = TRUE); sigma is left as fitted, as loo does.
// Throws std::invalid_argument unless there are at least 2 exceedances, all finite and >= 0,
// and at least one > 0.
GeneralizedPareto fit_generalized_pareto(const Eigen::Ref<const Eigen::VectorXd>& exceedances,
                                         bool weakly_informative_prior = true);

// F^{-1}(p) = sigma ((1 - p)^(-k) - 1) / k, or -sigma log(1 - p) at k = 0, for p in [0, 1).
double generalized_pareto_quantile(double p, double k, double sigma);

// The Pareto k-hat diagnostic of log importance ratios log p(theta_s, y) - log q(theta_s).
// The ratios need not be normalized: adding a constant to every entry changes nothing.
ParetoFit pareto_k_hat(const Eigen::Ref<const Eigen::VectorXd>& log_ratios);

// Pareto smoothed, normalized log weights (their logsumexp is 0), one per draw, in input order.
// When the fit succeeds the tail is replaced by the GPD quantiles at (z - 1/2) / M in the order
// of the raw ratios (tied raw ratios get the mean of their quantiles, so the result does not
// depend on the draws' order), truncated at the largest raw ratio; every draw at or below the
// threshold keeps its raw ratio. In the other cases the weights are the raw ratios, normalized
// (plain importance sampling, as loo does), except that NaN or +inf log ratios, or all of them
// -inf, give NaN everywhere: there is nothing to normalize. Reports the diagnostic in *fit if
// given (the same as pareto_k_hat).
Eigen::VectorXd psis_log_weights(const Eigen::Ref<const Eigen::VectorXd>& log_ratios,
                                 ParetoFit* fit = nullptr);

}  // namespace bvi::diagnostics
