// One pass of the exact method over the data against one streaming read of the same data, on
// synthetic data held in memory: how close a pass is to the memory-bandwidth limit.
//
//   exact_pass ROWS FEATURES [THREADS] [REPEATS] [float32] [--likelihood NAME] [--fullrank]
//
// Times, median of REPEATS (interleaved, after a warm-up): a streaming read of X (every element
// summed, through the same ChunkReducer, so the same chunking and threads), one meanfield
// evaluation of the expected log likelihood with its gradient and curvature (moments of every
// row, the quadrature, the gradient accumulation), and one Hessian-vector product pass (what each
// conjugate-gradient step of the mean costs); with --fullrank, one fullrank evaluation instead
// (no Hessian-vector pass: the fullrank step has none). Prints a JSON line with the seconds and
// the ratios to the read, by the wall clock and by the process's CPU clock.
//
// The likelihood (default bernoulli_logit, its data as before: y = [eta > 0]) is any the exact
// method fits; its response is drawn from the model at eta = 0.1 sum_j x_j (+ 0.5 for the counts
// and positive values), with the extra parameter at phi = 5 (negative_binomial_log), shape = 5
// (gamma_log), sigma = 0.5 (lognormal, normal), phi = 10 (beta_logit), 10 trials (binomial_logit).
// q: every coefficient's mean 0.05 and sd 0.01 (sd(eta) about 0.1 at 100 features), the extra
// parameter's unconstrained coordinate at its true value with sd 0.01 (a posterior's width at
// 10^5 rows), and under --fullrank L with those sds on the diagonal and 0.001 below it.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <random>
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

spec::PriorConfig prior(const char* family, const char* a, double va, const char* b, double vb) {
  spec::PriorConfig p;
  p.family = family;
  p.hypers[a] = spec::HyperValue::numbers({va}, "");
  p.hypers[b] = spec::HyperValue::numbers({vb}, "");
  return p;
}

// The extra parameter's name, its prior, and its true value (constrained), or nullptr.
struct Extra {
  const char* name = nullptr;
  spec::PriorConfig prior;
  double value = 0.0;
};

Extra extra_parameter(const std::string& lik) {
  if (lik == "negative_binomial_log") return {"phi", prior("gamma", "shape", 2.0, "rate", 0.5), 5.0};
  if (lik == "gamma_log") return {"shape", prior("gamma", "shape", 2.0, "rate", 0.5), 5.0};
  if (lik == "beta_logit") return {"phi", prior("gamma", "shape", 2.0, "rate", 0.2), 10.0};
  if (lik == "lognormal" || lik == "normal") return {"sigma", prior("half_normal", "loc", 0.0, "scale", 2.0), 0.5};
  return {};
}

// A response of the likelihood at linear predictor eta (extra parameter p), drawn with g.
double draw(const std::string& lik, double eta, double p, std::mt19937_64& g) {
  if (lik == "bernoulli_logit") return eta > 0 ? 1.0 : 0.0;  // as the benchmark always had it
  if (lik == "bernoulli_probit") return std::normal_distribution<double>(eta, 1.0)(g) > 0 ? 1.0 : 0.0;
  if (lik == "binomial_logit")
    return double(std::binomial_distribution<int>(10, 1.0 / (1.0 + std::exp(-eta)))(g));
  if (lik == "poisson_log") return double(std::poisson_distribution<long>(std::exp(eta))(g));
  if (lik == "negative_binomial_log") {
    const double rate = std::gamma_distribution<double>(p, std::exp(eta) / p)(g);
    return double(std::poisson_distribution<long>(rate)(g));
  }
  if (lik == "gamma_log") return std::gamma_distribution<double>(p, std::exp(eta) / p)(g);
  if (lik == "lognormal") return std::exp(std::normal_distribution<double>(eta, p)(g));
  if (lik == "normal") return std::normal_distribution<double>(eta, p)(g);
  if (lik == "beta_logit") {
    const double mu = 1.0 / (1.0 + std::exp(-eta));
    for (;;) {
      const double a = std::gamma_distribution<double>(mu * p, 1.0)(g),
                   b = std::gamma_distribution<double>((1.0 - mu) * p, 1.0)(g);
      const double y = a / (a + b);
      if (y > 0.0 && y < 1.0) return y;
    }
  }
  throw std::invalid_argument("exact_pass: no response for likelihood " + lik);
}

