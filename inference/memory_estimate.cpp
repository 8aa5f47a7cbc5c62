#include "inference/memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bvi::vi {

namespace {

constexpr double kDouble = 8;
constexpr double kMiB = 1024.0 * 1024.0;

double d(long long n) {
  return static_cast<double>(n);
}

// Draws in one log joint pass.
double batch(const RunSizes& s) {
  return d(std::min(s.draws_per_step, kLogJointBatch));
}

// Numbers of q: the mean and log sds, or the mean and a Cholesky factor.
double family_numbers(const RunSizes& s) {
  const double P = d(s.parameters);
  return s.algorithm == "fullrank" ? P + P * (P + 1) / 2 : 2 * P;
}

// The state a checkpoint holds, as numbers: q, and the optimizer's own (natural keeps meanfield's
// P x P curvature, adam two moments, adaptive one).
double state_numbers(const RunSizes& s) {
  const double n = family_numbers(s), P = d(s.parameters);
  if (s.optimizer == "natural") return n + (s.algorithm == "meanfield" ? P * P : 0);
  if (s.optimizer == "adam") return 3 * n;
  if (s.optimizer == "adaptive") return 2 * n;
  return n;
}

// Stochastic VI with a Gaussian family (meanfield, fullrank), as inference/advi.cpp runs it.
void monte_carlo_vi(const RunSizes& s, std::vector<MemoryTerm>& out) {
  const double P = d(s.parameters), S = d(std::max(s.draws_per_step, s.elbo_samples));
  // ElboEstimator: eps, zeta = mu + L eps and the gradient of log p at zeta, S x P each.
  out.push_back({"draws and gradients (3 x draws_per_step x P)", Phase::iterations, 3 * S * P * kDouble});
  double matrices = 0;
  if (s.optimizer == "natural") {
    // The regression of the gradients on the draws centres both (2 S x P); its covariances, their
    // Cholesky factor, the curvature and its average are P x P (fullrank also keeps L, its inverse
    // and the new covariance beside them).
    matrices = 2 * S * P + (s.algorithm == "fullrank" ? 11 : 6) * P * P;
  } else if (s.algorithm == "fullrank") {
    matrices = 2 * P * P;  // the Cholesky factor formed for the draws and for the gradient
  }
  matrices += 3 * family_numbers(s);  // q, its gradient, the optimizer's moments
  out.push_back({"optimizer and family matrices", Phase::iterations, matrices * kDouble});
  if (s.checkpoints) {
    // checkpoint_text: a JSON tree of hex strings (a node and a heap string each, ~80 bytes) and
    // its text twice (~25 bytes per number each), at the same time.
    out.push_back({"checkpoint text", Phase::iterations, state_numbers(s) * 130});
  }
  // report_final: the ELBO's draws (eps, zeta and the copy kept for the summary), then the output
  // draws beside that copy (eps, zeta, their copy, the constrained draws).
  const double F = d(s.final_elbo_draws), O = d(s.output_draws);
  out.push_back({"final draws (final_elbo_draws and output_draws x P)", Phase::final,
                 std::max(3 * F, F + 4 * O) * P * kDouble + 3 * F * kDouble});
  if (s.output_files) {
    // draws.csv: up to 25 characters per number (17 significant digits, sign, exponent, comma).
    out.push_back({"draws.csv text", Phase::final, (O + 1) * (P + 3) * 25 + P * 200});
  }
}

struct Method {
  const char* name;
  MethodTerms terms;
};

// One line per method of fitting.
const Method kMethods[] = {
    {"meanfield", &monte_carlo_vi},
    {"fullrank", &monte_carlo_vi},
};

}  // namespace

double MemoryEstimate::phase_bytes(Phase phase) const {
  double sum = 0;
  for (const MemoryTerm& t : terms)
    if (t.phase == phase) sum += t.bytes;
  return sum;
}

const MemoryTerm& MemoryEstimate::largest() const {
  return *std::max_element(terms.begin(), terms.end(),
                           [](const MemoryTerm& a, const MemoryTerm& b) { return a.bytes < b.bytes; });
}

std::vector<std::string> estimated_methods() {
  std::vector<std::string> names;
  for (const Method& m : kMethods) names.push_back(m.name);
  return names;
}

MemoryEstimate estimate_memory(const RunSizes& s) {
  const Method* method = nullptr;
  for (const Method& m : kMethods)
    if (s.algorithm == m.name) method = &m;
  if (!method) throw std::invalid_argument("no memory estimate for the method '" + s.algorithm + "'");

  MemoryEstimate e;
  auto& t = e.terms;
  const double N = d(s.rows), D = d(s.features), P = d(s.parameters), B = batch(s);
  t.push_back({"program and libraries", Phase::always, s.program_bytes});
  t.push_back({"data", Phase::always,
               N * D * s.dtype_bytes + N * kDouble * (1 + d(s.extra_columns) + (s.row_constants ? 1 : 0))});
  // Reading: the extra columns side by side before they are combined; the read buffers (1 MiB).
  t.push_back({"reading the data", Phase::load, N * kDouble * d(s.extra_columns) + 2 * kMiB});
  // A tape per thread: a 4 MiB block, of which a row block touches (and counts as resident) the
  // gradient of the logits with respect to beta (B x D doubles, and a float copy for float32),
  // the logits of one cache-sized tile (256 KiB) and GEMM packing, or for the untiled kernels the
  // logits, their gradients and the linear predictor of the whole block (B x block_rows each).
  const double float_copy = s.dtype_bytes == 4 ? 4 : 0;
  const double per_block = B * D * (kDouble + float_copy) + 0.5 * kMiB +
                           (s.tiled_kernel ? 0 : B * d(s.block_rows) * (2 * s.dtype_bytes + kDouble));
  t.push_back({"AD tapes (per thread)", Phase::always, s.threads * per_block});
  // The head tape (transforms and priors of a batch, a few B x P arrays) and the batch buffers.
  t.push_back(
      {"log joint batch buffers", Phase::always, std::max(kMiB, 5 * B * P * kDouble) + 2 * B * P * kDouble});
  // ChunkReducer: one slot of B + B P doubles (rounded to a cache line) per owned chunk, and with
  // several ranks every chunk's slot on every rank (the gathered partials).
  const double stride = std::ceil((B + B * P) / 8) * 8 * kDouble;
  const double slots = d(s.chunks_owned) + (s.ranks > 1 ? d(s.chunks_total) : 0);
  t.push_back({"reducer slots (per chunk: draws x (P + 1))", Phase::always, slots * stride + stride});
  method->terms(s, t);

  e.peak =
      e.phase_bytes(Phase::always) +
      std::max({e.phase_bytes(Phase::load), e.phase_bytes(Phase::iterations), e.phase_bytes(Phase::final)});
  return e;
}

}  // namespace bvi::vi
