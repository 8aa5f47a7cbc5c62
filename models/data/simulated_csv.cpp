#include "models/data/simulated_csv.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>

namespace bvi::data {

namespace {

// The longest shortest-round-trip float: sign, 9 digits, point and exponent, "-1.17549435e-38".
constexpr std::size_t kMaxFloatChars = 15;
// The longest response or trials field: a shortest-round-trip double ("-2.2250738585072014e-308")
// or a 64-bit integer.
constexpr std::size_t kMaxTailChars = 2 * 25;

// About 32k numbers a block (256 KB of doubles in flight, some 350 KB of text): small enough to
// stay in cache, large enough that handing a block over costs nothing next to making it.
Eigen::Index rows_per_block(int features) {
  return std::max<Eigen::Index>(1, (Eigen::Index{1} << 15) / features);
}

char* put_float(char* p, char* end, float v) {
  const std::to_chars_result r = std::to_chars(p, end, v);
  if (r.ec != std::errc()) throw std::logic_error("simulated_csv: number buffer too small");
  return r.ptr;
}

}  // namespace

std::string simulated_csv_header(const SimulationSpec& spec) {
  std::string h;
  for (int j = 1; j <= spec.features; ++j) h += "x" + std::to_string(j) + ",";
  if (spec.likelihood == "binomial_logit") h += "trials,";
  return h + "y\n";
}

void append_csv_rows(const SimulationSpec& spec, const SimulatedBlock& block, std::string& text) {
  const bool integer = simulated_response_is_integer(spec.likelihood);
  const bool trials = spec.likelihood == "binomial_logit";
  const Eigen::Index rows = block.x.rows(), D = block.x.cols();
  const std::size_t start = text.size();
  // Sized for the longest numbers, written in place, then cut to what was written.
  text.resize(start + static_cast<std::size_t>(rows) *
                          (static_cast<std::size_t>(D) * (kMaxFloatChars + 1) + kMaxTailChars + 3));
  char* p = text.data() + start;
  char* const end = text.data() + text.size();
  for (Eigen::Index n = 0; n < rows; ++n) {
    const float* xn = block.x.row(n).data();
    for (Eigen::Index j = 0; j < D; ++j) {
      p = put_float(p, end, xn[j]);
      *p++ = ',';
    }
    if (trials) {
      p = std::to_chars(p, end, spec.trials).ptr;
      *p++ = ',';
    }
    const double y = block.y[static_cast<std::size_t>(n)];
    const std::to_chars_result r =
        integer ? std::to_chars(p, end, static_cast<std::int64_t>(y)) : std::to_chars(p, end, y);
    if (r.ec != std::errc()) throw std::logic_error("simulated_csv: number buffer too small");
    p = r.ptr;
    *p++ = '\n';
  }
  text.resize(static_cast<std::size_t>(p - text.data()));
}

std::string true_values_csv(const SimulationSpec& spec, const std::vector<float>& beta) {
  std::string text = "name,true_value\n";
  char buf[kMaxFloatChars + 1];
  if (spec.likelihood == "categorical_logit") {
    // alpha.k for k = 2 ... K, then beta.k.j feature-major (the model's layout).
    const std::size_t C = static_cast<std::size_t>(spec.levels - 1);
    if (spec.intercept)
      for (std::size_t c = 0; c < C; ++c) {
        text += "alpha." + std::to_string(c + 2) + ",";
        text.append(buf, put_float(buf, buf + sizeof buf, spec.alpha));
        text += '\n';
      }
    for (std::size_t i = 0; i < beta.size(); ++i) {
      text += "beta." + std::to_string(i % C + 2) + "." + std::to_string(i / C + 1) + ",";
      text.append(buf, put_float(buf, buf + sizeof buf, beta[i]));
      text += '\n';
    }
    return text;
  }
  if (spec.intercept) {
    text += "alpha,";
    text.append(buf, put_float(buf, buf + sizeof buf, spec.alpha));
    text += '\n';
  }
  for (std::size_t j = 0; j < beta.size(); ++j) {
    text += "beta." + std::to_string(j + 1) + ",";
    text.append(buf, put_float(buf, buf + sizeof buf, beta[j]));
    text += '\n';
  }
  const std::vector<float> cut = simulated_cutpoints(spec);
  for (std::size_t k = 0; k < cut.size(); ++k) {
    text += "cutpoints." + std::to_string(k + 1) + ",";
    text.append(buf, put_float(buf, buf + sizeof buf, cut[k]));
    text += '\n';
  }
  const std::string own = simulated_parameter_name(spec.likelihood);
  if (!own.empty()) {
    text += own + ",";
    text.append(buf, put_float(buf, buf + sizeof buf, spec.parameter));
    text += '\n';
  }
  if (spec.likelihood == "student_t") {
    text += "nu,";
    text.append(buf, put_float(buf, buf + sizeof buf, spec.nu));
    text += '\n';
  }
  return text;
}

void write_simulated_csv(const SimulationSpec& spec, int threads, const TextSink& sink) {
  if (spec.rows < 1 || spec.features < 1)
    throw std::invalid_argument("write_simulated_csv: rows and features must be >= 1");
  const std::vector<float> beta = simulated_coefficients(spec.seed, simulated_coefficient_count(spec));
  sink(simulated_csv_header(spec));

  // Binomial rows draw one uniform a trial: count them with the features.
  const std::int64_t trial_cost = spec.likelihood == "binomial_logit" ? spec.trials / 4 : 0;
  const Eigen::Index block_rows =
      rows_per_block(static_cast<int>(std::min<std::int64_t>(spec.features + trial_cost, 1 << 15)));
  const std::int64_t n_blocks = (spec.rows + block_rows - 1) / block_rows;
  const int nt = static_cast<int>(std::clamp<std::int64_t>(threads, 1, n_blocks));
  std::exception_ptr error;
  std::atomic<bool> failed{false};  // set under `turn`; read without it to skip useless work
  std::int64_t next_block = 0;      // the block whose text goes to the sink next; guarded by `turn`
  std::mutex turn;
  std::condition_variable turn_changed;
  // Thread t makes blocks t, t + T, ... and hands each to the sink when all before it have been
  // written, so one thread writes while the others make their next blocks. The handover blocks
  // in the kernel rather than spinning as `omp ordered` does (on a busy 2-core machine the
  // spinning took 70 % more CPU time than the work itself).
#pragma omp parallel num_threads(nt)
  {
    SimulatedBlock block;
    std::string text;
    const int team = omp_get_num_threads();
    for (std::int64_t b = omp_get_thread_num(); b < n_blocks; b += team) {
      std::exception_ptr block_error;
      if (!failed) {
        try {
          const std::int64_t first = b * block_rows;
          simulate_block(spec, beta, first, std::min<std::int64_t>(block_rows, spec.rows - first), block);
          text.clear();
          append_csv_rows(spec, block, text);
        } catch (...) {
          block_error = std::current_exception();
        }
      }
      std::unique_lock<std::mutex> lock(turn);
      turn_changed.wait(lock, [&] { return next_block == b; });
      if (block_error && !failed) {
        error = block_error;
        failed = true;
      }
      if (!failed) {
        try {
          sink(text);
        } catch (...) {
          error = std::current_exception();
          failed = true;
        }
      }
      ++next_block;
      turn_changed.notify_all();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace bvi::data
