// One gradient step of the batched log joint (the unit of work of a fit) on synthetic data held
// in memory, through the same LogJoint, ChunkReducer and communicator a fit uses: run it alone
// or under mpirun to measure thread and rank scaling. Each rank generates only its own rows.
//
//   step_scaling ROWS FEATURES DRAWS STEPS [THREADS]
//   mpirun -n 2 step_scaling 1000000 100 64 7 1
//
// Prints one JSON line from rank 0: the median seconds per step over STEPS (after one warm-up
// step), and the share of it spent combining the chunk partial sums in a fixed order.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "inference/reduce/chunk_reducer.hpp"
#include "inference/reduce/mpi_communicator.hpp"
#include "inference/rng/normal_stream.hpp"
#include "models/log_joint.hpp"
#include "models/problem.hpp"

using namespace bvi;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: step_scaling ROWS FEATURES DRAWS STEPS [THREADS]\n");
    return 64;
  }
  const long N = std::atol(argv[1]), D = std::atol(argv[2]), S = std::atol(argv[3]),
             steps = std::atol(argv[4]);
  const int threads = argc > 5 ? std::atoi(argv[5]) : omp_get_max_threads();
  reduce::MpiRuntime mpi(&argc, &argv);
  reduce::Communicator& comm = mpi.comm();

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
  const long first = plan.first_row(comm.rank(), comm.size()), last = plan.last_row(comm.rank(), comm.size());

  // This rank's rows: features from the counter stream (row r is draw r), y alternating.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> x(last - first, D);
  Eigen::VectorXd y(last - first);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long r = first; r < last; r += 1024) {
    const long n = std::min(1024L, last - r);
    Eigen::MatrixXd block(n, D);
    rng::standard_normal(1, rng::Purpose::simulation, 1, 0, static_cast<std::uint64_t>(r), block);
    x.middleRows(r - first, n) = block;
    for (long i = 0; i < n; ++i) y[r - first + i] = static_cast<double>((r + i) % 2);
  }
  models::DataView<double> view{x.data(), y.data(), last - first, D, first, N};
  reduce::ChunkReducer reducer(plan, comm, threads);
  models::LogJoint<double> lj(model, view, reducer);

  Eigen::MatrixXd theta(S, model.dim());
  rng::standard_normal(2, rng::Purpose::gradient, 1, 0, theta);
  theta *= 0.1;
  Eigen::VectorXd lp(S);
  Eigen::MatrixXd grad;
  std::vector<double> times, combine;
  for (long k = 0; k <= steps; ++k) {
    long sync = 0;
    comm.allreduce_max(&sync, 1);  // start every rank's step together
    const auto t0 = std::chrono::steady_clock::now();
    lj.evaluate(theta, lp, &grad);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (k > 0) {  // the first step warms caches and grows buffers
      times.push_back(dt);
      combine.push_back(reducer.last_combine_seconds());
    }
  }
  std::sort(times.begin(), times.end());
  std::sort(combine.begin(), combine.end());
  const double median = times[times.size() / 2];
  const double combine_median = combine[combine.size() / 2];
  if (comm.is_root())
    std::printf(
        "{\"rows\":%ld,\"features\":%ld,\"draws\":%ld,\"ranks\":%d,\"threads\":%d,\"chunks\":%ld,"
        "\"sec_per_step\":%.6g,\"min\":%.6g,\"max\":%.6g,\"gflops\":%.3g,\"combine_sec\":%.3g,"
        "\"combine_share\":%.4f,\"check\":%.17g}\n",
        N, D, S, comm.size(), threads, static_cast<long>(plan.n_chunks), median, times.front(), times.back(),
        4.0 * N * D * S / median / 1e9, combine_median, combine_median / median, lp.sum() + grad.sum());
  return 0;
}
