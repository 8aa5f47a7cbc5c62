// The memory estimate from sizes alone: its terms follow the sizes they name (the data's bytes
// exactly), the phases combine as always + max(load, run + max(iterations, final)), and every
// method the config accepts has terms. How close it comes to a measured peak is
// tests/e2e/test_memory_budget.py's question.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "inference/memory_estimate.hpp"
#include "models/log_joint.hpp"
#include "models/spec/config_schema.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_memory_estimate {

using bvi::vi::estimate_memory;
using bvi::vi::MemoryEstimate;
using bvi::vi::Phase;
using bvi::vi::RunSizes;

namespace {

// 10^5 rows x 100 features of float64, a logistic regression with an intercept (P = 101), by the
// Monte Carlo method.
RunSizes sizes() {
  RunSizes s;
  s.rows = 100000;
  s.features = 100;
  s.numeric_variables = 100;
  s.parameters = 101;
  s.intercept = true;
  s.method = "monte_carlo";
  s.draws_per_step = 234;  // natural fullrank's max(128, 2 P + 32)
  s.block_rows = 512;
  s.chunks_owned = s.chunks_total = 49;
  s.threads = 2;
  s.tiled_kernel = true;
  s.program_bytes = 8e6;
  return s;
}

// The same by the exact method (the default).
RunSizes exact_sizes() {
  RunSizes s = sizes();
  s.method = "exact";
  s.draws_per_step = 0;
  return s;
}

double term(const MemoryEstimate& e, const std::string& prefix) {
  for (const auto& t : e.terms)
    if (t.what.rfind(prefix, 0) == 0) return t.bytes;
  FAIL("no term ", prefix);
  return 0;
}

bool has_term(const MemoryEstimate& e, const std::string& prefix) {
  return std::any_of(e.terms.begin(), e.terms.end(), [&](const auto& t) { return t.what.rfind(prefix, 0) == 0; });
}

}  // namespace

TEST_CASE("the data term is rows x features in the data's type, plus the response") {
  for (const RunSizes& base : {sizes(), exact_sizes()}) {
    RunSizes s = base;
    CHECK(term(estimate_memory(s), "data") == doctest::Approx(100000.0 * 100 * 8 + 100000.0 * 8));
    s.dtype_bytes = 4;
    CHECK(term(estimate_memory(s), "data") == doctest::Approx(100000.0 * 100 * 4 + 100000.0 * 8));
    s.extra_columns = 1;  // trials
    s.row_constants = true;
    CHECK(term(estimate_memory(s), "data") == doctest::Approx(100000.0 * 100 * 4 + 3 * 100000.0 * 8));
  }
}

TEST_CASE("grouping factors add an index per row each and their slopes' values") {
  RunSizes s = exact_sizes();
  const double plain = term(estimate_memory(s), "data");
  s.group_factors = 2;  // (1 + x | county) + (1 | school): one slope
  s.group_slopes = 1;
  s.group_effects = 85 * 2 + 7;
  CHECK(term(estimate_memory(s), "data") - plain == doctest::Approx(100000.0 * (2 * 4 + 8)));
  // Categorical variables are read as a 4-byte code per row, and a design built from the
  // variables (indicators, products) is a matrix beside them while loading.
  const double reading = term(estimate_memory(s), "reading");
  s.categorical_variables = 3;
  s.design_copy = true;
  CHECK(term(estimate_memory(s), "reading") - reading == doctest::Approx(100000.0 * (3 * 4 + 100 * 8)));
}

TEST_CASE("the peak is what always lives plus the load, or the run's and the larger of its phases") {
  for (const RunSizes& s : {sizes(), exact_sizes()}) {
    const MemoryEstimate e = estimate_memory(s);
    const double run =
        e.phase_bytes(Phase::run) + std::max(e.phase_bytes(Phase::iterations), e.phase_bytes(Phase::final));
    CHECK(e.peak == doctest::Approx(e.phase_bytes(Phase::always) + std::max(e.phase_bytes(Phase::load), run)));
    CHECK(e.largest().what == "data");
    // At this size the data is most of it: 80.8 MB of roughly 100-110 MB (measured: 96-114 MB).
    CHECK(e.peak > 90e6);
    CHECK(e.peak < 125e6);
  }
}

