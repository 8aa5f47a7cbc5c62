#include "cli/memory_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "common/memory_limits.hpp"

namespace bvi::cli {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// 52 bits of an FNV-1a hash: exact as a double, so it travels through allgatherv unchanged.
double key_of(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return static_cast<double>(h & ((std::uint64_t(1) << 52) - 1));
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// What every rank tells the others.
struct RankMemory {
  double host, cgroup, estimate, resident;
};

std::vector<RankMemory> exchange(const RankMemory& mine, reduce::Communicator& comm) {
  std::vector<RankMemory> all(static_cast<std::size_t>(comm.size()));
  const double send[4] = {mine.host, mine.cgroup, mine.estimate, mine.resident};
  std::vector<double> recv(4 * all.size());
  comm.allgatherv(send, std::vector<long>(all.size(), 4), recv.data());
  for (std::size_t r = 0; r < all.size(); ++r)
    all[r] = {recv[4 * r], recv[4 * r + 1], recv[4 * r + 2], recv[4 * r + 3]};
  return all;
}

std::string others(int n, const char* where) {
  return n == 0 ? std::string()
                : ", shared with " + std::to_string(n) + " other rank" + (n > 1 ? "s" : "") + where;
}

}  // namespace

std::string format_bytes(double bytes) {
  char buf[32];
  if (bytes >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  return buf;
}

bool memory_check_skipped(bool flag) {
  const char* env = std::getenv("BAYES_VI_SKIP_MEMORY_CHECK");
  return flag || (env && *env && std::string(env) != "0");
}

std::optional<double> memory_limit_from_env() {
  const char* env = std::getenv("BAYES_VI_MEMORY_LIMIT");
  if (!env || !*env) return std::nullopt;
  const std::string text = env;
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  std::string unit(end);
  unit.erase(0, unit.find_first_not_of(' '));
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1.0},   {"B", 1.0},          {"kB", 1e3},         {"KB", 1e3},         {"MB", 1e6},
      {"GB", 1e9}, {"TB", 1e12},        {"KiB", 1024.0},     {"MiB", kMiB},       {"GiB", kMiB * 1024},
      {"TiB", kMiB * kMiB}};
  if (end != text.c_str() && std::isfinite(number) && number > 0)
    for (const auto& [name, scale] : kUnits)
      if (unit == name) return number * scale;
  throw usage_error("BAYES_VI_MEMORY_LIMIT must be a positive size such as 8000000000, 8GB or 7.5GiB, got '" +
                    text + "'");
}

MemoryVerdict judge_memory(const vi::RunSizes& sizes, reduce::Communicator& comm) {
  const std::optional<double> asked = memory_limit_from_env();
  MemoryVerdict v;
  v.estimate = vi::estimate_memory(sizes);
  const ProcessMemory now = process_memory();
  const std::optional<MemoryLimit> cgroup = cgroup_memory_limit();
  const std::string host = host_name();
  const RankMemory mine{key_of(host), key_of(host + "|" + (cgroup ? cgroup->id : "")), v.estimate.peak,
                        now.resident};
  const std::vector<RankMemory> all = exchange(mine, comm);
  double cgroup_others = 0, host_others = 0;
  int n_cgroup = 0, n_host = 0;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) continue;
    const RankMemory& o = all[static_cast<std::size_t>(r)];
    if (o.host != mine.host) continue;
    ++n_host;
    host_others += std::max(0.0, o.estimate - o.resident);
    if (o.cgroup == mine.cgroup) {
      ++n_cgroup;
      cgroup_others += o.estimate;
    }
  }
  auto consider = [&v](double budget, const std::string& limit) {
    if (budget < v.budget) {
      v.budget = budget;
      v.limit = limit;
    }
  };
  if (const auto as = address_space_limit()) {
    // It counts every mapping: what is mapped now but not resident (libraries, reservations),
    // each thread's 4 MiB tape block in full, and the stacks of the threads still to start.
    const double reserved = std::max(0.0, now.mapped - now.resident) + sizes.threads * 4 * kMiB +
                            (sizes.threads - 1) * thread_stack_bytes();
    consider(as->bytes - reserved, as->source + " of " + format_bytes(as->bytes) + ", less " +
                                       format_bytes(reserved) + " of address space mapped but not resident");
  }
  if (cgroup)
    consider(cgroup->bytes - cgroup_others,
             cgroup->source + " of " + format_bytes(cgroup->bytes) + others(n_cgroup, " in the same cgroup"));
  if (asked) consider(*asked, "BAYES_VI_MEMORY_LIMIT of " + format_bytes(*asked));
  if (const auto available = available_memory())
    consider(
        available->bytes + now.resident - host_others,
        available->source + " of " + format_bytes(available->bytes) + others(n_host, " on this machine"));
  return v;
}

std::string over_budget_message(const MemoryVerdict& v, const vi::RunSizes& sizes, int rank) {
  const vi::MemoryTerm& big = v.estimate.largest();
  std::string remedies;
  auto add = [&remedies](const std::string& r) { remedies += (remedies.empty() ? "" : ", ") + r; };
  if (sizes.algorithm == "fullrank") add("\"algorithm\": \"meanfield\"");
  if (sizes.dtype_bytes == 8) add("\"data\": {\"dtype\": \"float32\"}");
  add("more MPI ranks (each holds its share of the rows)");
  add("fewer output_draws or final_elbo_draws");
  return std::string(sizes.ranks > 1 ? "rank " + std::to_string(rank) + " of this fit" : "this fit") +
         " needs about " + format_bytes(v.estimate.peak) + " at its peak (estimated; the largest part is " +
         big.what + ", " + format_bytes(big.bytes) + "), more than the " +
         format_bytes(std::max(0.0, v.budget)) + " it may use under " + v.limit + "; try " + remedies +
         ", or run it anyway with --skip-memory-check (or BAYES_VI_SKIP_MEMORY_CHECK=1)";
}

std::string describe_terms(const vi::MemoryEstimate& e) {
  std::string out;
  const std::pair<vi::Phase, const char*> phases[] = {{vi::Phase::always, "always"},
                                                      {vi::Phase::load, "load"},
                                                      {vi::Phase::run, "run"},
                                                      {vi::Phase::iterations, "iterations"},
                                                      {vi::Phase::final, "final"}};
  for (const auto& [phase, name] : phases) {
    std::vector<const vi::MemoryTerm*> terms;
    for (const vi::MemoryTerm& t : e.terms)
      if (t.phase == phase) terms.push_back(&t);
    std::stable_sort(terms.begin(), terms.end(), [](auto* a, auto* b) { return a->bytes > b->bytes; });
    out += std::string(out.empty() ? "" : "; ") + name + " " + format_bytes(e.phase_bytes(phase)) + " (";
    for (std::size_t i = 0; i < terms.size(); ++i)
      out += (i ? ", " : "") + terms[i]->what + " " + format_bytes(terms[i]->bytes);
    out += ")";
  }
  return out;
}

std::string describe(const MemoryVerdict& v) {
  std::string s = "about " + format_bytes(v.estimate.peak) + " at peak";
  if (v.limit.empty()) return s + "; no limit known";
  return s + "; may use " + format_bytes(std::max(0.0, v.budget)) + " under " + v.limit;
}

}  // namespace bvi::cli
