// The benchmark harness. Three sections, each a ratio against the hand-written
// reference kernel (../shared/bench/reference_kernel.cpp, built by CMake with the project's
// flags) measured in the same run, so that the load of a shared machine cancels out:
//
//   kernel  one full gradient step of the batched log joint (value + S x P gradient over all N
//           rows) for the fused primitive, the composed generic-AD path and the fused primitive
//           on float32 data, against the reference's step at the same N, D, S and threads.
//   fit     the seed notebook's whole fit as a process (`bayes-vi fit configs/seed_logistic.json
//           --quiet`) against 1000 reference steps at (100, 10, 128).
//   memory  peak resident memory of a fit on a 10^6 x 100 CSV against the feature matrix's bytes.
//
// Every timing is a median over --reps repetitions after a warm-up; a repetition times the
// reference and the candidates back to back (forwards, then backwards in the next repetition),
// and the ratio reported is the median of the per-repetition ratios. Wall times are never
// compared with fixed numbers.
//
//   bench_log_joint [--quick] [--reps N] [--sections kernel,fit,memory] [--threads 1,2]
//                   [--case N,D,S]... [--memory-rows N] [--no-float] [--strict]
//   bench_log_joint --profile fused|composed|fused32 [--case N,D,S]... [--block-rows R]
//                                       (one path alone, for perf and for tuning block sizes)
#include <omp.h>
#include <sys/resource.h>
#include <time.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "models/log_joint.hpp"
#include "models/problem.hpp"

#ifndef BVI_REFERENCE_KERNEL_BIN
#define BVI_REFERENCE_KERNEL_BIN ""
#endif

