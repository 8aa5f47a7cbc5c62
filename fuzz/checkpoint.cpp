// The checkpoint reader (fit --resume) on arbitrary text. A fuzzer cannot forge the checksum and
// the fingerprint, so each input is also tried with both made to match, which lets it reach the
// fields behind them; whatever parses must then pass or fail check_resumable (with a bvi::Error)
// and survive a write and a second read bit for bit. Each state is checked for a run of each
// family its size fits; a state without a stopping rule's as the exact method's (whose optimizer
// state is a structure of counts and numbers), the others as the Monte Carlo method's.
#include "inference/checkpoint.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_support.hpp"

namespace {

constexpr const char* kFingerprint = "0123456789abcdef";

void same_or_abort(const bvi::vi::AdviState& a, const bvi::vi::AdviState& b) {
  auto bits = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && bvi::fuzz::same_bits(x.data(), y.data(), x.size());
  };
  const std::vector<double> pa(a.params.data(), a.params.data() + a.params.size());
  const std::vector<double> pb(b.params.data(), b.params.data() + b.params.size());
  bool same = a.iteration == b.iteration && a.redrawn == b.redrawn && bits(pa, pb) &&
              bits(a.optimizer_state, b.optimizer_state) && bits(a.stopping_state, b.stopping_state) &&
              bits(a.convergence_state, b.convergence_state) &&
              a.trace.size() == b.trace.size() && a.eta.has_value() == b.eta.has_value() &&
              bvi::fuzz::same_bits(&a.seconds, &b.seconds, 1);
  if (!same) {
    std::fprintf(stderr, "a checkpoint read, written and read again changed\n");
    std::abort();
  }
}

// The parameters of a `family` whose q has n numbers, or 0 when no P gives n.
Eigen::Index dim_of(const std::string& family, Eigen::Index n) {
  if (family == "meanfield") return n % 2 == 0 ? n / 2 : 0;
  if (family == "structured") return n % 3 == 0 ? n / 3 : 0;
  Eigen::Index P = 0;  // fullrank: P + P (P + 1) / 2 = n
  while (P + P * (P + 1) / 2 < n) ++P;
  return P + P * (P + 1) / 2 == n ? P : 0;
}

void try_text(const std::string& text) {
  bvi::vi::AdviState s;
  const bool parsed = bvi::fuzz::only_user_errors([&] {
    s = bvi::vi::parse_checkpoint(text, kFingerprint, "fuzz.ckpt");
    same_or_abort(
        s, bvi::vi::parse_checkpoint(bvi::vi::checkpoint_text(s, kFingerprint), kFingerprint, "again"));
  });
  if (!parsed) return;
  // The runs this state could belong to, of each family whose size fits (else of 2 parameters),
  // by the method whose state it looks like (the exact method keeps no stopping rule's).
  for (const char* family : {"meanfield", "structured", "fullrank"}) {
    bvi::spec::InferenceConfig run;
    run.algorithm = family;
    run.optimizer.name = s.eta ? "adaptive" : "natural";
    run.max_iterations = 1000;
    run.method = s.stopping_state.empty() && !s.eta ? "exact" : "monte_carlo";
    if (run.method == "monte_carlo" && run.algorithm == "structured") continue;
    const Eigen::Index dim = dim_of(family, std::min<Eigen::Index>(s.params.size(), 1 << 20));
    bvi::fuzz::only_user_errors([&] { bvi::vi::check_resumable(s, run, dim > 0 ? dim : 2, "fuzz.ckpt"); });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try_text(text);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return 0;
  j["fingerprint"] = kFingerprint;
  j.erase("checksum");
  j["checksum"] = bvi::vi::fingerprint_of(j.dump());
  try_text(j.dump());
  return 0;
}
