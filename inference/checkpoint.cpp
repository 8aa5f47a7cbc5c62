#include "inference/checkpoint.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "inference/exact/exact_vi.hpp"

namespace bvi::vi {

namespace {

using Json = nlohmann::json;
constexpr const char* kFormat = "bayes-vi checkpoint";
// 2: a checksum over the rest of the document.
constexpr int kVersion = 2;

// What is wrong with a field, as the message says it.
struct Damage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string hex(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

double unhex(const Json& j, const char* field) {
  if (!j.is_string()) throw Damage(std::string(field) + " holds something that is not a number");
  const std::string s = j.get<std::string>();
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || *end != '\0')
    throw Damage(std::string(field) + " holds '" + s.substr(0, 40) + "', not a number");
  return x;
}

const Json& field(const Json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) throw Damage(std::string("no '") + name + "'");
  return *it;
}

long integer(const Json& j, const char* name) {
  const Json& v = field(j, name);
  // nlohmann converts a float to an integer with a plain cast, undefined for 1e300.
  if (!v.is_number_integer()) throw Damage(std::string("'") + name + "' is not an integer");
  return v.get<long>();
}

std::vector<double> unhex_array(const Json& j, const char* name) {
  const Json& a = field(j, name);
  if (!a.is_array()) throw Damage(std::string("'") + name + "' is not an array");
  std::vector<double> out;
  out.reserve(a.size());
  for (const auto& v : a) out.push_back(unhex(v, name));
  return out;
}

template <class Range>
Json hex_array(const Range& values) {
  Json a = Json::array();
  for (double v : values) a.push_back(hex(v));
  return a;
}

AdviState read_state(const Json& j) {
  AdviState s;
  s.iteration = integer(j, "iteration");
  s.seconds = unhex(field(j, "seconds"), "seconds");
  const std::vector<double> p = unhex_array(j, "params");
  s.params = Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size()));
  s.optimizer_state = unhex_array(j, "optimizer_state");
  s.stopping_state = unhex_array(j, "stopping_state");
  s.convergence_state = unhex_array(j, "convergence_state");
  const Json& trace = field(j, "trace");
  if (!trace.is_array()) throw Damage("'trace' is not an array");
  for (const auto& r : trace) {
    if (!r.is_array() || r.size() != 4 || !r[0].is_number_integer())
      throw Damage("a row of 'trace' is not [iteration, seconds, elbo, rel_change]");
    s.trace.push_back({r[0].get<long>(), unhex(r[1], "trace"), unhex(r[2], "trace"), unhex(r[3], "trace")});
  }
  s.redrawn = integer(j, "redrawn");
  const Json& eta = field(j, "eta");
  if (!eta.is_null()) s.eta = unhex(eta, "eta");
  return s;
}

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

// The numbers the Monte Carlo method's optimizer keeps for n family parameters (P model
// parameters); 0 before its first step.
bool optimizer_state_fits(const std::string& optimizer, const std::string& algorithm, std::size_t size,
                          Eigen::Index n, Eigen::Index P) {
  const auto u = [](Eigen::Index k) { return static_cast<std::size_t>(k); };
  if (size == 0) return true;
  if (optimizer == "natural")  // meanfield's averaged diagonal curvature; fullrank keeps nothing
    return algorithm == "meanfield" && size == u(P);
  if (optimizer == "adam") return size == 2 * u(n);    // first and second moments
  if (optimizer == "adaptive") return size == u(n);    // the running mean of squared gradients
  return false;                                        // sgd keeps nothing
}

}  // namespace

std::string fingerprint_of(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string checkpoint_text(const AdviState& s, const std::string& fingerprint) {
  Json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["fingerprint"] = fingerprint;
  j["iteration"] = s.iteration;
  j["seconds"] = hex(s.seconds);
  j["params"] = hex_array(std::vector<double>(s.params.data(), s.params.data() + s.params.size()));
  j["optimizer_state"] = hex_array(s.optimizer_state);
  j["stopping_state"] = hex_array(s.stopping_state);
  j["convergence_state"] = hex_array(s.convergence_state);
  Json trace = Json::array();
  for (const auto& r : s.trace)
    trace.push_back(Json::array({r.iteration, hex(r.seconds), hex(r.elbo), hex(r.rel_change)}));
  j["trace"] = std::move(trace);
  j["redrawn"] = s.redrawn;
  j["eta"] = s.eta ? Json(hex(*s.eta)) : Json(nullptr);
  // Over the document as dump() writes it (keys sorted), which parsing and dumping again
  // reproduces byte for byte.
  j["checksum"] = fingerprint_of(j.dump());
  return j.dump() + "\n";
}

AdviState parse_checkpoint(const std::string& text, const std::string& fingerprint,
                           const std::string& where) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception&) {
    throw config_error(where, "not a bayes-vi checkpoint (invalid JSON; truncated?)");
  }
  auto string_at = [&j](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (!j.is_object() || string_at("format") != kFormat)
    throw config_error(where, "not a bayes-vi checkpoint");
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer())
    throw config_error(where, "not a bayes-vi checkpoint (no version number)");
  if (version->get<long long>() != kVersion)
    throw config_error(where, "a checkpoint of another version of bayes-vi (format " +
                                  std::to_string(version->get<long long>()) + ", expected " +
                                  std::to_string(kVersion) + ")");
  const std::string checksum = string_at("checksum");
  j.erase("checksum");
  if (checksum.empty() || checksum != fingerprint_of(j.dump()))
    throw config_error(where, "damaged checkpoint: the checksum does not match the content");
  if (string_at("fingerprint") != fingerprint)
    throw config_error(where,
                       "written for another config, seed or dataset; resume with the config and data of the "
                       "run that wrote it");
  try {
    return read_state(j);
  } catch (const Damage& e) {
    throw config_error(where, std::string("damaged checkpoint: ") + e.what());
  } catch (const Json::exception& e) {
    throw config_error(where, std::string("damaged checkpoint: ") + e.what());
  }
}