namespace {

using namespace bvi;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

struct Case {
  long n;
  long d;
  long s;
};

struct Options {
  int reps = 5;
  double target_seconds = 0.25;  // per timed measurement; short steps are repeated up to this
  std::vector<std::string> sections{"kernel", "fit", "memory"};
  std::vector<int> threads{1, 2};
  std::vector<Case> cases{{100, 10, 128}, {100000, 100, 64}, {1000000, 10, 128}, {20000, 1000, 8}};
  long memory_rows = 1000000;
  long memory_cols = 100;
  bool with_float = true;
  bool strict = false;  // exit 1 when a target fails
  std::string profile;  // "fused", "composed" or "fused32": only run that path, for a profiler
  long block_rows = 0;  // rows per block; 0: models::default_block_rows, as the CLI uses
  std::string reference = BVI_REFERENCE_KERNEL_BIN;
  std::string bayes_vi = BVI_BAYES_VI_BIN;
  std::string make_csv = BVI_MAKE_CSV_BIN;
  std::string seed_config = BVI_SEED_CONFIG;
  std::string data_dir = BVI_BENCH_DATA_DIR;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? NAN : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

// CPU time of this process (all threads), which a busy machine inflates less than wall time.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Minor page faults of this process so far: first touches of fresh memory.
long minor_faults() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// ---- the reference kernel, as a child process -------------------------------------------------

bool reference_available(const Options& o) {
  return !o.reference.empty() && fs::exists(o.reference);
}

// Seconds per step of the reference kernel, from its own timer (its set-up is not counted).
double reference_step(const Options& o, const Case& c, int threads, long iters, bool f32) {
  std::vector<std::string> argv{o.reference, std::to_string(c.n), std::to_string(c.d), std::to_string(c.s),
                                std::to_string(iters), std::to_string(threads)};
  if (f32) argv.push_back("f");
  const bench::ChildResult r = bench::run_child(argv, true);
  if (r.exit_code != 0) throw std::runtime_error("reference kernel failed (exit " + std::to_string(r.exit_code) + ")");
  return nlohmann::json::parse(r.out).at("sec_per_iter").get<double>();
}

// ---- the log joint under test -------------------------------------------------------------------

spec::ModelConfig reference_model() {
  // The reference's model: no intercept, beta ~ N(0, 10) (its prior gradient is -B / 100).
  spec::ModelConfig m;
  m.likelihood = "bernoulli_logit";
  m.intercept = false;
  spec::PriorConfig beta;
  beta.family = "normal";
  beta.pointer = "/model/priors/beta";
  beta.hypers["loc"] = spec::HyperValue::numbers({0.0}, "/model/priors/beta/normal/loc");
  beta.hypers["scale"] = spec::HyperValue::numbers({10.0}, "/model/priors/beta/normal/scale");
  m.priors["beta"] = beta;
  return m;
}

struct SyntheticData {
  data::RowMatrix<double> x;
  data::RowMatrix<float> xf;
  Eigen::VectorXd y;
  std::vector<std::string> names;
};

// Standard normal features and a fair-coin response, as the reference generates its own.
SyntheticData make_data(const Case& c, bool with_float) {
  SyntheticData d;
  std::mt19937_64 rng(20240611);
  std::normal_distribution<double> normal;
  d.x.resize(c.n, c.d);
  for (long i = 0; i < c.n * c.d; ++i) d.x.data()[i] = normal(rng);
  if (with_float) d.xf = d.x.cast<float>();
  d.y.resize(c.n);
  for (long i = 0; i < c.n; ++i) d.y[i] = double(rng() & 1);
  for (long j = 0; j < c.d; ++j) d.names.push_back("x" + std::to_string(j + 1));
  return d;
}

// One path of the log joint over the whole data set: the model, the row plan the CLI would
// use, the reducer and the draws. `step()` is one full value + gradient evaluation.
template <class T>
class Subject {
 public:
  Subject(const SyntheticData& data, const Case& c, int threads, bool fused, long block_rows = 0)
      : model_(models::Model::build(reference_model(), data.names, {fused})),
        plan_(reduce::ShardPlan::make(c.n, block_rows > 0 ? block_rows : models::default_block_rows(c.d))),
        reducer_(plan_, comm_, threads) {
    const T* x = nullptr;
    if constexpr (std::is_same_v<T, float>)
      x = data.xf.data();
    else
      x = data.x.data();
    lj_ = std::make_unique<models::LogJoint<T>>(model_, models::DataView<T>{x, data.y.data(), c.n, c.d, 0, c.n},
                                                reducer_);
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(0.0, 0.1);
    theta_.resize(c.s, c.d);
    for (long i = 0; i < theta_.size(); ++i) theta_.data()[i] = normal(rng);
    lp_.resize(c.s);
  }
  void step() { lj_->evaluate(theta_, lp_, &grad_); }
  // Mean seconds per step over `k` steps.
  double time(long k) {
    const auto t0 = Clock::now();
    for (long i = 0; i < k; ++i) step();
    return std::chrono::duration<double>(Clock::now() - t0).count() / double(k);
  }
  // Steps that fill about `target` seconds, from a timing of one step (after a warm-up step).
  long steps_for(double target) {
    step();
    const double one = time(1);
    return std::clamp<long>(static_cast<long>(std::ceil(target / std::max(one, 1e-7))), 1, 200000);
  }
  const Eigen::VectorXd& lp() const { return lp_; }
  const Eigen::MatrixXd& grad() const { return grad_; }

