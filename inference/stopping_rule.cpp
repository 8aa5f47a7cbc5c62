#include "inference/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace bvi::vi {

StoppingRule::StoppingRule(std::optional<double> tol_rel_obj, long max_iterations, long eval_elbo)
    : tol_(tol_rel_obj),
      capacity_(static_cast<size_t>(
          std::max(0.1 * static_cast<double>(max_iterations) / static_cast<double>(eval_elbo), 2.0))) {}

double StoppingRule::record(double elbo) {
  // As in Stan, the first evaluation has no predecessor and counts as an infinite change, so the
  // rule needs the buffer to fill with real changes before the mean can fire.
  double change = std::numeric_limits<double>::infinity();
  if (prev_) change = std::abs((*prev_ - elbo) / elbo);
  if (!std::isfinite(change)) change = std::numeric_limits<double>::infinity();
  if (buffer_.size() == capacity_) buffer_.erase(buffer_.begin());
  buffer_.push_back(change);
  if (tol_ && reason_.empty()) {
    if (mean_change() < *tol_)
      reason_ = "mean";
    else if (median_change() < *tol_)
      reason_ = "median";
  }
  prev_ = elbo;
  return change;
}

double StoppingRule::mean_change() const {
  if (buffer_.empty()) return std::numeric_limits<double>::infinity();
  return std::accumulate(buffer_.begin(), buffer_.end(), 0.0) / static_cast<double>(buffer_.size());
}

double StoppingRule::median_change() const {
  if (buffer_.empty()) return std::numeric_limits<double>::infinity();
  // Stan's circ_buff_median: the upper middle element.
  std::vector<double> v = buffer_;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

std::vector<double> StoppingRule::state() const {
  std::vector<double> s{prev_ ? 1.0 : 0.0, prev_ ? *prev_ : 0.0};
  s.insert(s.end(), buffer_.begin(), buffer_.end());
  return s;
}

void StoppingRule::set_state(const std::vector<double>& s) {
  if (s.size() < 2) throw std::invalid_argument("stopping rule: bad state");
  prev_.reset();
  if (s[0] != 0.0) prev_ = s[1];
  buffer_.assign(s.begin() + 2, s.end());
  reason_.clear();
}

}  // namespace bvi::vi
