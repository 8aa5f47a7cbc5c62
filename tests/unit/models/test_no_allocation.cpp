// The hot loop allocates nothing: once a log joint has been evaluated, evaluating it again
// calls malloc zero times (tape memory comes from rewound arenas, the GEMMs pack into arena
// buffers, the reducer's slots are kept). malloc is counted by interposing it in this binary and
// forwarding to glibc, which sees Eigen's allocations too (operator new alone would not).
// Not in sanitizer builds: ASan owns malloc there.
#include <doctest/doctest.h>

#include <cstddef>  // defines __GLIBC__ on glibc

#if !defined(__SANITIZE_ADDRESS__) && defined(__GLIBC__)
#define BVI_COUNT_MALLOC 1
#endif

#include <atomic>
#include <cstddef>
#include <random>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/data/row_matrix.hpp"
#include "models/log_joint.hpp"
#include "support/model_fixtures.hpp"

#ifdef BVI_COUNT_MALLOC
namespace {
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

template <class T>
long mallocs_per_evaluation(bool fused, long n, long d, long S, long block_rows) {
  const test::SyntheticData synth = test::synthetic_logistic(n, d, 3);
  const bvi::data::RowMatrix<T> x = synth.x.cast<T>();
  const models::Model model =
      models::Model::build(test::logistic_config(true, {0.0}, {2.0}), test::feature_names(int(d)), {fused});
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(n, block_rows), comm, 1);
  models::LogJoint<T> lj(model, models::DataView<T>{x.data(), synth.y.data(), n, d, 0, n}, reducer);
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

}  // namespace
#endif

TEST_CASE("a warmed-up log joint evaluation calls malloc zero times") {
#ifndef BVI_COUNT_MALLOC
  MESSAGE("malloc is not counted in this build (sanitizers own it)");
#else
  // Blocks of 1024 rows with S = 128 need GEMM packing buffers far above Eigen's 128 KiB stack
  // limit; 1000 features make wide ones. Both paths, both precisions.
  for (bool fused : {true, false}) {
    INFO("fused " << fused);
    CHECK(mallocs_per_evaluation<double>(fused, 5000, 10, 128, 1024) == 0);
    CHECK(mallocs_per_evaluation<float>(fused, 5000, 10, 128, 1024) == 0);
    CHECK(mallocs_per_evaluation<double>(fused, 700, 1000, 16, 64) == 0);
  }
#endif
}