TEST_CASE("the reducer's slots grow with the draws per pass and the chunks, up to the log joint's batch") {
  RunSizes s = sizes();
  // 49 owned chunks + one total: (234 + 234 * 101 = 23868, rounded up to 23872) doubles each.
  CHECK(term(estimate_memory(s), "reducer") == doctest::Approx(50 * 23872 * 8.0));
  s.ranks = 2;
  s.chunks_owned = 25;  // and every rank also gathers all 49
  CHECK(term(estimate_memory(s), "reducer") == doctest::Approx((25 + 49 + 1) * 23872 * 8.0));
  s = sizes();
  s.draws_per_step = 2000;  // passes of 256 draws at most
  static_assert(bvi::vi::kLogJointBatch == 256);
  CHECK(bvi::models::LogJointOptions{}.max_batch == bvi::vi::kLogJointBatch);
  CHECK(term(estimate_memory(s), "reducer") == doctest::Approx(50 * 26112 * 8.0));  // 256 * 102 = 26112
}

TEST_CASE("the exact method's reducer slots hold the gradient over the design coordinates") {
  RunSizes s = exact_sizes();
  // Meanfield: [E, 2 more] and the mean's and the diagonal's gradient (3 des numbers with a scale
  // parameter), des = 101; but never less than a final pass's 256 draws.
  s.algorithm = "meanfield";
  CHECK(term(estimate_memory(s), "reducer") == doctest::Approx(50 * 312 * 8.0));  // 3 + 303 -> 312
  // A grouping factor's 85 x 2 effects are design coordinates too.
  s.group_factors = 1;
  s.group_slopes = 1;
  s.group_effects = 170;
  CHECK(term(estimate_memory(s), "reducer") == doctest::Approx(50 * 816 * 8.0));  // 3 + 3 x 271 -> 816
  // Fullrank: the mean, the cross terms and the des x des block.
  s.algorithm = "fullrank";
  CHECK(term(estimate_memory(s), "reducer") ==
        doctest::Approx(50 * 73992 * 8.0));  // 3 + 2 x 271 + 271^2 = 73986 -> 73992
  // No Monte Carlo draws in its steps.
  CHECK_FALSE(has_term(estimate_memory(s), "draws and gradients"));
}

TEST_CASE("the exact method's fullrank holds P x P matrices and meanfield P-vectors") {
  RunSizes s = exact_sizes();
  s.parameters = 1001;
  s.features = 1000;
  s.rows = 10000;
  s.chunks_owned = s.chunks_total = 20;
  s.algorithm = "meanfield";
  const double meanfield = term(estimate_memory(s), "optimizer");
  CHECK(meanfield < 1e6);
  s.algorithm = "fullrank";
  // A dozen P x P matrices and L's rows of the design coordinates: about 120 MB at P = 1001.
  CHECK(term(estimate_memory(s), "optimizer") > 100e6);
}

TEST_CASE("the exact method's sample-average prior terms count their fixed draws") {
  RunSizes s = exact_sizes();
  s.algorithm = "meanfield";
  CHECK_FALSE(has_term(estimate_memory(s), "prior sample-average"));
  s.sample_draws = 2000;
  s.sampled_widths = {101, 3};
  // Meanfield: K x (width + 4 width) each, and the tape's first block.
  CHECK(term(estimate_memory(s), "prior sample-average") ==
        doctest::Approx(2000.0 * 5 * 104 * 8 + 1024.0 * 1024));
  s.algorithm = "fullrank";
  // Fullrank's draws are K x P for every term.
  CHECK(term(estimate_memory(s), "prior sample-average") ==
        doctest::Approx(2000.0 * (2 * 101 + 3 * 104) * 8 + 1024.0 * 1024));
}

