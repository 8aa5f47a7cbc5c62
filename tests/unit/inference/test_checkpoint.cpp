// The checkpoint file: bits survive the round trip; damage of any kind is a config error (78) at
// the file, never another exception (which main would report as an internal error), and never a
// state that fits the file but not the run.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "inference/checkpoint.hpp"
#include "support/expect_error.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_checkpoint {

using bvi::ExitCode;
using bvi::test::expect_error;
using bvi::vi::AdviState;
using bvi::vi::check_resumable;
using bvi::vi::checkpoint_text;
using bvi::vi::parse_checkpoint;

namespace {

const std::string kFingerprint = "00112233aabbccdd";
const std::string kWhere = "run.ckpt";

// A meanfield state over P = 2 parameters after 20 natural-gradient steps.
AdviState state() {
  AdviState s;
  s.iteration = 20;
  s.seconds = 0.125;
  // Filled in place: GCC 12 at -O3 with AVX-512 warns (-Warray-bounds, a false positive) when a
  // fixed-size Vector4d is copied into the dynamic vector by one 8-wide load.
  s.params.resize(4);
  s.params << 0.1, -0.2, std::log(0.3), 1.0 / 3.0;
  s.optimizer_state = {2.0, 3.0};  // the averaged diagonal curvature (P)
  s.stopping_state = {1.0, -12.5, std::numeric_limits<double>::infinity(), 0.01};
  s.trace = {{10, 0.05, -13.0, std::numeric_limits<double>::infinity()}, {20, 0.1, -12.5, 0.04}};
  s.redrawn = 3;
  return s;
}

bvi::spec::InferenceConfig natural_meanfield() {
  bvi::spec::InferenceConfig c;
  c.method = "monte_carlo";
  c.algorithm = "meanfield";
  c.optimizer.name = "natural";
  c.max_iterations = 200;
  c.eval_elbo = 10;
  return c;
}

// The text with one edit to its JSON and, unless `keep_checksum`, a checksum that matches the
// edit: damage the checksum cannot see, as a hand edit or a bug would leave.
template <class Edit>
std::string edited(Edit&& edit, bool keep_checksum = false) {
  nlohmann::json j = nlohmann::json::parse(checkpoint_text(state(), kFingerprint));
  const std::string old_sum = j.at("checksum");
  j.erase("checksum");
  edit(j);
  j["checksum"] = keep_checksum ? old_sum : bvi::vi::fingerprint_of(j.dump());
  return j.dump() + "\n";
}

void damaged(const std::string& text, const std::string& fragment) {
  expect_error([&] { parse_checkpoint(text, kFingerprint, kWhere); }, ExitCode::config, kWhere, fragment);
}

void unresumable(const AdviState& s, const bvi::spec::InferenceConfig& c, long dim,
                 const std::string& fragment) {
  expect_error([&] { check_resumable(s, c, dim, kWhere); }, ExitCode::config, kWhere, fragment);
}

}  // namespace

TEST_CASE("a checkpoint restores the state bit for bit") {
  const AdviState a = state();
  const AdviState b = parse_checkpoint(checkpoint_text(a, kFingerprint), kFingerprint, kWhere);
  CHECK(b.iteration == a.iteration);
  CHECK(b.seconds == a.seconds);
  CHECK(b.params == a.params);
  CHECK(b.optimizer_state == a.optimizer_state);
  CHECK(b.stopping_state == a.stopping_state);
  REQUIRE(b.trace.size() == 2);
  CHECK(std::isinf(b.trace[0].rel_change));
  CHECK(b.trace[1].elbo == a.trace[1].elbo);
  CHECK(b.redrawn == 3);
  CHECK_FALSE(b.eta.has_value());
  check_resumable(b, natural_meanfield(), 2, kWhere);
}