template <class T>
int run(long N, long D, int threads, int repeats, const std::string& likelihood, bool fullrank) {
  spec::ModelConfig mc;
  mc.likelihood = likelihood;
  mc.intercept = true;
  for (const char* p : {"alpha", "beta"}) mc.priors[p] = prior("normal", "loc", 0.0, "scale", 2.5);
  const Extra extra = extra_parameter(likelihood);
  if (extra.name) mc.priors[extra.name] = extra.prior;
  const bool shifted = likelihood == "poisson_log" || likelihood == "negative_binomial_log" ||
                       likelihood == "gamma_log" || likelihood == "lognormal";
  std::vector<std::string> names;
  for (long j = 1; j <= D; ++j) names.push_back("x" + std::to_string(j));
  const models::Model model = models::Model::build(mc, names);
  {
    std::mt19937_64 g;
    draw(likelihood, 0.0, extra.value, g);  // throws here, not in the parallel loop, for a likelihood without one
  }
  const reduce::ShardPlan plan = reduce::ShardPlan::make(N, models::default_block_rows(D));
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(plan, comm, threads);

  std::vector<T> x(static_cast<std::size_t>(N * D));
  Eigen::VectorXd y(N);
  const Eigen::VectorXd trials = Eigen::VectorXd::Constant(likelihood == "binomial_logit" ? N : 0, 10.0);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long r = 0; r < N; r += 1024) {
    const long n = std::min(1024L, N - r);
    Eigen::MatrixXd block(n, D);
    rng::standard_normal(1, rng::Purpose::simulation, 1, 0, static_cast<std::uint64_t>(r), block);
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < D; ++j) x[static_cast<std::size_t>((r + i) * D + j)] = static_cast<T>(block(i, j));
    std::mt19937_64 g(static_cast<std::uint64_t>(r) + 1);
    for (long i = 0; i < n; ++i) {
      double eta = shifted ? 0.5 : 0.0;
      for (long j = 0; j < D; ++j) eta += 0.1 * block(i, j);
      y[r + i] = draw(likelihood, eta, extra.value, g);
    }
  }
  models::DataView<T> view{x.data(), y.data(), N, D, 0, N};
  if (trials.size()) view.trials = trials.data();
  models::ExpectedLikelihood<T> lik(model, view, reducer);
  const Eigen::Index P = model.dim();
  vi::GaussianQ q;
  q.mean = Eigen::VectorXd::Constant(P, 0.05);
  q.sd = Eigen::VectorXd::Constant(P, 0.01);
  const Eigen::Index scale = model.likelihood().scale_column();
  if (scale >= 0) q.mean[scale] = std::log(extra.value);
  if (fullrank) {
    q.dense = true;
    q.chol = Eigen::MatrixXd::Zero(P, P);
    q.chol.triangularView<Eigen::StrictlyLower>().setConstant(0.001);
    q.chol.diagonal() = q.sd;
  }
  const Eigen::VectorXd d = Eigen::VectorXd::LinSpaced(P, -1.0, 1.0);

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
    g.reset(P, fullrank);
    sink += lik.evaluate(q, &g);
  };
  Eigen::VectorXd hd;
  auto hessian = [&] {
    if (fullrank) return;
    hd.setZero(P);
    lik.hessian_times(d, hd);
    sink += hd[0];
  };
  // Wall seconds, and the process's CPU seconds (on a loaded machine a short pass is often
  // preempted mid-way, which the wall clock counts and the CPU clock does not).
  auto cpu_now = [] {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
  };
  struct Times {
    std::vector<double> wall, cpu;
  };
  auto measure = [&](auto&& f, Times& t) {
    const double c0 = cpu_now();
    const auto t0 = Clock::now();
    f();
    t.wall.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    t.cpu.push_back(cpu_now() - c0);
  };
  read();
  evaluate();
  hessian();
  Times tr, te, th;
  for (int r = 0; r < repeats; ++r) {
    measure(read, tr);
    measure(evaluate, te);
    measure(hessian, th);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double r = median(tr.wall), e = median(te.wall), h = median(th.wall);
  const double rc = median(tr.cpu), ec = median(te.cpu), hc = median(th.cpu);
  std::printf(
      "{\"likelihood\": \"%s\", \"family\": \"%s\", \"rows\": %ld, \"features\": %ld, \"threads\": %d, "
      "\"dtype\": \"%s\", \"read_s\": %.6f, "
      "\"evaluate_s\": %.6f, \"hessian_s\": %.6f, \"evaluate_x_read\": %.3f, \"hessian_x_read\": %.3f, "
      "\"read_cpu_s\": %.6f, \"evaluate_cpu_s\": %.6f, \"hessian_cpu_s\": %.6f, \"evaluate_x_read_cpu\": %.3f, "
      "\"hessian_x_read_cpu\": %.3f, \"read_GBps\": %.2f, \"sink\": %g}\n",
      likelihood.c_str(), fullrank ? "fullrank" : "meanfield", N, D, threads, sizeof(T) == 4 ? "float32" : "float64",
      r, e, h, e / r, h / r, rc, ec, hc, ec / rc, hc / rc, double(N) * double(D) * sizeof(T) / r / 1e9, sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: exact_pass ROWS FEATURES [THREADS] [REPEATS] [float32] [--likelihood NAME] [--fullrank]\n";
  std::vector<std::string> positional;
  std::string likelihood = "bernoulli_logit";
  bool fullrank = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--likelihood" && i + 1 < argc)
      likelihood = argv[++i];
    else if (a == "--fullrank")
      fullrank = true;
    else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "exact_pass: unknown option %s\n%s", a.c_str(), usage);
      return 64;
    } else
      positional.push_back(a);
  }
  if (positional.size() < 2 || positional.size() > 5) {
    std::fputs(usage, stderr);
    return 64;
  }
  const long N = std::atol(positional[0].c_str()), D = std::atol(positional[1].c_str());
  const int threads = positional.size() > 2 ? std::atoi(positional[2].c_str()) : omp_get_max_threads();
  const int repeats = positional.size() > 3 ? std::atoi(positional[3].c_str()) : 5;
  const bool f32 = positional.size() > 4 && positional[4] == "float32";
  if (N < 1 || D < 1 || threads < 1 || repeats < 1) {
    std::fputs(usage, stderr);
    return 64;
  }
  try {
    return f32 ? run<float>(N, D, threads, repeats, likelihood, fullrank)
               : run<double>(N, D, threads, repeats, likelihood, fullrank);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exact_pass: %s\n", e.what());
    return 64;
  }
}