void check_resumable(const AdviState& s, const spec::InferenceConfig& inference, Eigen::Index dim,
                     const std::string& where, Eigen::Index pattern_size) {
  auto refuse = [&where](const std::string& what) {
    return config_error(where, "damaged checkpoint: " + what);
  };
  const bool exact = inference.method == "exact";
  const Eigen::Index P = dim;
  // The family's numbers: the mean and L's triangle, the mean, log sds and the structured
  // family's ties, or the mean and log sds.
  auto numbers = [&](const std::string& family) -> Eigen::Index {
    return family == "fullrank"     ? P + P * (P + 1) / 2
           : family == "structured" ? 3 * P
           : family == "sparse"     ? P + pattern_size
                                    : 2 * P;
  };
  const Eigen::Index n = numbers(inference.algorithm);
  if (s.params.size() != n) {
    // A checkpoint of another family (an older binary's automatic choice, or a changed config) is
    // not damaged: say which family it holds and how to resume it.
    for (const char* family : {"meanfield", "fullrank", "structured"})
      if (s.params.size() == numbers(family) && family != inference.algorithm)
        throw config_error(where, std::string("the checkpoint holds a ") + family + " approximation (" +
                                      std::to_string(numbers(family)) + " numbers over " + std::to_string(P) +
                                      " model parameters); this run is " + inference.algorithm +
                                      ": set /inference/algorithm to \"" + family +
                                      "\" to resume it, or remove the checkpoint to start afresh");
    throw refuse("holds " + std::to_string(s.params.size()) + " parameters of the approximation; a " +
                 inference.algorithm + " run over " + std::to_string(P) + " model parameters has " +
                 std::to_string(n));
  }
  if (!s.params.allFinite()) throw refuse("the approximation's parameters are not all finite");
  if (!all_finite(s.optimizer_state)) throw refuse("the optimizer state is not all finite");
  if (exact ? !exact_state_fits(s.optimizer_state, P, inference.algorithm, pattern_size)
            : !optimizer_state_fits(inference.optimizer.name, inference.algorithm, s.optimizer_state.size(), n,
                                    P))
    throw refuse("the optimizer state has " + std::to_string(s.optimizer_state.size()) + " numbers, not what " +
                 (exact ? std::string("the exact method") : "'" + inference.optimizer.name + "'") +
                 " keeps for this run");
  if (s.iteration < 0 || s.iteration > inference.max_iterations)
    throw refuse("iteration " + std::to_string(s.iteration) + " is outside 0 ... max_iterations (" +
                 std::to_string(inference.max_iterations) + ")");
  // The stopping rule: [has previous, previous ELBO, relative changes...]; inf is a change. The
  // exact method has none (it stops on its residual).
  if (exact ? !s.stopping_state.empty() : s.stopping_state.size() < 2)
    throw refuse(exact ? "a stopping rule's state, which the exact method does not keep"
                       : "the stopping rule's state is too short");
  for (double x : s.stopping_state)
    if (std::isnan(x)) throw refuse("the stopping rule's state holds NaN");
  // The natural optimizer's rule (tol_step): [consecutive quiet steps, their largest move], or
  // nothing when the rule is off.
  const bool settling = !exact && inference.optimizer.name == "natural" && inference.tol_step.has_value();
  const auto& c = s.convergence_state;
  if (settling ? !(c.size() == 2 && c[0] >= 0 && c[0] == std::floor(c[0]) && c[0] <= double(s.iteration) &&
                   c[1] >= 0 && std::isfinite(c[1]))
               : !c.empty())
    throw refuse(settling ? "the natural optimizer's convergence state is not [quiet steps, largest move]"
                          : "a convergence state, which only the natural optimizer's tol_step rule keeps");
  long last = 0;
  for (const auto& r : s.trace) {
    if (r.iteration <= last || r.iteration > s.iteration || !std::isfinite(r.elbo) ||
        std::isnan(r.rel_change))
      throw refuse("the ELBO trace is not a list of evaluations up to iteration " +
                   std::to_string(s.iteration));
    last = r.iteration;
  }
  if (s.redrawn < 0) throw refuse("redrawn is negative");
  if (!std::isfinite(s.seconds) || s.seconds < 0) throw refuse("seconds is not a duration");
  const bool adaptive = !exact && inference.optimizer.name == "adaptive";
  if (adaptive != s.eta.has_value())
    throw refuse(adaptive ? "no eta for the adaptive optimizer"
                          : "an eta, which only the adaptive optimizer has");
  if (s.eta && !(std::isfinite(*s.eta) && *s.eta > 0)) throw refuse("eta is not a positive number");
}

}  // namespace bvi::vi
