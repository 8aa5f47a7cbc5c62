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

bool fullrank(const RunSizes& s) {
  return s.algorithm == "fullrank";
}

// Numbers of q: the mean and log sds (and the structured family's ties), or the mean and a
// Cholesky factor.
double family_numbers(const RunSizes& s) {
  const double P = d(s.parameters);
  return fullrank(s)                  ? P + P * (P + 1) / 2
         : s.algorithm == "structured" ? 3 * P
         : s.algorithm == "sparse"     ? P + d(s.sparse_values)
                                       : 2 * P;
}

// ChunkReducer: one slot of `len` doubles (rounded up to a cache line) per owned chunk, and with
// several ranks every chunk's slot on every rank (the gathered partials), and the total.
double reducer_bytes(const RunSizes& s, double len) {
  const double stride = std::ceil(len / 8) * 8 * kDouble;
  const double slots = d(s.chunks_owned) + (s.ranks > 1 ? d(s.chunks_total) : 0);
  return slots * stride + stride;
}

// The log joint (models/log_joint.hpp) evaluating `draws` draws, in passes of at most
// kLogJointBatch, with their gradients or without: its tapes and batch buffers, in `phase`.
void log_joint_terms(const RunSizes& s, long long draws, bool gradient, Phase phase,
                     std::vector<MemoryTerm>& out) {
  const double D = d(s.features), P = d(s.parameters), B = d(std::min(draws, kLogJointBatch));
  // A tape per thread: a 4 MiB block, of which a row block touches (and counts as resident) the
  // logits of one cache-sized tile (256 KiB) and GEMM packing, or for the untiled kernels the
  // logits and the linear predictor of the whole block (B x block_rows each) and with gradients
  // their adjoints; with gradients also the gradient of the logits with respect to beta (B x D
  // doubles, and a float copy for float32); with grouping factors the group effects gathered per
  // row (B x block_rows). categorical_logit has C = K - 1 of each: per category, the linear
  // predictors (B x block_rows in the data's type, overwritten by their gradient; for float32 a
  // double copy and a float one of the gradient), the gradient with respect to beta, and the group
  // effects gathered per row with their adjoints.
  const double float_copy = s.dtype_bytes == 4 ? 4 : 0;
  const double R = d(s.block_rows), C = d(s.linear_predictors);
  const double row_block =
      s.in_place_kernel ? B * R * (s.dtype_bytes + (s.dtype_bytes == 4 ? 12 : 0)) +
                              (s.group_factors > 0 ? 2 * B * R * kDouble : 0)
                        : (s.tiled_kernel ? 0 : B * R * (gradient ? 2 * s.dtype_bytes + kDouble : kDouble)) +
                              (s.group_factors > 0 ? B * R * kDouble : 0);
  const double per_block = 0.5 * kMiB + C * ((gradient ? B * D * (kDouble + float_copy) : 0) + row_block);
  out.push_back({"AD tapes (per thread)", phase, s.threads * per_block});
  // The head tape (transforms and priors of a batch: a few B x P arrays, and their adjoints for
  // gradients) and the batch buffers (the draws, and their gradients).
  out.push_back({"log joint batch buffers", phase,
                 gradient ? std::max(kMiB, 5 * B * P * kDouble) + 2 * B * P * kDouble
                          : std::max(kMiB, 3 * B * P * kDouble) + B * P * kDouble});
}

// The reducer's slots are allocated at the first pass and only ever grow, so the largest pass's
// slots (`len` doubles each) stay from then to the end.
void reducer_term(const RunSizes& s, double len, const char* what, std::vector<MemoryTerm>& out) {
  out.push_back({what, Phase::run, reducer_bytes(s, len)});
}

// draws.csv as text: about 22 characters a number (17 significant digits, sign, point, exponent,
// comma), in one allocation (cli/fit_outputs.cpp reserves it), with --output only.
double draws_text(const RunSizes& s) {
  return s.output_files ? (d(s.output_draws) + 1) * (d(s.parameters) + 3) * 22 + d(s.parameters) * 200 : 0.0;
}

// The output draws in the final phase: with --output all of them (zeta), then their constrained
// values beside them and the draws.csv text; without, one batch of draws (eps and zeta) through
// the log joint at a time (vi::report_final_exact and the others keep no other columns but a
// block transform's few).
double output_draws_bytes(const RunSizes& s) {
  const double O = d(s.output_draws), P = d(s.parameters);
  if (s.output_files) return 2 * O * P * kDouble + draws_text(s);
  return 2 * d(std::min(s.output_draws, kLogJointBatch)) * P * kDouble;
}

// checkpoint_text: a JSON tree of hex strings (a node and a heap string each, ~80 bytes) and its
// text twice (~25 bytes per number each), at the same time.
void checkpoint_text(const RunSizes& s, double numbers, std::vector<MemoryTerm>& out) {
  if (s.checkpoints) out.push_back({"checkpoint text", Phase::iterations, numbers * 130});
}

