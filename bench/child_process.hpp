#pragma once
// Runs a program as a child process and reports what a benchmark needs of it: exit status, wall
// time, peak resident memory (wait4's ru_maxrss, the child's own high-water mark) and, when
// asked, its stdout. No shell is involved, so paths need no quoting.
#include <string>
#include <vector>

namespace bvi::bench {

struct ChildResult {
  int exit_code = -1;   // the exit status, or 128 + signal when killed by one
  double seconds = 0;   // wall time from fork to reaped
  long max_rss_kb = 0;  // peak resident set of the child, in KiB
  std::string out;      // stdout, when captured
};

// argv[0] is the program's path. stdout is captured when `capture_stdout`, else discarded;
// stderr is inherited so that a failing child says why.
ChildResult run_child(const std::vector<std::string>& argv, bool capture_stdout);

}  // namespace bvi::bench
