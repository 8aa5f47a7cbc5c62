#pragma once
// What is reported about the final approximation: its ELBO from fresh draws (not an average
// over the last iterates), draws for draws.csv with their log p and log q, and the PSIS k-hat of
// the importance ratios p/q (Yao et al. 2018).
#include <Eigen/Core>
#include <cstdint>
#include <string>

#include "inference/diagnostics/psis.hpp"
#include "inference/elbo.hpp"
#include "inference/families/family.hpp"
#include "inference/log_density.hpp"

namespace bvi::vi {

// Whether the summary's ELBO comes from the output draws (report_final_from_output) rather than
// final_elbo_draws fresh ones: the Monte Carlo method's natural optimizer with final_elbo_draws
// automatic and at least 1000 output draws, unless a parameter block's summaries (correlations,
// ordered cutpoints: a block transform) come from the ELBO's draws and want more of them. What the
// fit does and what its memory estimate counts.
inline bool elbo_from_output_draws(bool monte_carlo, bool final_elbo_automatic, const std::string& optimizer,
                                   long long output_draws, bool block_transforms) {
  return monte_carlo && final_elbo_automatic && optimizer == "natural" && output_draws >= 1000 && !block_transforms;
}

// Which columns of the output draws a caller keeps: all of them (draws.csv), or columns
// [first, first + count) (the summaries of a block transform's columns), or none (count 0). The
// draws are the same either way; kept partly, they pass through the log joint a batch at a time,
// so the final phase holds a batch of P-vectors, not all of them.
struct KeptColumns {
  Eigen::Index first = 0;
  Eigen::Index count = -1;  // -1: every column
  static KeptColumns all() { return {}; }
  static KeptColumns none() { return {0, 0}; }
};

struct OutputDraws {
  Eigen::MatrixXd zeta;   // S x P, unconstrained (S x count: columns first.. when kept partly)
  Eigen::Index zeta_first = 0;  // the column of the draws that zeta's first column is
  Eigen::VectorXd log_p;  // log joint on the unconstrained scale (with the Jacobian), as Stan's log_p__
  Eigen::VectorXd log_q;  // log density under q, every constant included
};

struct FinalReport {
  ElboEstimate elbo;
  Eigen::MatrixXd elbo_draws;  // the draws behind `elbo` (unconstrained), for Monte Carlo summaries
  OutputDraws draws;
  diagnostics::ParetoFit pareto;
  Eigen::Index pareto_draws = 0;  // how many importance ratios k-hat was computed from
  Eigen::Index elbo_draw_count = 0;  // how many draws `elbo` was estimated from (0: known exactly)
};

// ELBO from `elbo_draws` draws; `output_draws` draws for the CSV; k-hat from the output draws, or
// from the ELBO draws when fewer than 100 output draws are asked for.
FinalReport report_final(LogDensity& density, const Family& q, std::uint64_t seed, Eigen::Index elbo_draws,
                         Eigen::Index output_draws, KeptColumns kept = KeptColumns::all());

// The ELBO from the output draws themselves (no pass over the data beyond theirs), as the mean of
// log p - log q: log q(z) has the known mean -entropy under q, so this is unbiased like mean log p
// + entropy, and it is a control variate for it (log p - log q is nearly constant when q is close
// to the posterior, where log p alone varies by about sqrt(P/2)); its standard error is that of
// the difference. k-hat from the same draws. Needs output_draws >= 100.
FinalReport report_final_from_output(LogDensity& density, const Family& q, std::uint64_t seed,
                                     Eigen::Index output_draws, KeptColumns kept = KeptColumns::all());

// The same for the exact method, whose ELBO (and its standard error, 0 unless some prior terms
// are sample averages) is known: only the output draws, and k-hat from them, or from
// `psis_draws` draws when fewer than 100 output draws are asked for.
FinalReport report_final_exact(LogDensity& density, const Family& q, std::uint64_t seed, double elbo, double elbo_se,
                               Eigen::Index psis_draws, Eigen::Index output_draws,
                               KeptColumns kept = KeptColumns::all());

}  // namespace bvi::vi