// Stochastic VI with a Gaussian family (meanfield, fullrank, sparse), as inference/advi.cpp runs it.
void monte_carlo_vi(const RunSizes& s, std::vector<MemoryTerm>& out) {
  const double P = d(s.parameters), S = d(std::max(s.draws_per_step, s.elbo_samples));
  // The sparse family's step: S (1 + n + sum K) draws, the draws and their probes, in batches of at
  // most kProbeBatch doubles (natural_sparse_step.cpp), with gradients.
  const bool sparse = s.algorithm == "sparse";
  constexpr double kProbeBatch = 8e6;
  const long long probe_rows =
      sparse ? static_cast<long long>(std::min(d(s.draws_per_step) * d(s.sparse_probes + 1),
                                               std::max(1.0, std::floor(kProbeBatch / P))))
             : 0;
  // Gradient passes of draws_per_step draws (and the probes'); the ELBO's and the final report's
  // passes are values only.
  const double B = d(std::min(std::max(s.draws_per_step, probe_rows), kLogJointBatch));
  const long long final_draws = s.final_from_output ? s.output_draws : std::max(s.final_elbo_draws, s.output_draws);
  // (The crossed factors' packed pair entries, at most the pattern's chunk values, share the slots.)
  // With grouping factors a gradient pass's slot holds a chunk's own columns (chunk_columns.hpp),
  // which also keeps a 4-byte chunk level per row and factor, every chunk's levels (4 bytes each,
  // fewer than its columns) and, per thread, the chunk's columns of the draws.
  const double Pc = s.chunk_parameters > 0 ? std::min(P, d(s.chunk_parameters)) : P;
  reducer_term(s,
               std::max({B + B * Pc, d(std::min(std::max(s.elbo_samples, final_draws), kLogJointBatch)),
                         sparse ? d(s.sparse_chunk_values) : 0.0}),
               "reducer slots (per chunk: draws x (a chunk's columns + 1))", out);
  if (s.group_factors > 0)
    out.push_back({"chunk columns (levels per row and factor and per chunk, draws per thread)", Phase::run,
                   4.0 * d(s.rows) * d(s.group_factors) + 4.0 * d(s.chunks_total) * Pc +
                       d(s.threads) * B * Pc * kDouble});
  // The log joint's tapes and buffers stay from the first step to the end. Under the sparse family
  // its passes are values only (the draws, the ELBO, the final report): the gradients are the
  // sparse step's own log joint's, of the likelihood alone (the prior in closed form), as long.
  // Their tapes: measured (categorical_logit, P = 642, 2 threads) the second adds 7 MB a thread
  // where its own estimate is 10, so the larger of the two is counted.
  if (!sparse) {
    log_joint_terms(s, std::max(s.draws_per_step, final_draws), true, Phase::run, out);
  } else {
    std::vector<MemoryTerm> main, own;
    log_joint_terms(s, std::max(s.draws_per_step, final_draws), false, Phase::run, main);
    log_joint_terms(s, probe_rows, true, Phase::run, own);
    // [0]: the tapes (per thread), [1]: the batch buffers.
    out.push_back({main[0].what, Phase::run, std::max(main[0].bytes, own[0].bytes)});
    out.push_back({main[1].what, Phase::run, main[1].bytes});
    out.push_back({"the sparse step's log joint's batch buffers", Phase::run, own[1].bytes});
  }
  // Crossed factors' pair entries (models/crossed_curvature.cpp): a 4-byte slot per row and pair
  // of factors that may be crossed.
  if (sparse && s.sparse_factor_pairs > 0)
    out.push_back({"crossed factors' row slots", Phase::run, 4.0 * d(s.rows) * d(s.sparse_factor_pairs)});
  // ElboEstimator: eps, zeta = mu + L eps and the gradient of log p at zeta, S x P each.
  out.push_back({"draws and gradients (3 x draws_per_step x P)", Phase::iterations, 3 * S * P * kDouble});
  double matrices = 0;
  if (s.optimizer == "natural") {
    // Meanfield's step is per coordinate, a few P-vectors (optimizers/natural_gradient.cpp);
    // fullrank's regression centres the gradients and the draws (2 S x P), and its covariances,
    // curvature, precisions, their factors, inverses and eigenvectors are a dozen P x P matrices.
    // The sparse step: the probes' draws and gradients, their summed products (probes x P), the draws
    // again, the precision's values four times (q's, the curvature, the average, the mean's
    // metric) and three factors at 20 bytes a non-zero (q's, whose selected inverse the closed-form
    // part reads, the average's and the floor's, at the pattern's size: fill-in is judged against
    // what the estimate leaves, cli/sparse_fill.hpp), each with the values it factorized.
    const double V = d(s.sparse_values);
    matrices = fullrank(s) ? 2 * S * P + 12 * P * P
               : sparse    ? 2 * d(probe_rows) * P + d(s.sparse_probes) * P + S * P + 4 * V +
                              3 * V * 20 / kDouble + 3 * V + 16 * P
                        : 16 * P;
  } else if (fullrank(s)) {
    matrices = 2 * P * P;  // the Cholesky factor formed for the draws and for the gradient
  }
  matrices += 3 * family_numbers(s);  // q, its gradient, the optimizer's moments
  out.push_back({"optimizer and family matrices", Phase::iterations, matrices * kDouble});
  // The state a checkpoint holds, as numbers: q, and the optimizer's own (natural keeps
  // meanfield's diagonal curvature, adam two moments, adaptive one).
  const double n = family_numbers(s);
  const double state = s.optimizer == "natural"    ? n + (fullrank(s) || sparse ? 0 : P)
                       : s.optimizer == "adam"     ? 3 * n
                       : s.optimizer == "adaptive" ? 2 * n
                                                   : n;
  checkpoint_text(s, state, out);
  // report_final: the ELBO's draws (eps and zeta; the summary takes zeta over without a copy),
  // then the output draws beside it, a batch of kLogJointBatch at a time (eps and zeta) into the
  // columns kept: all of them with --output, whose constrained values then sit beside them and the
  // draws.csv text; without it, only the few columns of a block transform's summaries (taken as
  // none here). Measured (categorical_logit, P = 642, meanfield): the peak grows by 1.1 to 1.8
  // F x P doubles per final draw; normal with 1,500 groups (P = 1504, adam and natural): by 2.0
  // O x P doubles per output draw with --output, 2026-12-07.
  const double F = d(s.final_elbo_draws), O = d(s.output_draws);
  const double out_draws = output_draws_bytes(s);
  if (s.final_from_output) {
    // report_final_from_output: the output draws alone, as report_final_exact's (below).
    out.push_back({"final draws and the draws.csv text", Phase::final, out_draws + 3 * O * kDouble});
    return;
  }
  out.push_back({"final draws and the draws.csv text", Phase::final,
                 std::max(2 * F * P * kDouble, F * P * kDouble + out_draws) + 3 * F * kDouble});
}

