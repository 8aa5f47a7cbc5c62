#pragma once
// How much memory this process may use, from the three places Linux limits it: the memory
// controller of its cgroup (what Slurm, systemd and containers set: exceeding it ends the job
// with the OOM killer), the address-space rlimit (ulimit -v: exceeding it fails an allocation),
// and what the machine has available (MemAvailable: beyond it the machine swaps or kills).
// Each is read from the files the kernel exposes; `root` prefixes every path, for tests.
#include <optional>
#include <string>

namespace bvi {

struct MemoryLimit {
  double bytes = 0;
  std::string source;  // where it comes from, for messages: "the cgroup limit /sys/fs/cgroup/.../memory.max"
  std::string id;      // the cgroup's folder (processes in one share its limit); empty for the others
};

// This process now: resident (VmRSS) and mapped (VmSize) bytes, and the peak resident set so far
// (VmHWM), from /proc/self/status; zeros when that cannot be read.
struct ProcessMemory {
  double resident = 0;
  double mapped = 0;
  double peak_resident = 0;
};
ProcessMemory process_memory(const std::string& root = "");

// The smallest memory limit on the path from this process's cgroup up to its hierarchy's root:
// cgroup v2's memory.max and v1's memory.limit_in_bytes (the memory controller), found through
// /proc/self/cgroup and /proc/self/mountinfo. None when no limit is set ("max", or v1's
// "unlimited" 2^63 - 4096) or the files are not there.
std::optional<MemoryLimit> cgroup_memory_limit(const std::string& root = "");

// RLIMIT_AS (ulimit -v), the soft limit; none when unlimited.
std::optional<MemoryLimit> address_space_limit();

// RLIMIT_STACK, the size a new thread's stack reserves (glibc's default when unlimited: 8 MiB).
double thread_stack_bytes();

// MemAvailable of /proc/meminfo: what can be allocated without swapping.
std::optional<MemoryLimit> available_memory(const std::string& root = "");

}  // namespace bvi
