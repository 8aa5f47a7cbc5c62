// Memory limits read from the kernel's files, on fake /proc and /sys trees laid out as cgroup v1,
// v2, hybrid and container systems lay them out.
#include <doctest/doctest.h>

#include <filesystem>

#include "common/memory_limits.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_memory_limits {

namespace fs = std::filesystem;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A root with /proc/self/{cgroup,mountinfo} and the given cgroup files.
struct FakeRoot {
  bvi::test::TempDir dir;
  std::string root() const { return dir.path().string(); }
  void file(const std::string& path, const std::string& text) const {
    fs::create_directories((dir.path() / path).parent_path());
    dir.write(path, text);
  }
};

const char* kV1Mountinfo =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";
const char* kV2Mountinfo = "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";

}  // namespace

TEST_CASE("cgroup v1: the memory controller's limit of the process's group") {
  FakeRoot r;
  r.file("proc/self/mountinfo", kV1Mountinfo);
  r.file("proc/self/cgroup", "8:pids:/\n4:memory:/slurm/uid_0/job_7\n1:cpu:/\n0::/\n");
  r.file("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");  // unlimited
  r.file("sys/fs/cgroup/memory/slurm/memory.limit_in_bytes", "9223372036854771712\n");
  r.file("sys/fs/cgroup/memory/slurm/uid_0/memory.limit_in_bytes", "9223372036854771712\n");
  r.file("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes", "536870912\n");
  const auto limit = bvi::cgroup_memory_limit(r.root());
  REQUIRE(limit);
  CHECK(limit->bytes == 512 * kMiB);
  CHECK(limit->source.find("/sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes") !=
        std::string::npos);
  CHECK(limit->source.find(r.root()) == std::string::npos);  // the path as the user knows it
}

TEST_CASE("an ancestor's smaller limit binds") {
  FakeRoot r;
  r.file("proc/self/mountinfo", kV1Mountinfo);
  r.file("proc/self/cgroup", "4:memory:/a/b\n");
  r.file("sys/fs/cgroup/memory/a/memory.limit_in_bytes", "268435456\n");
  r.file("sys/fs/cgroup/memory/a/b/memory.limit_in_bytes", "1073741824\n");
  const auto limit = bvi::cgroup_memory_limit(r.root());
  REQUIRE(limit);
  CHECK(limit->bytes == 256 * kMiB);
}

TEST_CASE("cgroup v2: memory.max, where \"max\" is no limit") {
  FakeRoot r;
  r.file("proc/self/mountinfo", kV2Mountinfo);
  r.file("proc/self/cgroup", "0::/user.slice/job.scope\n");
  r.file("sys/fs/cgroup/user.slice/job.scope/memory.max", "max\n");
  r.file("sys/fs/cgroup/user.slice/memory.max", "2147483648\n");
  auto limit = bvi::cgroup_memory_limit(r.root());
  REQUIRE(limit);
  CHECK(limit->bytes == 2048 * kMiB);
  r.file("sys/fs/cgroup/user.slice/memory.max", "max\n");
  CHECK_FALSE(bvi::cgroup_memory_limit(r.root()));
}

TEST_CASE("inside a container the mount is the container's own group") {
  FakeRoot r;
  // Docker without a cgroup namespace: /proc/self/cgroup names the host's path, and the mount's
  // root field says which part of the hierarchy is mounted.
  r.file("proc/self/mountinfo",
         "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n");
  r.file("proc/self/cgroup", "4:memory:/docker/abc\n");
  r.file("sys/fs/cgroup/memory/memory.limit_in_bytes", "104857600\n");
  const auto limit = bvi::cgroup_memory_limit(r.root());
  REQUIRE(limit);
  CHECK(limit->bytes == 100 * kMiB);
}

TEST_CASE("a process path that is not under the mount falls back to the mount point") {
  FakeRoot r;
  // As on this kind of VM: /proc/self/cgroup names a group the mount does not show.
  r.file("proc/self/mountinfo", kV1Mountinfo);
  r.file("proc/self/cgroup", "4:memory:/process_api/d4d0\n");
  r.file("sys/fs/cgroup/memory/memory.limit_in_bytes", "3221225472\n");
  const auto limit = bvi::cgroup_memory_limit(r.root());
  REQUIRE(limit);
  CHECK(limit->bytes == 3072 * kMiB);
}

TEST_CASE("on a hybrid system the smaller of v1 and v2 binds; without the files there is no limit") {
  FakeRoot r;
  CHECK_FALSE(bvi::cgroup_memory_limit(r.root()));
  r.file("proc/self/mountinfo", std::string(kV1Mountinfo) +
                                    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
  r.file("proc/self/cgroup", "4:memory:/g\n0::/g\n");
  r.file("sys/fs/cgroup/memory/g/memory.limit_in_bytes", "2147483648\n");
  r.file("sys/fs/cgroup/unified/g/memory.max", "1073741824\n");
  const auto limit = bvi::cgroup_memory_limit(r.root());
  REQUIRE(limit);
  CHECK(limit->bytes == 1024 * kMiB);
  CHECK(limit->source.find("memory.max") != std::string::npos);
}

TEST_CASE("MemAvailable and this process's resident and mapped sizes") {
  FakeRoot r;
  CHECK_FALSE(bvi::available_memory(r.root()));
  r.file("proc/meminfo",
         "MemTotal:       24683664 kB\nMemFree:        22693612 kB\nMemAvailable:   1000 kB\n");
  const auto available = bvi::available_memory(r.root());
  REQUIRE(available);
  CHECK(available->bytes == 1000 * 1024.0);
  r.file("proc/self/status",
         "Name:\tbayes-vi\nVmPeak:\t   13016 kB\nVmSize:\t   13000 kB\nVmHWM:\t    8000 kB\nVmRSS:\t    7376 "
         "kB\n");
  const bvi::ProcessMemory m = bvi::process_memory(r.root());
  CHECK(m.resident == 7376 * 1024.0);
  CHECK(m.mapped == 13000 * 1024.0);
  CHECK(m.peak_resident == 8000 * 1024.0);
  // This process, for real: something is resident, and no more than is mapped.
  const bvi::ProcessMemory self = bvi::process_memory();
  CHECK(self.resident > 0);
  CHECK(self.mapped >= self.resident);
  CHECK(self.peak_resident >= self.resident);
}

}  // namespace test_memory_limits