// The exact method (inference/exact/exact_vi.cpp over models/expected_log_joint.hpp): no draws
// in its steps, but buffers over the rows, per-chunk partial sums of the gradient over the design
// coordinates, and the optimizer's P-vectors (meanfield) or P x P matrices (fullrank).
void exact_vi(const RunSizes& s, std::vector<MemoryTerm>& out) {
  const double N = d(s.rows), P = d(s.parameters);
  // Design coordinates: alpha and beta, then every factor's G K effects.
  const double des = d(s.features) + (s.intercept ? 1 : 0) + d(s.group_effects);
  const bool dense = fullrank(s), sparse = s.algorithm == "sparse";
  const double V = d(s.sparse_values), lin = d(s.features) + (s.intercept ? 1 : 0);
  // ExpectedLikelihood: each row's dE/dv for the Hessian-vector products, and its own copy of
  // the likelihood's per-row constants.
  out.push_back({"exact method's row buffers", Phase::iterations,
                 N * kDouble * (1 + (s.row_constants ? 1 : 0))});
  // Per thread: sub-blocks of 256 rows (moments, quadrature, derivatives: ~16 arrays), a 1 MiB
  // arena; fullrank also the sub-block's dense design, L' x~ per row and x~ scaled (256 x (2 des + P)).
  const double sub = 256;
  out.push_back({"exact method's thread scratch (per thread)", Phase::iterations,
                 s.threads * (16 * sub * kDouble + kMiB +
                              (dense ? sub * (2 * des + P) * kDouble : sparse ? (3 * sub + lin) * lin * kDouble : 0))});
  // The reducer's slot per chunk: [E, ...] and the gradient in the design coordinates: the mean
  // and the diagonal (3 des with a scale parameter), or the mean, the cross terms and des x des.
  const double len = 3 + (dense ? 2 * des + des * des : sparse ? des + d(s.sparse_chunk_values) : 3 * des);
  const long long passes = std::max(s.output_draws, s.output_draws < 100 ? s.final_elbo_draws : 0);
  reducer_term(s, std::max(len, d(std::min(passes, kLogJointBatch))),
               "reducer slots (per chunk: the gradient over the design coordinates)", out);
  // The optimizer (exact_vi.cpp, natural_step.cpp) mixes the last 5 steps by Anderson
  // acceleration in a coordinates each (2P for meanfield, 3P with the structured family's ties,
  // P + P(P + 1)/2 for fullrank's whitened mean and precision triangle): its history, the
  // matrices of its least squares and their QR, about 30 a. Besides, meanfield and structured keep
  // P-vectors (q, two gradients, the proposal, the conjugate-gradient vectors: about 40);
  // fullrank a dozen P x P matrices at once (q's factor, two gradients, L^-1, the precisions now
  // and proposed and their factor, the whitened residual, the step's direction and the last one,
  // Sigma and its factor along the line search), Anderson's reference factor and the whitened
  // trial's (~5 more), and L's rows of the design coordinates (des x P).
  // The sparse family keeps about 16 vectors on its pattern (q's precision and Sigma on it, two
  // gradients, the proposal, its direction, the pattern's entry list, the factorization's matrix,
  // its factor, fill-in allowed for, and the selected inverse) and 40 P, and mixes the last 10
  // steps in P + V coordinates (about 55 a).
  const double a = dense ? P + P * (P + 1) / 2 : s.algorithm == "structured" ? 3 * P : sparse ? P + V : 2 * P;
  out.push_back({"optimizer and family matrices", Phase::iterations,
                 ((sparse ? 55 : 30) * a + (dense ? 19 * P * P + des * P : sparse ? 16 * V + 40 * P : 40 * P)) *
                     kDouble});
  // Sample-average prior terms (models/expected_prior.cpp): fixed draws (K x width, or K x P for
  // fullrank), their points and adjoints and the tape's array over them (K x width each), and
  // for meanfield the last gradient draws kept for the Hessian-vector products.
  if (!s.sampled_widths.empty()) {
    const double K = d(s.sample_draws);
    double numbers = 0;
    for (long long w : s.sampled_widths) numbers += K * ((dense ? P : d(w)) + (dense ? 3 : 4) * d(w));
    out.push_back({"prior sample-average draws", Phase::iterations, numbers * kDouble + kMiB});
  }
  // The checkpoint's state: q, and [passes, step, the last direction (fullrank: P + P^2),
  // Anderson's reference (P, or P^2) and history (2 + a (2 + 2 x 5), sparse 2 x 10)].
  checkpoint_text(s, family_numbers(s) + (dense ? P + 2 * P * P : sparse ? 2 * P + V : P) + (sparse ? 22 : 12) * a, out);
  // report_final_exact: the output draws through the log joint a batch at a time, values only, or
  // with fewer than 100 of them first as many draws as final_elbo_draws for k-hat, kept none;
  // then, with --output, the output draws and their constrained values beside the draws.csv text.
  // Measured (normal, 20,000 groups, P = 20,034; sparse, meanfield and structured; 1000 and 2000
  // draws): the peak grows by 2.0 O x P doubles per output draw with --output, 2026-12-07.
  const double F = s.output_draws < 100 ? d(std::min(s.final_elbo_draws, kLogJointBatch)) : 0;
  log_joint_terms(s, passes, false, Phase::final, out);
  out.push_back({"final draws and the draws.csv text", Phase::final,
                 std::max(2 * F * P * kDouble, output_draws_bytes(s))});
}

