// The response's pooled mean and variance that fits start a likelihood's scale from
// (models/pooled_response.hpp): against closed forms, weights as frequency weights, a constant
// response (where the one-pass formula's cancellation left 1e-14 for 0.3 and 2.7e-6 for 5000.1)
// spread-free, and the same bits for every thread count and block size.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/pooled_response.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_pooled_response {

using namespace bvi;

namespace {

models::PooledResponse pooled(const std::vector<double>& y, const std::vector<double>* w = nullptr,
                              int threads = 1, long block_rows = 64) {
  const long n = static_cast<long>(y.size());
  reduce::SerialCommunicator comm;
  const reduce::ShardPlan plan = reduce::ShardPlan::make(n, block_rows);
  reduce::ChunkReducer reducer(plan, comm, threads);
  const std::vector<double> x(static_cast<std::size_t>(n), 0.0);
  models::DataView<double> view{x.data(), y.data(), n, 1, 0, n};
  if (w) view.weight = w->data();
  return models::pooled_response(view, reducer);
}

}  // namespace

TEST_CASE("pooled response: mean and sample variance as closed forms") {
  const models::PooledResponse a = pooled({1.0, 2.0, 3.0, 4.0});
  CHECK(a.weight == 4.0);
  CHECK(a.mean == doctest::Approx(2.5).epsilon(1e-15));
  CHECK(a.var == doctest::Approx(5.0 / 3.0).epsilon(1e-15));  // sum (y - 2.5)^2 = 5, over n - 1

  // Frequency weights: the same as the rows repeated, {1, 2, 2, 4, 4, 4}.
  const std::vector<double> w{1.0, 2.0, 3.0};
  const models::PooledResponse b = pooled({1.0, 2.0, 4.0}, &w);
  const models::PooledResponse repeated = pooled({1.0, 2.0, 2.0, 4.0, 4.0, 4.0});
  CHECK(b.weight == 6.0);
  CHECK(b.mean == doctest::Approx(17.0 / 6.0).epsilon(1e-15));
  CHECK(b.var == doctest::Approx(repeated.var).epsilon(1e-15));
  CHECK(b.var == doctest::Approx((1.0 * 1.0 * (1 - 17.0 / 6) * (1 - 17.0 / 6) + 2.0 * (2 - 17.0 / 6) * (2 - 17.0 / 6) +
                                  3.0 * (4 - 17.0 / 6) * (4 - 17.0 / 6)) /
                                 5.0)
                    .epsilon(1e-14));
}

TEST_CASE("pooled response: no spread is none, far from 0 too") {
  for (const double c : {0.3, 5000.1, 1e8 + 0.1, -7.25}) {
    CAPTURE(c);
    const std::vector<double> y(100000, c);
    const models::PooledResponse p = pooled(y);
    CHECK(p.var == 0.0);
    CHECK(p.mean == doctest::Approx(c).epsilon(1e-12));  // a sum of 10^5 roundings
  }
  // A small spread far from 0 is kept, and right: sd 0.5 around 1e6 (the one-pass formula lost
  // its leading digits there).
  std::vector<double> y(20000);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = 1e6 + (i % 2 == 0 ? 0.5 : -0.5);
  const models::PooledResponse p = pooled(y);
  CHECK(p.var == doctest::Approx(0.25 * 20000.0 / 19999.0).epsilon(1e-9));
}

TEST_CASE("pooled response: one row, no weight, nothing to spread") {
  const models::PooledResponse one = pooled({3.5});
  CHECK(one.weight == 1.0);
  CHECK(one.mean == 3.5);
  CHECK(one.var == 0.0);
  const std::vector<double> zero{0.0, 0.0};
  const models::PooledResponse none = pooled({1.0, 2.0}, &zero);
  CHECK(none.weight == 0.0);
  CHECK(none.var == 0.0);
}

TEST_CASE("pooled response: the same bits for any thread count and block size") {
  std::vector<double> y(50000);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = 1000.0 + std::sin(0.37 * static_cast<double>(i)) * 30.0;
  const models::PooledResponse a = pooled(y, nullptr, 1, 64);
  const models::PooledResponse b = pooled(y, nullptr, 2, 64);
  CHECK(a.mean == b.mean);
  CHECK(a.var == b.var);
  // A different plan sums in another order: equal to rounding.
  const models::PooledResponse c = pooled(y, nullptr, 2, 512);
  CHECK(c.var == doctest::Approx(a.var).epsilon(1e-12));
}

}  // namespace test_pooled_response
