#pragma once
// Standard normal draws from a counter-based generator (Random123's Philox4x64). A value is a
// pure function of (seed, purpose, step, attempt, draw, coordinate), so every rank and thread
// that asks for the draws of step t gets the same numbers without sharing any state, and a
// checkpointed run resumes on exactly the stream it left.
#include <Eigen/Core>
#include <cstdint>

namespace bvi::rng {

// What the draws are for: each purpose is its own stream, so changing one (say, more ELBO
// draws) never shifts the draws of another.
enum class Purpose : std::uint64_t {
  gradient = 1,         // the reparameterized gradient estimate of each step
  elbo = 2,             // the ELBO estimates of the stopping rule
  final_elbo = 3,       // the summary's ELBO at the final approximation
  output = 4,           // draws.csv and PSIS
  adaptation = 5,       // gradient steps of the adaptive optimizer's eta adaptation
  adaptation_elbo = 6,  // ELBO estimates of the eta adaptation
  simulation = 7,       // synthetic datasets (bayes-vi simulate): coefficients, features, responses
  fixed_draws = 8,      // the exact method's sample-average prior terms: drawn once, reused every iteration
  replicates = 9,       // predict --replicates: y_rep, step = replicate, draw = data record
};

// Fills `out` (S x P) with standard normals: row s is draw s, so the first S draws of a request
// do not depend on how many were requested. `attempt` separates redraws of rejected draws.
void standard_normal(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                     Eigen::Ref<Eigen::MatrixXd> out);

// The same for draws [first_draw, first_draw + out.rows()) of a larger request.
void standard_normal(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                     std::uint64_t first_draw, Eigen::Ref<Eigen::MatrixXd> out);

}  // namespace bvi::rng