struct Method {
  const char* name;
  MethodTerms terms;
};

// One line per method of fitting (inference.method).
const Method kMethods[] = {
    {"exact", &exact_vi},
    {"monte_carlo", &monte_carlo_vi},
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
    if (s.method == m.name) method = &m;
  if (!method) throw std::invalid_argument("no memory estimate for the method '" + s.method + "'");

  MemoryEstimate e;
  auto& t = e.terms;
  const double N = d(s.rows), D = d(s.features), b = s.dtype_bytes;
  t.push_back({"program and libraries", Phase::always, s.program_bytes});
  // The design columns, the response, the extra columns and per-row constants; each grouping
  // factor's group index and the varying slopes' values.
  t.push_back({"data", Phase::always,
               N * D * b + N * kDouble * (1 + d(s.extra_columns) + (s.row_constants ? 1 : 0)) +
                   N * (4 * d(s.group_factors) + b * d(s.group_slopes))});
  // Reading: the extra columns side by side before they are combined; the categorical codes
  // (4 bytes a row each, which the group indexes copy); the numeric variables beside the design
  // columns built from them; the read buffers (1 MiB).
  t.push_back({"reading the data", Phase::load,
               N * kDouble * d(s.extra_columns) + N * 4 * d(s.categorical_variables) +
                   (s.design_copy ? N * b * d(s.numeric_variables) : 0) + 2 * kMiB});
  method->terms(s, t);

  e.peak = e.phase_bytes(Phase::always) +
           std::max(e.phase_bytes(Phase::load),
                    e.phase_bytes(Phase::run) +
                        std::max(e.phase_bytes(Phase::iterations), e.phase_bytes(Phase::final)));
  return e;
}

}  // namespace bvi::vi
