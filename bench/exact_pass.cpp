// One pass of the exact method over the data against one streaming read of the same data, on
// synthetic logistic data held in memory: how close a pass is to the memory-bandwidth limit.
//
//   exact_pass ROWS FEATURES [THREADS] [REPEATS] [float32]
//
// Times, median of REPEATS (interleaved, after a warm-up): a streaming read of X (every element
// summed, through the same ChunkReducer, so the same chunking and threads), one meanfield
// evaluation of the expected log likelihood with its gradient and curvature (moments of every
// row, the quadrature, the gradient accumulation), and one Hessian-vector product pass (what each
// conjugate-gradient step of the mean costs). Prints a JSON line with the seconds and the
// ratios to the read.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "inference/reduce/chunk_reducer.hpp"
#include "inference/rng/normal_stream.hpp"
#include "models/expected_likelihood.hpp"
#include "models/problem.hpp"

using namespace bvi;
using Clock = std::chrono::steady_clock;

namespace {

template <class T>
int run(long N, long D, int threads, int repeats) {
  spec::ModelConfig mc;
  mc.likelihood = "bernoulli_logit";
  mc.intercept = true;
  for (const char* p : {"alpha", "beta"}) {
    spec::PriorConfig prior;
    prior.family = "normal";
    prior.hypers["loc"] = spec::HyperValue::numbers({0.0}, "");
    prior.hypers["scale"] = spec::HyperValue::numbers({2.5}, "");
    mc.priors[p] = prior;
  }
  std::vector<std::string> names;
  for (long j = 1; j <= D; ++j) names.push_back("x" + std::to_string(j));
  const models::Model model = models::Model::build(mc, names);
  const reduce::ShardPlan plan = reduce::ShardPlan::make(N, models::default_block_rows(D));
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(plan, comm, threads);

  std::vector<T> x(static_cast<std::size_t>(N * D));
  Eigen::VectorXd y(N);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long r = 0; r < N; r += 1024) {
    const long n = std::min(1024L, N - r);
    Eigen::MatrixXd block(n, D);
    rng::standard_normal(1, rng::Purpose::simulation, 1, 0, static_cast<std::uint64_t>(r), block);
    for (long i = 0; i < n; ++i) {
      double eta = 0.0;
      for (long j = 0; j < D; ++j) {
        x[static_cast<std::size_t>((r + i) * D + j)] = static_cast<T>(block(i, j));
        eta += 0.1 * block(i, j);
      }
      y[r + i] = eta > 0 ? 1.0 : 0.0;
    }
  }
  models::DataView<T> view{x.data(), y.data(), N, D, 0, N};
  models::ExpectedLikelihood<T> lik(model, view, reducer);
  vi::GaussianQ q;
  q.mean = Eigen::VectorXd::Constant(D + 1, 0.05);
  q.sd = Eigen::VectorXd::Constant(D + 1, 0.01);
  const Eigen::VectorXd d = Eigen::VectorXd::LinSpaced(D + 1, -1.0, 1.0);

  double sink = 0.0;
  auto read = [&] {
    double total = 0.0;
    reducer.sum(
        1,
        [&](int, Eigen::Index chunk, double* partial) {
          const Eigen::Index b = plan.chunk_begin_row(chunk) * D, e = plan.chunk_end_row(chunk) * D;
          double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
          Eigen::Index i = b;
          for (; i + 4 <= e; i += 4) {
            s0 += static_cast<double>(x[static_cast<std::size_t>(i)]);
            s1 += static_cast<double>(x[static_cast<std::size_t>(i + 1)]);
            s2 += static_cast<double>(x[static_cast<std::size_t>(i + 2)]);
            s3 += static_cast<double>(x[static_cast<std::size_t>(i + 3)]);
          }
          for (; i < e; ++i) s0 += static_cast<double>(x[static_cast<std::size_t>(i)]);
          partial[0] += (s0 + s1) + (s2 + s3);
        },
        &total, 2.0 * double(N) * double(D));
    sink += total;
  };
  vi::ExpectationGradient g;
  auto evaluate = [&] {
    g.reset(D + 1, false);
    sink += lik.evaluate(q, &g);
  };
  Eigen::VectorXd hd;
  auto hessian = [&] {
    hd.setZero(D + 1);
    lik.hessian_times(d, hd);
    sink += hd[0];
  };
  auto seconds = [](auto&& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  read();
  evaluate();
  hessian();
  std::vector<double> tr, te, th;
  for (int r = 0; r < repeats; ++r) {
    tr.push_back(seconds(read));
    te.push_back(seconds(evaluate));
    th.push_back(seconds(hessian));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double r = median(tr), e = median(te), h = median(th);
  std::printf(
      "{\"rows\": %ld, \"features\": %ld, \"threads\": %d, \"dtype\": \"%s\", \"read_s\": %.6f, "
      "\"evaluate_s\": %.6f, \"hessian_s\": %.6f, \"evaluate_x_read\": %.3f, \"hessian_x_read\": %.3f, "
      "\"read_GBps\": %.2f, \"sink\": %g}\n",
      N, D, threads, sizeof(T) == 4 ? "float32" : "float64", r, e, h, e / r, h / r,
      double(N) * double(D) * sizeof(T) / r / 1e9, sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: exact_pass ROWS FEATURES [THREADS] [REPEATS] [float32]\n");
    return 64;
  }
  const long N = std::atol(argv[1]), D = std::atol(argv[2]);
  const int threads = argc > 3 ? std::atoi(argv[3]) : omp_get_max_threads();
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
  const bool f32 = argc > 5 && std::string(argv[5]) == "float32";
  return f32 ? run<float>(N, D, threads, repeats) : run<double>(N, D, threads, repeats);
}
