#pragma once
// Replicated data y_rep for posterior predictive checks (bayesplot's pp_check, ArviZ's
// plot_ppc): replicate r draws every row's response from p(y | theta_r), theta_r the fit's draw r.
//
// The randomness of replicate r and data record i is one Philox value keyed by (seed,
// Purpose::replicates, step r, draw i), so a value does not depend on the thread or rank that
// makes it, on the other rows, or on how many replicates are asked for (the first R of a larger
// request are the same). Each value is one inverse-CDF step, y = F^-1(u) (normal: eta + sigma z):
//   bernoulli: 1 when u <= p;  binomial, poisson, negative binomial: the smallest k with
//   F(k) >= u, F summed over the pmf from its mode outward (the ratios p(k+1)/p(k) of each
//   family) until the terms fall below 1e-18 of the mode's, which covers all but ~1e-17 of the mass.
// lognormal: exp(eta + sigma z). gamma_log and beta_logit have no closed-form quantile: their
// variates are simulate's (models/data/random_variates.hpp: Marsaglia and Tsang's gamma, the beta
// from two gammas) on further Philox values of the same key, attempts 1, 2, ...
#include <Eigen/Core>
#include <cstdint>

#include "models/fit_result.hpp"
#include "models/prediction.hpp"
#include "models/prediction_family.hpp"

namespace bvi::models {

// y drawn from the family at linear predictor eta (offset included), `trials` (binomial) and
// `scale` (sigma, phi), by the inverse CDF at u in (0, 1] (normal: z standard normal in `u`).
// Throws std::domain_error when the expected count is not finite or above 1e9 (a window of the
// pmf that large is not walked).
double replicate_value(const PredictFamily& family, double eta, double trials, double scale, double u);

// The smallest k >= 0 (<= n for binomial) with F(k) >= u for the counts of `family`; exposed for
// the unit test of the inverse CDF against scipy's ppf.
double count_quantile(const PredictFamily& family, double eta, double trials, double scale, double u);

// R x n replicates of the rows: replicate r from the fit's draw r (the fit must have at least R
// draws), row i keyed by record[i] (its record in the data file). Rows in blocks on `threads`
// threads; the values do not depend on `threads`.
Eigen::MatrixXd replicate_rows(const FitResult& fit, const PredictRows& rows,
                               const std::vector<Eigen::Index>& record, Eigen::Index replicates,
                               std::uint64_t seed, int threads);

}  // namespace bvi::models
