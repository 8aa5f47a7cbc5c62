#include "common/memory_limits.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace bvi {

namespace fs = std::filesystem;

namespace {

std::string read_small_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// mountinfo writes a space in a path as \040 (octal escapes for space, tab, newline, backslash).
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (oct.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::stoi(oct, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// "Key:   123 kB" lines (/proc/self/status, /proc/meminfo): the value of `key` in bytes, or -1.
double kib_field(const std::string& text, const std::string& key) {
  for (const std::string& line : split(text, '\n')) {
    if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
    std::istringstream in(line.substr(key.size() + 1));
    double kib = -1;
    in >> kib;
    return kib >= 0 ? kib * 1024.0 : -1;
  }
  return -1;
}

struct Mount {
  std::string root;   // the part of the hierarchy mounted
  std::string point;  // where
};

// The mount of the cgroup hierarchy holding the memory controller: cgroup2 (v2), or a cgroup
// mount whose options name "memory" (v1).
std::optional<Mount> find_mount(const std::string& mountinfo, bool v2) {
  for (const std::string& line : split(mountinfo, '\n')) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const std::vector<std::string> before = split(line.substr(0, dash), ' ');
    const std::vector<std::string> after = split(line.substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    const std::string& type = after[0];
    if (v2 ? type != "cgroup2" : type != "cgroup") continue;
    if (!v2) {
      bool memory = false;
      for (const std::string& o : split(after[2], ','))
        if (o == "memory") memory = true;
      if (!memory) continue;
    }
    return Mount{unescape(before[3]), unescape(before[4])};
  }
  return std::nullopt;
}

// The process's path in the hierarchy: "0::/path" (v2), "N:a,memory,b:/path" (v1).
std::optional<std::string> cgroup_path(const std::string& proc_cgroup, bool v2) {
  for (const std::string& line : split(proc_cgroup, '\n')) {
    const auto a = line.find(':');
    const auto b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (v2) {
      if (line.compare(0, a, "0") == 0 && controllers.empty()) return line.substr(b + 1);
      continue;
    }
    for (const std::string& c : split(controllers, ','))
      if (c == "memory") return line.substr(b + 1);
  }
  return std::nullopt;
}

// v1 writes "no limit" as the largest page-aligned long; anything near it is no limit.
constexpr double kUnlimited = 4.0e18;

std::optional<MemoryLimit> hierarchy_limit(const std::string& root, bool v2) {
  const auto mount = find_mount(read_small_file(root + "/proc/self/mountinfo"), v2);
  const auto path = cgroup_path(read_small_file(root + "/proc/self/cgroup"), v2);
  if (!mount || !path) return std::nullopt;
  // Inside a container the mount may be the container's own part of the hierarchy: strip its
  // root from the process's path. If the result is not there, the mount point itself is the
  // nearest folder that is.
  std::string rel = *path;
  if (mount->root != "/" && rel.compare(0, mount->root.size(), mount->root) == 0)
    rel = rel.substr(mount->root.size());
  const fs::path top = fs::path(root + mount->point);
  fs::path dir = top / fs::path(rel).relative_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) dir = top;
  const char* file = v2 ? "memory.max" : "memory.limit_in_bytes";
  std::optional<MemoryLimit> best;
  // Every ancestor's limit applies too.
  for (fs::path d = dir;; d = d.parent_path()) {
    const std::string text = read_small_file((d / file).string());
    std::istringstream in(text);
    double bytes = -1;
    if (!text.empty() && text.compare(0, 3, "max") != 0 && (in >> bytes) && bytes >= 0 &&
        bytes < kUnlimited && (!best || bytes < best->bytes)) {
      const std::string shown = (d / file).string().substr(root.size());
      best = MemoryLimit{bytes, "the cgroup limit " + shown, dir.string()};
    }
    if (d == top || !d.has_parent_path() || d.parent_path() == d) break;
  }
  return best;
}

}  // namespace

ProcessMemory process_memory(const std::string& root) {
  const std::string status = read_small_file(root + "/proc/self/status");
  ProcessMemory m;
  m.resident = std::max(0.0, kib_field(status, "VmRSS"));
  m.mapped = std::max(0.0, kib_field(status, "VmSize"));
  m.peak_resident = std::max(0.0, kib_field(status, "VmHWM"));
  return m;
}

std::optional<MemoryLimit> cgroup_memory_limit(const std::string& root) {
  // A hybrid system mounts both; the smaller limit binds.
  std::optional<MemoryLimit> v2 = hierarchy_limit(root, true), v1 = hierarchy_limit(root, false);
  if (v2 && v1) return v2->bytes <= v1->bytes ? v2 : v1;
  return v2 ? v2 : v1;
}

std::optional<MemoryLimit> address_space_limit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return MemoryLimit{static_cast<double>(r.rlim_cur), "RLIMIT_AS (ulimit -v)", ""};
}

double thread_stack_bytes() {
  rlimit r{};
  if (::getrlimit(RLIMIT_STACK, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 8.0 * 1024 * 1024;
  return static_cast<double>(r.rlim_cur);
}

std::optional<MemoryLimit> available_memory(const std::string& root) {
  const double bytes = kib_field(read_small_file(root + "/proc/meminfo"), "MemAvailable");
  if (bytes < 0) return std::nullopt;
  return MemoryLimit{bytes, "MemAvailable (/proc/meminfo)", ""};
}

}  // namespace bvi
