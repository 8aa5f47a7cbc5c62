#include "inference/checkpoint.hpp"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace bvi::vi {

namespace {

using Json = nlohmann::json;
constexpr const char* kFormat = "bayes-vi checkpoint";
constexpr int kVersion = 1;

std::string hex(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

double unhex(const Json& j) {
  const std::string s = j.get<std::string>();
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') throw std::invalid_argument("not a number: " + s);
  return x;
}

template <class Range>
Json hex_array(const Range& values) {
  Json a = Json::array();
  for (double v : values) a.push_back(hex(v));
  return a;
}

std::vector<double> unhex_array(const Json& a) {
  std::vector<double> out;
  for (const auto& v : a) out.push_back(unhex(v));
  return out;
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
  Json trace = Json::array();
  for (const auto& r : s.trace)
    trace.push_back(Json::array({r.iteration, hex(r.seconds), hex(r.elbo), hex(r.rel_change)}));
  j["trace"] = std::move(trace);
  j["redrawn"] = s.redrawn;
  j["eta"] = s.eta ? Json(hex(*s.eta)) : Json(nullptr);
  return j.dump() + "\n";
}

AdviState parse_checkpoint(const std::string& text, const std::string& fingerprint, const std::string& where) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception&) {
    throw config_error(where, "not a bayes-vi checkpoint (invalid JSON)");
  }
  if (!j.is_object() || j.value("format", "") != kFormat) throw config_error(where, "not a bayes-vi checkpoint");
  if (j.value("version", 0) != kVersion)
    throw config_error(where, "a checkpoint of another version of bayes-vi (format " +
                                  std::to_string(j.value("version", 0)) + ", expected " + std::to_string(kVersion) +
                                  ")");
  if (j.value("fingerprint", "") != fingerprint)
    throw config_error(where, "written for another config, seed or dataset; resume with the config and data of the "
                              "run that wrote it");
  try {
    AdviState s;
    s.iteration = j.at("iteration").get<long>();
    s.seconds = unhex(j.at("seconds"));
    const std::vector<double> p = unhex_array(j.at("params"));
    s.params = Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size()));
    s.optimizer_state = unhex_array(j.at("optimizer_state"));
    s.stopping_state = unhex_array(j.at("stopping_state"));
    for (const auto& r : j.at("trace"))
      s.trace.push_back({r.at(0).get<long>(), unhex(r.at(1)), unhex(r.at(2)), unhex(r.at(3))});
    s.redrawn = j.at("redrawn").get<long>();
    if (!j.at("eta").is_null()) s.eta = unhex(j.at("eta"));
    return s;
  } catch (const std::exception& e) {
    throw config_error(where, std::string("damaged checkpoint: ") + e.what());
  }
}

}  // namespace bvi::vi
