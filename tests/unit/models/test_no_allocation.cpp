// The hot loop allocates nothing: once a log joint has been evaluated, evaluating it again
// calls malloc zero times (tape memory comes from rewound arenas, the GEMMs pack into arena
// buffers, the reducer's slots are kept). malloc is counted by interposing it in this binary and
// forwarding to glibc, which sees Eigen's allocations too (operator new alone would not).
// Not in sanitizer builds: ASan owns malloc there, and a malloc defined here would take every
// allocation of the test binary away from it (GCC says so by __SANITIZE_ADDRESS__, clang by
// __has_feature(address_sanitizer)).
#include <doctest/doctest.h>

#include <cstddef>  // defines __GLIBC__ on glibc

#if defined(__SANITIZE_ADDRESS__)
#define BVI_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BVI_UNDER_ASAN 1
#endif
#endif
#if !defined(BVI_UNDER_ASAN) && defined(__GLIBC__)
#define BVI_COUNT_MALLOC 1
#endif

#include <atomic>
#include <cstddef>
#include <random>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/data/row_matrix.hpp"
#include "models/crossed_curvature.hpp"
#include "models/log_joint.hpp"
#include "models/sparse_pattern.hpp"
#include "support/crossed_fixture.hpp"
#include "support/model_fixtures.hpp"
#include "support/multilevel_fixture.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_no_allocation {

#ifdef BVI_COUNT_MALLOC
namespace {

// Two full blocks of 1024 rows and a partial one: every buffer a block or the tail of the data
// needs has been sized by the warm-up (5000 rows counted the same, at 2.4 times the cost).
constexpr long kRows = 2100;
std::atomic<bool> g_counting{false};
std::atomic<long> g_mallocs{0};
inline void count() {
  if (g_counting.load(std::memory_order_relaxed)) g_mallocs.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

// glibc's own entry points, so these replacements can forward to the real allocator.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) {
  count();
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  count();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  count();
  return __libc_realloc(p, n);
}
void* memalign(std::size_t align, std::size_t n) {
  count();
  return __libc_memalign(align, n);
}
void* aligned_alloc(std::size_t align, std::size_t n) {
  count();
  return __libc_memalign(align, n);
}
int posix_memalign(void** p, std::size_t align, std::size_t n) {
  count();
  *p = __libc_memalign(align, n);
  return *p ? 0 : 12;  // ENOMEM
}
void free(void* p) {
  __libc_free(p);
}
}
#endif

using namespace bvi;

#ifdef BVI_COUNT_MALLOC
namespace {

// The 0/1 responses of the synthetic data are valid for every likelihood (binomial with one trial
// per row, poisson counts, normal values); binomial reads trials and poisson an offset; lognormal
// and gamma_log read them plus 0.5, beta_logit 0.25 + y / 2.
template <class T>
long mallocs_per_evaluation(bool fused, long n, long d, long S, long block_rows,
                            const std::string& likelihood = "bernoulli_logit") {
  const test::SyntheticData synth = test::synthetic_logistic(n, d, 3);
  const bvi::data::RowMatrix<T> x = synth.x.cast<T>();
  spec::ModelConfig config = test::logistic_config(true, {0.0}, {2.0});
  config.likelihood = likelihood;
  if (likelihood == "normal" || likelihood == "negative_binomial_log" || likelihood == "lognormal" ||
      likelihood == "gamma_log" || likelihood == "beta_logit") {
    const std::string own = likelihood == "normal" || likelihood == "lognormal" ? "sigma"
                            : likelihood == "gamma_log"                          ? "shape"
                                                                                 : "phi";
    spec::PriorConfig prior = config.priors.at("alpha");
    prior.pointer = "/model/priors/" + own;
    config.priors[own] = prior;
  }
  const models::Model model = models::Model::build(config, test::feature_names(int(d)), {fused});
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(n, block_rows), comm, 1);
  const Eigen::VectorXd trials = Eigen::VectorXd::Ones(n), offset = Eigen::VectorXd::Constant(n, 0.1);
  models::DataView<T> view{x.data(), synth.y.data(), n, d, 0, n};
  if (likelihood == "binomial_logit") view.trials = trials.data();
  if (likelihood == "poisson_log" || likelihood == "negative_binomial_log") view.offset = offset.data();
  // The positive likelihoods' responses: 0.5 and 1.5.
  const Eigen::VectorXd positive = synth.y.array() + 0.5, proportion = 0.25 + 0.5 * synth.y.array();
  if (likelihood == "lognormal" || likelihood == "gamma_log") view.y = positive.data();
  if (likelihood == "beta_logit") view.y = proportion.data();
  models::LogJoint<T> lj(model, view, reducer);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 0.3);
  Eigen::MatrixXd theta(S, model.dim()), grad;
  for (long i = 0; i < theta.size(); ++i) theta.data()[i] = normal(rng);
  Eigen::VectorXd lp(S);
  lj.evaluate(theta, lp, &grad);  // the warm-up: arenas and buffers reach their size
  lj.evaluate(theta, lp, nullptr);
  g_mallocs = 0;
  g_counting = true;
  for (int k = 0; k < 3; ++k) {
    lj.evaluate(theta, lp, &grad);
    lj.evaluate(theta, lp, nullptr);
  }
  g_counting = false;
  return g_mallocs.load() / 3;
}

