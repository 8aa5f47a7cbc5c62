#pragma once
// Options several subcommands share, and the thread count they resolve to.
#include <CLI/CLI.hpp>
#include <string>

namespace bvi::cli {

// --threads N: 0 (unset) means every core this process may run on (OpenMP's default, which
// honours OMP_NUM_THREADS and the CPU affinity mask a batch scheduler sets).
void add_threads_option(CLI::App& cmd, int& threads);
int resolve_threads(int requested);

// --log-level L
void add_log_level_option(CLI::App& cmd, std::string& level);

// For a file or folder argument: "" would reach the file layer and fail there with no name to
// put in the message's WHERE, so it is a command-line error instead.
CLI::Validator non_empty_path();

}  // namespace bvi::cli
