#pragma once
// What is reported about the final approximation: its ELBO from fresh draws (not an average
// over the last iterates), draws for draws.csv with their log p and log q, and the PSIS k-hat of
// the importance ratios p/q (Yao et al. 2018).
#include <Eigen/Core>
#include <cstdint>

#include "inference/diagnostics/psis.hpp"
#include "inference/elbo.hpp"
#include "inference/families/family.hpp"
#include "inference/log_density.hpp"

namespace bvi::vi {

struct OutputDraws {
  Eigen::MatrixXd zeta;   // S x P, unconstrained
  Eigen::VectorXd log_p;  // log joint on the unconstrained scale (with the Jacobian), as Stan's log_p__
  Eigen::VectorXd log_q;  // log density under q, every constant included
};

struct FinalReport {
  ElboEstimate elbo;
  Eigen::MatrixXd elbo_draws;  // the draws behind `elbo` (unconstrained), for Monte Carlo summaries
  OutputDraws draws;
  diagnostics::ParetoFit pareto;
  Eigen::Index pareto_draws = 0;  // how many importance ratios k-hat was computed from
};

// ELBO from `elbo_draws` draws; `output_draws` draws for the CSV; k-hat from the output draws, or
// from the ELBO draws when fewer than 100 output draws are asked for.
FinalReport report_final(LogDensity& density, const Family& q, std::uint64_t seed, Eigen::Index elbo_draws,
                         Eigen::Index output_draws);

// The same for the exact method, whose ELBO (and its standard error, 0 unless some prior terms
// are sample averages) is known: only the output draws, and k-hat from them, or from
// `psis_draws` draws when fewer than 100 output draws are asked for.
FinalReport report_final_exact(LogDensity& density, const Family& q, std::uint64_t seed, double elbo, double elbo_se,
                               Eigen::Index psis_draws, Eigen::Index output_draws);

}  // namespace bvi::vi