 private:
  models::Model model_;
  reduce::SerialCommunicator comm_;
  reduce::ShardPlan plan_;
  reduce::ChunkReducer reducer_;
  std::unique_ptr<models::LogJoint<T>> lj_;
  Eigen::MatrixXd theta_, grad_;
  Eigen::VectorXd lp_;
};

// ---- output -------------------------------------------------------------------------------------

struct Verdicts {
  int pass = 0;
  std::vector<std::string> failed;
  std::string judge(double ratio, double limit, const std::string& what) {
    if (std::isnan(ratio)) return "";
    if (ratio <= limit) {
      ++pass;
      return "PASS";
    }
    failed.push_back(what);
    return "FAIL";
  }
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void row(const Case& c, int threads, const std::string& path, double sec, double ratio, const std::string& target,
         const std::string& verdict) {
  const double gflops = 4.0 * double(c.n) * double(c.d) * double(c.s) / sec / 1e9;
  std::printf("| %8ld | %5ld | %4ld | %2d | %-13s | %10.4g | %7.2f | %6s | %-7s | %-4s |\n", c.n, c.d, c.s, threads,
              path.c_str(), sec, gflops, std::isnan(ratio) ? "" : fmt("%.3f", ratio).c_str(), target.c_str(),
              verdict.c_str());
  std::fflush(stdout);
}

// ---- sections -----------------------------------------------------------------------------------

void kernel_section(const Options& o, Verdicts& v) {
  const bool ref = reference_available(o);
  std::printf("\n## Gradient step of the batched log joint (median of %d; ratios against the reference)\n\n",
              o.reps);
  if (!ref) std::printf("(reference kernel not built: no ratios; see bench/README.md)\n\n");
  std::printf("| %8s | %5s | %4s | %2s | %-13s | %10s | %7s | %6s | %-7s | %-4s |\n", "N", "D", "S", "th", "path",
              "s/step", "GFLOP/s", "x ref", "target", "");
  std::printf("|---------:|------:|-----:|---:|---------------|-----------:|--------:|-------:|---------|------|\n");
  for (const Case& c : o.cases) {
    const SyntheticData data = make_data(c, o.with_float);
    for (int threads : o.threads) {
      Subject<double> fused(data, c, threads, true), composed(data, c, threads, false);
      std::unique_ptr<Subject<float>> fused32;
      if (o.with_float) fused32 = std::make_unique<Subject<float>>(data, c, threads, true);
      // Sanity: the two paths compute the same thing.
      fused.step();
      composed.step();
      const double dl = (fused.lp() - composed.lp()).cwiseAbs().maxCoeff() / composed.lp().cwiseAbs().maxCoeff();
      const double dg = (fused.grad() - composed.grad()).cwiseAbs().maxCoeff() /
                        std::max(1e-300, composed.grad().cwiseAbs().maxCoeff());
      if (!(dl < 1e-10 && dg < 1e-10))
        throw std::runtime_error("fused and composed paths disagree (" + std::to_string(dl) + ", " +
                                 std::to_string(dg) + ")");

      const long k_fused = fused.steps_for(o.target_seconds);
      const long k_composed = composed.steps_for(o.target_seconds);
      const long k_fused32 = fused32 ? fused32->steps_for(o.target_seconds) : 0;
      // The reference gets as many steps as the fused path, and an untimed warm-up run.
      if (ref) reference_step(o, c, threads, 1, false);
      std::vector<double> t_ref, t_fused, t_composed, t_ref32, t_fused32, r_fused, r_composed, r_fused32;
      std::vector<std::function<void()>> measures;
      measures.push_back([&] {
        if (ref) t_ref.push_back(reference_step(o, c, threads, k_fused, false));
      });
      measures.push_back([&] { t_fused.push_back(fused.time(k_fused)); });
      measures.push_back([&] { t_composed.push_back(composed.time(k_composed)); });
      if (fused32) {
        measures.push_back([&] {
          if (ref) t_ref32.push_back(reference_step(o, c, threads, k_fused32, true));
        });
        measures.push_back([&] { t_fused32.push_back(fused32->time(k_fused32)); });
      }
      for (int rep = 0; rep < o.reps; ++rep) {
        // Forwards on even repetitions, backwards on odd ones (ABBA): each candidate runs next to
        // its reference, and a drift in the machine's load does not favour whichever runs first.
        for (std::size_t i = 0; i < measures.size(); ++i) measures[rep % 2 ? measures.size() - 1 - i : i]();
        if (ref) {
          r_fused.push_back(t_fused.back() / t_ref.back());
          r_composed.push_back(t_composed.back() / t_ref.back());
          if (fused32) r_fused32.push_back(t_fused32.back() / t_ref32.back());
        }
      }
      const std::string tag = "N=" + std::to_string(c.n) + " D=" + std::to_string(c.d) + " S=" +
                              std::to_string(c.s) + " threads=" + std::to_string(threads);
      if (ref) row(c, threads, "reference", median(t_ref), NAN, "", "");
      row(c, threads, "fused", median(t_fused), median(r_fused), "<= 1.15",
          v.judge(median(r_fused), 1.15, "fused " + tag));
      row(c, threads, "composed", median(t_composed), median(r_composed), "<= 3",
          v.judge(median(r_composed), 3.0, "composed " + tag));
      if (fused32) {
        if (ref) row(c, threads, "reference f32", median(t_ref32), NAN, "", "");
        row(c, threads, "fused f32", median(t_fused32), median(r_fused32), "<= 1.15",
            v.judge(median(r_fused32), 1.15, "fused f32 " + tag));
        std::printf("|          |       |      |    | f32 speed-up  | %9.2fx |         |        |         |      |\n",
                    median(t_fused) / median(t_fused32));
      }
    }
  }
}

// Runs one path only, reps x target seconds per case at the first thread count, printing one line
// per case: something for perf or callgrind to look at without the reference and the other paths.
void profile_section(const Options& o) {
  for (const Case& c : o.cases) {
    const SyntheticData data = make_data(c, o.profile == "fused32");
    const int threads = o.threads.front();
    double sec = 0, cpu = 0;
    long k = 0;
    double best = INFINITY, faults = 0;
    auto run = [&](auto& s) {
      k = s.steps_for(o.target_seconds) * o.reps;
      const long faults0 = minor_faults();
      const double cpu0 = cpu_seconds();
      const auto t0 = Clock::now();
      for (long i = 0; i < k; ++i) best = std::min(best, s.time(1));
      sec = std::chrono::duration<double>(Clock::now() - t0).count() / double(k);
      cpu = (cpu_seconds() - cpu0) / double(k);
      faults = double(minor_faults() - faults0) / double(k);
    };
    if (o.profile == "fused32") {
      Subject<float> s(data, c, threads, true, o.block_rows);
      run(s);
    } else {
      Subject<double> s(data, c, threads, o.profile == "fused", o.block_rows);
      run(s);
    }
    std::printf(
        "%s N=%ld D=%ld S=%ld threads=%d: %.4g s/step (%.4g CPU s/step, fastest %.4g s, %.1f page faults/step) "
        "over %ld steps\n",
        o.profile.c_str(), c.n, c.d, c.s, threads, sec, cpu, best, faults, k);
  }
}

void fit_section(const Options& o, Verdicts& v) {
  std::printf("\n## The seed fit as a whole process (median of %d)\n\n", o.reps);
  const std::vector<std::string> fit{o.bayes_vi, "fit", o.seed_config, "--quiet"};
  const Case c{100, 10, 128};
  const bool ref = reference_available(o);
  bench::run_child(fit, false);  // warm the page cache and the dynamic loader's files
  std::vector<double> t_fit, t_ref, ratio;
  for (int rep = 0; rep < o.reps; ++rep) {
    const bench::ChildResult r = bench::run_child(fit, false);
    if (r.exit_code != 0) throw std::runtime_error("bayes-vi fit failed (exit " + std::to_string(r.exit_code) + ")");
    t_fit.push_back(r.seconds);
    if (ref) {
      t_ref.push_back(1000 * reference_step(o, c, 1, 1000, false));
      ratio.push_back(t_fit.back() / t_ref.back());
    }
  }
  std::printf("| what | seconds | x ref | target | |\n|---|---:|---:|---|---|\n");
  std::printf("| `bayes-vi fit configs/seed_logistic.json --quiet` (process wall time) | %.4f | %s | <= 2 | %s |\n",
              median(t_fit), ref ? fmt("%.3f", median(ratio)).c_str() : "",
              v.judge(median(ratio), 2.0, "whole seed fit").c_str());
  if (ref) std::printf("| 1000 reference steps at (100, 10, 128), 1 thread | %.4f | | | |\n", median(t_ref));
  std::fflush(stdout);
}

void memory_section(const Options& o, Verdicts& v) {
  const long n = o.memory_rows, d = o.memory_cols;
  std::printf("\n## Peak resident memory of a fit on %ld x %ld data\n\n", n, d);
  fs::create_directories(o.data_dir);
  const std::string csv =
      (fs::path(o.data_dir) / ("logistic_" + std::to_string(n) + "x" + std::to_string(d) + ".csv")).string();
  if (!fs::exists(csv)) {
    std::printf("(writing %s once; later runs reuse it)\n\n", csv.c_str());
    std::fflush(stdout);
    const bench::ChildResult g = bench::run_child({o.make_csv, std::to_string(n), std::to_string(d), csv}, false);
    if (g.exit_code != 0) throw std::runtime_error("make_logistic_csv failed");
  }
  std::printf("| dtype | peak RSS (MB) | X (MB) | RSS / X | limit 1.3 X + 100 MB | | fit seconds |\n");
  std::printf("|---|---:|---:|---:|---:|---|---:|\n");
  for (const std::string dtype : {"float64", "float32"}) {
    if (dtype == "float32" && !o.with_float) continue;
    // Few draws and steps: memory is the point here, not the optimum.
    const nlohmann::json cfg = {
        {"data", {{"csv", csv}, {"response", "y"}, {"dtype", dtype}}},
        {"model",
         {{"likelihood", "bernoulli_logit"}, {"priors", {{"beta", {{"normal", {{"loc", 0}, {"scale", 1}}}}}}}}},
        {"inference",
         {{"draws_per_step", 8},
          {"optimizer", {{"name", "sgd"}, {"learning_rate", 1e-4}}},
          {"max_iterations", 3},
          {"eval_elbo", 3},
          {"elbo_samples", 8},
          {"final_elbo_draws", 1000},
          {"output_draws", 100}}}};
    const std::string cfg_path = (fs::path(o.data_dir) / ("memory_fit_" + dtype + ".json")).string();
    std::ofstream(cfg_path) << cfg.dump(2) << "\n";
    const bench::ChildResult r = bench::run_child({o.bayes_vi, "fit", cfg_path, "--quiet"}, false);
    if (r.exit_code != 0) throw std::runtime_error("bayes-vi fit (memory) failed (exit " + std::to_string(r.exit_code) + ")");
    const double x_bytes = double(n) * double(d) * (dtype == "float32" ? 4 : 8);
    const double rss = double(r.max_rss_kb) * 1024;
    const double limit = 1.3 * x_bytes + 100e6;
    std::printf("| %s | %.0f | %.0f | %.3f | %.0f | %s | %.1f |\n", dtype.c_str(), rss / 1e6, x_bytes / 1e6,
                rss / x_bytes, limit / 1e6, v.judge(rss / limit, 1.0, "memory " + dtype).c_str(), r.seconds);
    std::fflush(stdout);
  }
}

Options parse(int argc, char** argv) {
  Options o;
  bool cases_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--quick") {
      o.reps = 5;
      o.target_seconds = 0.05;
    } else if (a == "--reps") {
      o.reps = std::max(1, std::stoi(next()));
    } else if (a == "--sections") {
      o.sections = split(next(), ',');
    } else if (a == "--threads") {
      o.threads.clear();
      for (const std::string& t : split(next(), ',')) o.threads.push_back(std::stoi(t));
    } else if (a == "--case") {
      const std::vector<std::string> f = split(next(), ',');
      if (f.size() != 3) throw std::runtime_error("--case takes N,D,S");
      if (!cases_given) o.cases.clear();
      cases_given = true;
      o.cases.push_back({std::stol(f[0]), std::stol(f[1]), std::stol(f[2])});
    } else if (a == "--memory-rows") {
      o.memory_rows = std::stol(next());
    } else if (a == "--no-float") {
      o.with_float = false;
    } else if (a == "--strict") {
      o.strict = true;
    } else if (a == "--profile") {
      o.profile = next();
      if (o.profile != "fused" && o.profile != "composed" && o.profile != "fused32")
        throw std::runtime_error("--profile takes fused, composed or fused32");
    } else if (a == "--block-rows") {
      o.block_rows = std::stol(next());
    } else if (a == "--reference") {
      o.reference = next();
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "bench_log_joint [--quick] [--reps N] [--sections kernel,fit,memory] [--threads 1,2]\n"
          "                [--case N,D,S]... [--memory-rows N] [--no-float] [--strict] [--reference BIN]\n"
          "bench_log_joint --profile fused|composed|fused32 [--case N,D,S]... [--threads T] [--reps N]\n"
          "                [--block-rows R]\n");
      std::exit(0);
    } else {
      throw std::runtime_error("unknown argument " + a);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    std::printf("# bench_log_joint: %d cores, OpenMP max threads %d, reference %s\n", omp_get_num_procs(),
                omp_get_max_threads(), reference_available(o) ? o.reference.c_str() : "(not built)");
    if (!o.profile.empty()) {
      profile_section(o);
      return 0;
    }
    Verdicts v;
    if (has(o.sections, "kernel")) kernel_section(o, v);
    if (has(o.sections, "fit")) fit_section(o, v);
    if (has(o.sections, "memory")) memory_section(o, v);
    std::printf("\n%d targets PASS, %zu FAIL\n", v.pass, v.failed.size());
    for (const std::string& f : v.failed) std::printf("  FAIL: %s\n", f.c_str());
    return o.strict && !v.failed.empty() ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_log_joint: %s\n", e.what());
    return 2;
  }
}
