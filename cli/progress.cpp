#include "cli/progress.hpp"

#include <cmath>
#include <cstdio>

#include "cli/logging.hpp"

namespace bvi::cli {

namespace {

std::string format_duration(double seconds) {
  char buf[32];
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.0fs", seconds);
  } else if (seconds < 3600) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(seconds) / 60,
                  static_cast<int>(seconds) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(seconds) / 3600,
                  static_cast<int>(seconds) % 3600 / 60);
  }
  return buf;
}

}  // namespace

ProgressReporter::ProgressReporter(bool enabled, bool terminal)
    : enabled_(enabled), terminal_(terminal), start_(Clock::now()), last_draw_(start_), last_log_(start_) {}

ProgressReporter::~ProgressReporter() {
  finish();
}

void ProgressReporter::draw_line(long t, long max_t) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(t) / elapsed : 0.0;
  const double left = rate > 0 ? static_cast<double>(max_t - t) / rate : NAN;
  char buf[200];
  if (have_elbo_)
    std::snprintf(buf, sizeof buf,
                  "iteration %ld/%ld  ELBO %.6g  rel. change %.2e  %.0f it/s  at most %s left", t, max_t,
                  elbo_, rel_, rate, format_duration(left).c_str());
  else
    std::snprintf(buf, sizeof buf, "iteration %ld/%ld  %.0f it/s  at most %s left", t, max_t, rate,
                  format_duration(left).c_str());
  std::string line(buf);
  const size_t width = line.size();
  if (width < last_width_) line.append(last_width_ - width, ' ');  // erase the longer previous line
  last_width_ = width;
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
  line_open_ = true;
}

void ProgressReporter::on_iteration(long t, long max_t) {
  if (!enabled_ || !terminal_) return;
  const auto now = Clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200) && t != max_t) return;
  last_draw_ = now;
  draw_line(t, max_t);
}

void ProgressReporter::on_elbo(const vi::TraceRow& row, long max_t) {
  elbo_ = row.elbo;
  rel_ = row.rel_change;
  have_elbo_ = true;
  if (!enabled_ || terminal_) return;
  const auto now = Clock::now();
  if (now - last_log_ < std::chrono::seconds(5)) return;
  last_log_ = now;
  char buf[160];
  std::snprintf(buf, sizeof buf, "iteration %ld/%ld: ELBO %.6g, relative change %.2e", row.iteration, max_t,
                row.elbo, row.rel_change);
  cli_logger().info(buf);
}

void ProgressReporter::on_adaptation(double eta, double elbo) {
  if (!enabled_) return;
  finish();
  char buf[120];
  std::snprintf(buf, sizeof buf, "eta adaptation: eta = %g gives ELBO %.6g", eta, elbo);
  cli_logger().info(buf);
}

void ProgressReporter::finish() {
  if (line_open_) {
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    line_open_ = false;
    last_width_ = 0;
  }
}

}  // namespace bvi::cli