TEST_CASE("text that is no checkpoint, or of another run, is refused at the file") {
  damaged("", "invalid JSON");
  damaged("{\"format\": \"bayes-vi checkpoint\", \"version\"", "invalid JSON");
  damaged("[1, 2]", "not a bayes-vi checkpoint");
  damaged("{}", "not a bayes-vi checkpoint");
  // Keys of the wrong type: nlohmann's value() throws type_error for these.
  damaged("{\"format\": 1}", "not a bayes-vi checkpoint");
  // What fuzz_checkpoint found against the parser before format 2 (after 4.0M inputs): "format"
  // an array made nlohmann's value() throw type_error 302, which main reported as an internal error.
  damaged("{\"eta\":null,\"fingerprint\":\"0123456788abcdef\",\"format\":[\"-0x1.4bd5d14\"],"
          "\"trace\":[[5,\"0x1c32c7f69ep-4\"]],\"version\":1}",
          "not a bayes-vi checkpoint");
  damaged(edited([](auto& j) { j["version"] = "2"; }), "version");
  damaged(edited([](auto& j) { j["version"] = 1; }), "another version");
  damaged(edited([](auto& j) { j["fingerprint"] = 17; }), "another config");
  expect_error([] { parse_checkpoint(checkpoint_text(state(), kFingerprint), "ffffffffffffffff", kWhere); },
               ExitCode::config, kWhere, "another config");
}

TEST_CASE("a truncated checkpoint is refused") {
  const std::string text = checkpoint_text(state(), kFingerprint);
  for (std::size_t n : {std::size_t(0), std::size_t(1), text.size() / 3, text.size() / 2, text.size() - 3})
    damaged(text.substr(0, n), "");
}

TEST_CASE("changed numbers are found by the checksum") {
  const std::string text = checkpoint_text(state(), kFingerprint);
  // 0x1.999999999999ap-4 (0.1) with one hex digit changed still parses as a number.
  const std::size_t at = text.find("0x1.999999999999ap-4");
  REQUIRE(at != std::string::npos);
  std::string flipped = text;
  flipped[at + 5] = '8';
  damaged(flipped, "checksum");
  damaged(edited([](auto& j) { j["redrawn"] = 4; }, true), "checksum");
  nlohmann::json none = nlohmann::json::parse(text);
  none.erase("checksum");
  damaged(none.dump(), "checksum");
}

TEST_CASE("fields of the wrong type or shape are a damaged checkpoint, not an internal error") {
  damaged(edited([](auto& j) { j["iteration"] = "twenty"; }), "damaged");
  damaged(edited([](auto& j) { j["params"] = 5; }), "damaged");
  damaged(edited([](auto& j) { j["params"][0] = 0.5; }), "damaged");
  damaged(edited([](auto& j) { j["params"][0] = "0x1p+0 and more"; }), "damaged");
  damaged(edited([](auto& j) { j["trace"][0] = nlohmann::json::array({10}); }), "damaged");
  damaged(edited([](auto& j) { j["trace"] = nlohmann::json::object(); }), "damaged");
  damaged(edited([](auto& j) { j.erase("optimizer_state"); }), "damaged");
  damaged(edited([](auto& j) { j["eta"] = true; }), "damaged");
  damaged(edited([](auto& j) { j["redrawn"] = 1e300; }), "damaged");
}

TEST_CASE("a state that does not fit the run is refused before the run uses it") {
  const auto c = natural_meanfield();
  AdviState s = state();
  unresumable(s, c, 3, "parameters");  // 4 numbers are meanfield over 2, not 3
  auto full = c;
  full.algorithm = "fullrank";
  unresumable(s, full, 2, "parameters");  // fullrank over 2 has 2 + 3
  // Another family's approximation (an older binary's automatic choice) is named, not called damaged.
  unresumable(s, full, 2,
              "the checkpoint holds a meanfield approximation (4 numbers over 2 model parameters); "
              "this run is fullrank: set /inference/algorithm to \"meanfield\" to resume it");
  s.optimizer_state = {1.0, 2.0, 3.0};
  unresumable(s, c, 2, "optimizer");
  s = state();
  unresumable(s, full, 2, "parameters");
  s.params = Eigen::VectorXd::Zero(5);
  unresumable(s, full, 2, "optimizer");  // natural fullrank keeps nothing
  s.optimizer_state.clear();
  check_resumable(s, full, 2, kWhere);
  auto adam = c;
  adam.optimizer.name = "adam";
  s = state();
  unresumable(s, adam, 2, "optimizer");  // adam keeps 2 x 4 moments, or none before its first step
  s.optimizer_state.assign(8, 0.5);
  check_resumable(s, adam, 2, kWhere);
  s = state();
  s.iteration = 201;
  unresumable(s, c, 2, "iteration");
  s.iteration = -1;
  unresumable(s, c, 2, "iteration");
  s = state();
  s.params[1] = std::numeric_limits<double>::quiet_NaN();
  unresumable(s, c, 2, "finite");
  s = state();
  s.stopping_state = {1.0};
  unresumable(s, c, 2, "stopping");
  s = state();
  s.trace[1].iteration = 30;  // after the checkpoint's own iteration
  unresumable(s, c, 2, "trace");
  s = state();
  s.redrawn = -1;
  unresumable(s, c, 2, "redrawn");
  s = state();
  s.eta = 0.1;  // eta belongs to the adaptive optimizer
  unresumable(s, c, 2, "eta");
  auto adaptive = c;
  adaptive.optimizer.name = "adaptive";
  s = state();
  s.optimizer_state.clear();
  unresumable(s, adaptive, 2, "eta");  // adaptive without its eta
  s.eta = 0.1;
  check_resumable(s, adaptive, 2, kWhere);
}

