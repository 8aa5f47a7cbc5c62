#pragma once
// The response rules the likelihoods share, with one message shape: "" when y is allowed, else
// why not (the data reader prefixes FILE:LINE and the column).
#include <cmath>
#include <sstream>
#include <string>

namespace bvi::models {

inline std::string shortest_text(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// y in {0, 1}.
inline std::string check_binary_response(double y, const std::string& likelihood) {
  if (y == 0.0 || y == 1.0) return "";
  return "response must be 0 or 1 for " + likelihood + ", got " + shortest_text(y);
}

// y in {0, 1, 2, ...}.
inline std::string check_count_response(double y, const std::string& likelihood) {
  if (y >= 0.0 && std::floor(y) == y) return "";
  return "response must be a non-negative integer count for " + likelihood + ", got " + shortest_text(y);
}

// y > 0 (lognormal, gamma_log: their densities' support is open at 0).
inline std::string check_positive_response(double y, const std::string& likelihood) {
  if (y > 0.0) return "";
  return "response must be positive (> 0) for " + likelihood + ", got " + shortest_text(y);
}

// 0 < y < 1 (beta_logit: its density's support is the open interval).
inline std::string check_unit_interval_response(double y, const std::string& likelihood) {
  if (y > 0.0 && y < 1.0) return "";
  return "response must be strictly between 0 and 1 for " + likelihood + ", got " + shortest_text(y);
}

}  // namespace bvi::models