// The same for a multilevel model: two grouping factors, one with correlated intercept and slopes
// (the gather op, the fused ops' extra term, the group priors, the LKJ density, cholesky_corr).
template <class T>
long multilevel_mallocs_per_evaluation(bool fused, const std::string& likelihood) {
  const auto d = test::multilevel_data<T>(kRows, 10, 40, 7, 3);
  const models::Model model = test::multilevel_model(d, likelihood, fused);
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(kRows, 1024), comm, 1);
  models::DataView<T> view = d.view();
  if (likelihood == "binomial_logit") view.trials = d.trials.data();
  if (likelihood == "poisson_log" || likelihood == "negative_binomial_log") view.offset = d.offset.data();
  const Eigen::VectorXd positive = d.y.array() + 0.5, proportion = 0.25 + 0.5 * d.y.array();
  if (likelihood == "lognormal" || likelihood == "gamma_log") view.y = positive.data();
  if (likelihood == "beta_logit") view.y = proportion.data();
  models::LogJoint<T> lj(model, view, reducer);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 0.3);
  Eigen::MatrixXd theta(128, model.dim()), grad;
  for (long i = 0; i < theta.size(); ++i) theta.data()[i] = normal(rng);
  Eigen::VectorXd lp(128);
  lj.evaluate(theta, lp, &grad);
  lj.evaluate(theta, lp, nullptr);
  g_mallocs = 0;
  g_counting = true;
  for (int k = 0; k < 3; ++k) {
    lj.evaluate(theta, lp, &grad);
    lj.evaluate(theta, lp, nullptr);
  }
  g_counting = false;
  return g_mallocs.load() / 3;
}

// A crossed curvature pass (the Monte Carlo sparse step's pair entries between crossed factors):
// 1000 rows in blocks of 64, the last one short, in double or float.
template <class T>
long crossed_mallocs_per_pass(const std::string& likelihood) {
  const auto d = test::crossed_data<T>(likelihood, 3, 1000);
  const models::Model model = test::crossed_model(d, likelihood);
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(1000, 64), comm, 1);
  const models::DataView<T> view = d.view();
  const auto pattern = models::make_block_pattern(model, view, comm);
  models::CrossedCurvature<T> cc(model, view, reducer, pattern);
  REQUIRE_FALSE(cc.pairs().empty());
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 0.3);
  Eigen::MatrixXd theta(16, model.dim());
  for (long i = 0; i < theta.size(); ++i) theta.data()[i] = normal(rng);
  Eigen::VectorXd values = Eigen::VectorXd::Zero(pattern->size());
  cc.add(theta, values);
  g_mallocs = 0;
  g_counting = true;
  for (int k = 0; k < 3; ++k) cc.add(theta, values);
  g_counting = false;
  return g_mallocs.load() / 3;
}

}  // namespace
#endif

TEST_CASE("a warmed-up multilevel log joint evaluation calls malloc zero times") {
#ifndef BVI_COUNT_MALLOC
  MESSAGE("malloc is not counted in this build (sanitizers own it)");
#else
  for (bool fused : {true, false})
    for (const char* likelihood :
         {"bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal", "negative_binomial_log",
          "lognormal", "gamma_log", "beta_logit"}) {
      INFO("fused " << fused << ", " << likelihood);
      CHECK(multilevel_mallocs_per_evaluation<double>(fused, likelihood) == 0);
      CHECK(multilevel_mallocs_per_evaluation<float>(fused, likelihood) == 0);
    }
#endif
}

TEST_CASE("a warmed-up crossed curvature pass calls malloc zero times") {
#ifndef BVI_COUNT_MALLOC
  MESSAGE("malloc is not counted in this build (sanitizers own it)");
#else
  for (const std::string likelihood : {"student_t", "ordinal_logit", "ordinal_probit"}) {
    INFO(likelihood);
    CHECK(crossed_mallocs_per_pass<double>(likelihood) == 0);
    CHECK(crossed_mallocs_per_pass<float>(likelihood) == 0);
  }
#endif
}

TEST_CASE("a warmed-up log joint evaluation calls malloc zero times") {
#ifndef BVI_COUNT_MALLOC
  MESSAGE("malloc is not counted in this build (sanitizers own it)");
#else
  // Blocks of 1024 rows with S = 128 need GEMM packing buffers far above Eigen's 128 KiB stack
  // limit; 1000 features make wide ones. Both paths, both precisions.
  for (bool fused : {true, false}) {
    INFO("fused " << fused);
    CHECK(mallocs_per_evaluation<double>(fused, kRows, 10, 128, 1024) == 0);
    CHECK(mallocs_per_evaluation<float>(fused, kRows, 10, 128, 1024) == 0);
    CHECK(mallocs_per_evaluation<double>(fused, 700, 1000, 16, 64) == 0);
    for (const char* likelihood :
         {"bernoulli_probit", "binomial_logit", "poisson_log", "normal", "negative_binomial_log", "lognormal",
          "gamma_log", "beta_logit"}) {
      INFO(std::string(likelihood));
      CHECK(mallocs_per_evaluation<double>(fused, kRows, 10, 128, 1024, likelihood) == 0);
      CHECK(mallocs_per_evaluation<float>(fused, kRows, 10, 128, 1024, likelihood) == 0);
    }
  }
#endif
}

}  // namespace test_no_allocation
