// The memory estimate from sizes alone: its terms follow the sizes they name (the data's bytes
// exactly), the phases combine as always + max(others), and every method the config accepts has
// terms. How close it comes to a measured peak is tests/e2e/test_memory_budget.py's question.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

#include "inference/memory_estimate.hpp"
#include "models/log_joint.hpp"
#include "models/spec/config_schema.hpp"

using bvi::vi::estimate_memory;
using bvi::vi::MemoryEstimate;
using bvi::vi::Phase;
using bvi::vi::RunSizes;

namespace {

// 10^5 rows x 100 features of float64, a logistic regression with an intercept (P = 101).
RunSizes sizes() {
  RunSizes s;
  s.rows = 100000;
  s.features = 100;
  s.parameters = 101;
  s.draws_per_step = 234;  // natural's max(128, 2 P + 32)
  s.block_rows = 512;
  s.chunks_owned = s.chunks_total = 49;
  s.threads = 2;
  s.tiled_kernel = true;
  s.program_bytes = 8e6;
  return s;
}

double term(const MemoryEstimate& e, const std::string& prefix) {
  for (const auto& t : e.terms)
    if (t.what.rfind(prefix, 0) == 0) return t.bytes;
  FAIL("no term ", prefix);
  return 0;
}

}  // namespace

TEST_CASE("the data term is rows x features in the data's type, plus the response") {
  RunSizes s = sizes();
  CHECK(term(estimate_memory(s), "data") == doctest::Approx(100000.0 * 100 * 8 + 100000.0 * 8));
  s.dtype_bytes = 4;
  CHECK(term(estimate_memory(s), "data") == doctest::Approx(100000.0 * 100 * 4 + 100000.0 * 8));
  s.extra_columns = 1;  // trials
  s.row_constants = true;
  CHECK(term(estimate_memory(s), "data") == doctest::Approx(100000.0 * 100 * 4 + 3 * 100000.0 * 8));
}

TEST_CASE("the peak is what always lives plus the largest phase") {
  const MemoryEstimate e = estimate_memory(sizes());
  const double others =
      std::max({e.phase_bytes(Phase::load), e.phase_bytes(Phase::iterations), e.phase_bytes(Phase::final)});
  CHECK(e.peak == doctest::Approx(e.phase_bytes(Phase::always) + others));
  CHECK(e.largest().what == "data");
  // At this size the data is most of it: 80.8 MB of roughly 110 MB.
  CHECK(e.peak > 100e6);
  CHECK(e.peak < 125e6);
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

TEST_CASE("what the remedies in the error message change goes down") {
  const double base = estimate_memory(sizes()).peak;
  RunSizes s = sizes();
  s.dtype_bytes = 4;
  CHECK(estimate_memory(s).peak < base - 35e6);
  s = sizes();
  s.rows = 50000;  // a second rank holds the other half
  s.chunks_owned = 25;
  s.ranks = 2;
  CHECK(estimate_memory(s).peak < base - 30e6);
  s = sizes();
  s.parameters = 1001;
  s.features = 1000;
  s.rows = 10000;
  s.draws_per_step = 2034;
  s.chunks_owned = s.chunks_total = 20;
  const double meanfield = estimate_memory(s).peak;
  s.algorithm = "fullrank";
  // Five more P x P matrices in a natural step, and the Cholesky factor: about 60 MB at P = 1001.
  CHECK(estimate_memory(s).peak > meanfield + 50e6);
  s.algorithm = "meanfield";
  s.output_draws = 100;
  s.final_elbo_draws = 1000;
  CHECK(estimate_memory(s).peak <= meanfield);
}

TEST_CASE("checkpoints of a large natural-gradient state are counted") {
  RunSizes s = sizes();
  s.parameters = 1001;
  s.draws_per_step = 2034;
  const double without = estimate_memory(s).phase_bytes(Phase::iterations);
  s.checkpoints = true;
  // P^2 curvature + 2P of q, about 130 bytes each as JSON.
  CHECK(estimate_memory(s).phase_bytes(Phase::iterations) - without ==
        doctest::Approx((1001.0 * 1001 + 2002) * 130));
}

TEST_CASE("every method the config accepts has its terms") {
  const auto& fields = bvi::spec::inference_section().fields;
  const auto algorithm =
      std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.name == "algorithm"; });
  REQUIRE(algorithm != fields.end());
  for (const std::string& name : algorithm->choices) {
    if (name == "auto") continue;  // resolved to one of the others before the estimate
    CAPTURE(name);
    RunSizes s = sizes();
    s.algorithm = name;
    CHECK(estimate_memory(s).peak > 0);
  }
  RunSizes s = sizes();
  s.algorithm = "no_such_method";
  CHECK_THROWS_AS(estimate_memory(s), std::invalid_argument);
}
