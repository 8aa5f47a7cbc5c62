// The checkpoint reader (fit --resume) on arbitrary text. A fuzzer cannot forge the checksum and
// the fingerprint, so each input is also tried with both made to match, which lets it reach the
// fields behind them; whatever parses must then pass or fail check_resumable (with a bvi::Error)
// and survive a write and a second read bit for bit. A state without a stopping rule's is checked
// as the exact method's (whose optimizer state is a structure of counts and numbers), the others
// as the Monte Carlo method's.
#include "inference/checkpoint.hpp"

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
              a.trace.size() == b.trace.size() && a.eta.has_value() == b.eta.has_value() &&
              bvi::fuzz::same_bits(&a.seconds, &b.seconds, 1);
  if (!same) {
    std::fprintf(stderr, "a checkpoint read, written and read again changed\n");
    std::abort();
  }
}

void try_text(const std::string& text) {
  bvi::fuzz::only_user_errors([&] {
    const bvi::vi::AdviState s = bvi::vi::parse_checkpoint(text, kFingerprint, "fuzz.ckpt");
    same_or_abort(
        s, bvi::vi::parse_checkpoint(bvi::vi::checkpoint_text(s, kFingerprint), kFingerprint, "again"));
    // A run this state could belong to, by either method (they keep different optimizer states).
    bvi::spec::InferenceConfig run;
    run.algorithm = s.params.size() % 2 ? "fullrank" : "meanfield";
    run.optimizer.name = s.eta ? "adaptive" : "natural";
    run.max_iterations = 1000;
    const Eigen::Index dim = run.algorithm == "meanfield" ? s.params.size() / 2 : 2;
    run.method = s.stopping_state.empty() && !s.eta ? "exact" : "monte_carlo";
    bvi::vi::check_resumable(s, run, dim, "fuzz.ckpt");
  });
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