TEST_CASE("the final report's draws and text: output draws for exact, also the ELBO's for Monte Carlo") {
  RunSizes s = exact_sizes();
  s.algorithm = "meanfield";
  // Exact with --output: zeta of the 1000 output draws, then the constrained draws beside them
  // and draws.csv's text (22 characters a number).
  const double text = 1001.0 * 104 * 22 + 101 * 200;
  CHECK(term(estimate_memory(s), "final draws") == doctest::Approx(2 * 1000.0 * 101 * 8 + text));
  // Without: one batch of 256 draws (eps and zeta) through the log joint at a time.
  s.output_files = false;
  CHECK(term(estimate_memory(s), "final draws") == doctest::Approx(2 * 256.0 * 101 * 8));
  s.output_draws = 200;  // a batch of them all
  CHECK(term(estimate_memory(s), "final draws") == doctest::Approx(2 * 200.0 * 101 * 8));
  s.output_draws = 10;  // k-hat then needs final_elbo_draws draws, a batch at a time too
  CHECK(term(estimate_memory(s), "final draws") == doctest::Approx(2 * 256.0 * 101 * 8));
  // Monte Carlo: the ELBO's 4000 draws first (eps and zeta; zeta is then taken over, not copied),
  // then the 1000 output draws a batch at a time beside it (eps and zeta).
  s = sizes();
  s.output_files = false;
  CHECK(term(estimate_memory(s), "final draws") ==
        doctest::Approx(std::max(2 * 4000.0, 4000.0 + 2 * 256) * 101 * 8 + 3 * 4000.0 * 8));
  // With --output the output draws are kept, with their constrained values and the text.
  s.output_files = true;
  s.output_draws = 3000;  // the output draws beside the ELBO's then outweigh them
  const double text3000 = 3001.0 * 104 * 22 + 101 * 200;
  CHECK(term(estimate_memory(s), "final draws") ==
        doctest::Approx((4000.0 + 2 * 3000) * 101 * 8 + text3000 + 3 * 4000.0 * 8));
  // The natural optimizer's summary from the output draws alone: zeta and the constrained draws
  // beside the text, and three numbers a draw (log p, log q, their difference); without --output
  // a batch of them.
  s.final_from_output = true;
  CHECK(term(estimate_memory(s), "final draws") ==
        doctest::Approx(2 * 3000.0 * 101 * 8 + text3000 + 3 * 3000.0 * 8));
  s.output_files = false;
  CHECK(term(estimate_memory(s), "final draws") == doctest::Approx(2 * 256.0 * 101 * 8 + 3 * 3000.0 * 8));
}

TEST_CASE("what the remedies in the error message change goes down") {
  for (const RunSizes& start : {sizes(), exact_sizes()}) {
    const double base = estimate_memory(start).peak;
    RunSizes s = start;
    s.dtype_bytes = 4;
    CHECK(estimate_memory(s).peak < base - 35e6);
    s = start;
    s.rows = 50000;  // a second rank holds the other half
    s.chunks_owned = 25;
    s.ranks = 2;
    CHECK(estimate_memory(s).peak < base - 30e6);
    s = start;
    s.parameters = 1001;
    s.features = 1000;
    s.rows = 10000;
    s.draws_per_step = s.method == "exact" ? 0 : 2034;
    s.chunks_owned = s.chunks_total = 20;
    s.algorithm = "meanfield";
    const double meanfield = estimate_memory(s).peak;
    s.algorithm = "fullrank";
    // A dozen more P x P matrices in a step: about 100 MB at P = 1001.
    CHECK(estimate_memory(s).peak > meanfield + 50e6);
    s.algorithm = "meanfield";
    s.output_draws = 100;
    s.final_elbo_draws = 1000;
    CHECK(estimate_memory(s).peak <= meanfield);
  }
}