// The exact method's state as run_exact saves it: [passes, max_step, |direction|, direction,
// |scale_ref|, scale_ref, Anderson's n, k, its history].
TEST_CASE("an exact-method state is checked against the sizes run_exact reads") {
  bvi::spec::InferenceConfig c;
  c.method = "exact";
  c.algorithm = "meanfield";
  c.max_iterations = 200;
  AdviState s = state();
  s.stopping_state.clear();
  s.redrawn = 0;
  // Meanfield over P = 2: no direction, the scales (2), Anderson over 2P = 4 coordinates with one step.
  std::vector<double> anderson = {4, 1};
  anderson.resize(2 + 4 * (2 + 2 * 1), 0.25);
  s.optimizer_state = {12, 1.0, 0, 2, 0.3, 0.4};
  s.optimizer_state.insert(s.optimizer_state.end(), anderson.begin(), anderson.end());
  check_resumable(s, c, 2, kWhere);
  const AdviState good = s;
  s.optimizer_state.pop_back();
  unresumable(s, c, 2, "optimizer");
  s = good;
  s.optimizer_state[5 + 2] = 6;  // Anderson keeps at most 5 steps
  unresumable(s, c, 2, "optimizer");
  s = good;
  s.optimizer_state[3] = 3;  // 3 scales for 2 parameters
  unresumable(s, c, 2, "optimizer");
  s = good;
  s.optimizer_state[2] = 1e300;  // a direction's length as no count
  unresumable(s, c, 2, "optimizer");
  s = good;
  s.optimizer_state[1] = 2.0;  // the step length is at most 1
  unresumable(s, c, 2, "optimizer");
  s = good;
  s.stopping_state = {1.0, -12.5};
  unresumable(s, c, 2, "stopping");
  s = good;
  s.optimizer_state.clear();  // before the first step
  check_resumable(s, c, 2, kWhere);
  // Fullrank over P = 2: q is 2 + 3 numbers; the last direction (P + P^2 = 6), L0 (P^2 = 4) and
  // Anderson over the whitened mean and precision triangle (2 + 3 = 5 coordinates).
  auto full = c;
  full.algorithm = "fullrank";
  s = good;
  s.params = Eigen::VectorXd::Zero(5);
  s.optimizer_state = {3, 0.5, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0};
  check_resumable(s, full, 2, kWhere);
  s.optimizer_state = {3, 0.5, 0, 4, 1, 0, 0, 1, 5, 1};
  s.optimizer_state.resize(10 + 5 * 4, 0.25);
  check_resumable(s, full, 2, kWhere);
  s.optimizer_state = {3, 0.5, 0, 2, 0.3, 0.4, 4, 1};  // meanfield's scales and Anderson width
  s.optimizer_state.resize(8 + 4 * 4, 0.25);
  unresumable(s, full, 2, "optimizer");
  // Structured over P = 2: q is 3P numbers (mean, log sds, ties), Anderson over 3P coordinates.
  auto tied = c;
  tied.algorithm = "structured";
  s = good;
  unresumable(s, tied, 2, "parameters");
  s.params = Eigen::VectorXd::Zero(6);
  unresumable(s, tied, 2, "optimizer");  // meanfield's Anderson width (2P)
  s.optimizer_state = {12, 1.0, 0, 2, 0.3, 0.4, 6, 1};
  s.optimizer_state.resize(8 + 6 * 4, 0.25);
  check_resumable(s, tied, 2, kWhere);
}

}  // namespace test_checkpoint
