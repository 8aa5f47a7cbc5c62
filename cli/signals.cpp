#include "cli/signals.hpp"

#include <csignal>

namespace bvi::cli {

namespace {
volatile std::sig_atomic_t g_signal = 0;
extern "C" void record_signal(int sig) { g_signal = sig; }
}  // namespace

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking read returns, and the next poll sees the signal
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

int stop_signal() { return g_signal; }

}  // namespace bvi::cli
