#pragma once
// SIGTERM and SIGINT end a fit cleanly: the handler only records the signal; the run loop polls
// it between iterations, writes a checkpoint and stops (a batch scheduler's time limit sends
// SIGTERM some time before SIGKILL).
namespace bvi::cli {

void install_stop_signals();
// The signal received (SIGTERM or SIGINT), or 0.
int stop_signal();

}  // namespace bvi::cli
