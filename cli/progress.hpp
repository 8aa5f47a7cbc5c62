#pragma once
// Progress of a fit on stderr: on a terminal a live line (iteration, ELBO, relative change,
// iterations per second, time left), redrawn a few times a second; otherwise a log line at most
// every few seconds; nothing with --quiet.
#include <chrono>
#include <string>

#include "inference/advi.hpp"

namespace bvi::cli {

class ProgressReporter : public vi::RunObserver {
 public:
  ProgressReporter(bool enabled, bool terminal);
  ~ProgressReporter() override;

  void on_iteration(long iteration, long max_iterations) override;
  void on_elbo(const vi::TraceRow& row, long max_iterations) override;
  void on_adaptation(double eta, double elbo) override;
  // Ends the live line so later messages start on a fresh one.
  void finish();

 protected:
  using Clock = std::chrono::steady_clock;
  void draw_line(long iteration, long max_iterations);

  bool enabled_, terminal_;
  Clock::time_point start_, last_draw_, last_log_;
  double elbo_ = 0, rel_ = 0;
  bool have_elbo_ = false, line_open_ = false;
  size_t last_width_ = 0;
};

}  // namespace bvi::cli