TEST_CASE("checkpoints of a large state are counted") {
  RunSizes s = sizes();
  s.parameters = 1001;
  s.draws_per_step = 128;
  s.algorithm = "meanfield";
  const double without = estimate_memory(s).phase_bytes(Phase::iterations);
  s.checkpoints = true;
  // natural meanfield: 2P of q and P of diagonal curvature, about 130 bytes each as JSON.
  CHECK(estimate_memory(s).phase_bytes(Phase::iterations) - without == doctest::Approx(3 * 1001.0 * 130));
  s = exact_sizes();
  s.parameters = 1001;
  s.algorithm = "fullrank";
  const double exact_without = estimate_memory(s).phase_bytes(Phase::iterations);
  s.checkpoints = true;
  // Exact fullrank: q (P + P(P + 1)/2 = a), the last direction (P + P^2), Anderson's reference
  // factor (P^2) and its history of 5 steps in a coordinates (2 + 12 a).
  const double a = 1001.0 + 1001.0 * 1002 / 2;
  CHECK(estimate_memory(s).phase_bytes(Phase::iterations) - exact_without ==
        doctest::Approx((a + 1001 + 2 * 1001.0 * 1001 + 12 * a) * 130));
  // Structured: 3P of q, P of reference sds, and Anderson's history in 3P coordinates.
  s.algorithm = "structured";
  s.checkpoints = false;
  const double tied_without = estimate_memory(s).phase_bytes(Phase::iterations);
  s.checkpoints = true;
  CHECK(estimate_memory(s).phase_bytes(Phase::iterations) - tied_without ==
        doctest::Approx((3 * 1001.0 + 1001 + 12 * 3 * 1001.0) * 130));
}

TEST_CASE("every method the config accepts has its terms, with each family") {
  const auto& fields = bvi::spec::inference_section().fields;
  const auto method = std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.name == "method"; });
  REQUIRE(method != fields.end());
  int methods = 0;
  for (const std::string& name : method->choices) {
    if (name == "auto") continue;  // resolved to one of the others before the estimate
    ++methods;
    for (const char* algorithm : {"meanfield", "fullrank", "structured"}) {
      CAPTURE(name);
      CAPTURE(algorithm);
      RunSizes s = sizes();
      s.method = name;
      s.algorithm = algorithm;
      CHECK(estimate_memory(s).peak > 0);
    }
  }
  CHECK(methods == static_cast<int>(bvi::vi::estimated_methods().size()));
  RunSizes s = sizes();
  s.method = "no_such_method";
  CHECK_THROWS_AS(estimate_memory(s), std::invalid_argument);
}

TEST_CASE("categorical_logit's tapes hold each non-reference category's arrays") {
  // K - 1 = 3 categories with a grouping factor: per thread, beside the 0.5 MiB block, each
  // category's linear predictors (B x block_rows doubles, overwritten by their gradient), its
  // group effects and their adjoints (2 B x block_rows) and its beta gradient (B x D), B = 256
  // (the final report's passes).
  RunSizes s = sizes();
  s.tiled_kernel = false;
  s.in_place_kernel = true;
  s.group_factors = 1;
  const double B = 256, R = 512, D = 100, mib = 1024.0 * 1024.0;
  for (long long C : {1LL, 3LL}) {
    s.linear_predictors = C;
    const double per_thread = 0.5 * mib + static_cast<double>(C) * (B * D * 8 + B * R * 8 + 2 * B * R * 8);
    CHECK(term(estimate_memory(s), "AD tapes") == doctest::Approx(2 * per_thread).epsilon(1e-12));
  }
}

TEST_CASE("with grouping factors the Monte Carlo reducer slots hold a chunk's own columns") {
  // 10^5 rows in 49 chunks, one factor of 50,000 groups (P = 50,101): a chunk's columns are the 101
  // others and at most its 2048 rows' levels.
  RunSizes s = sizes();
  s.draws_per_step = 64;
  s.parameters = 50101;
  s.group_factors = 1;
  s.group_effects = 50000;
  const double whole = term(estimate_memory(s), "reducer slots");
  s.chunk_parameters = 101 + 2048;
  const MemoryEstimate e = estimate_memory(s);
  // (chunks + 1) slots of B (P_c + 1) doubles, each rounded up to 8.
  const double len = 64.0 + 64.0 * 2149;
  CHECK(term(e, "reducer slots") == doctest::Approx(50.0 * std::ceil(len / 8) * 8 * 8).epsilon(1e-12));
  CHECK(term(e, "reducer slots") < whole / 20);
  // Levels per row, every chunk's levels (at most its columns) and a thread's gathered draws.
  CHECK(term(e, "chunk columns") == doctest::Approx(4.0 * 1e5 + 4.0 * 49 * 2149 + 2 * 64.0 * 2149 * 8).epsilon(1e-12));
}

}  // namespace test_memory_estimate
