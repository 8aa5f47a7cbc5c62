#pragma once
// Stan's ADVI convergence test: every eval_elbo iterations the relative ELBO change
// |(elbo_prev - elbo) / elbo| enters a circular buffer of max(0.1 max_iterations / eval_elbo, 2)
// entries; the run has converged when the buffer's mean or median falls below tol_rel_obj.
#include <optional>
#include <string>
#include <vector>

namespace bvi::vi {

class StoppingRule {
 public:
  StoppingRule(std::optional<double> tol_rel_obj, long max_iterations, long eval_elbo);

  // Records the ELBO estimate of an evaluation; returns its relative change (inf for the first).
  double record(double elbo);
  bool converged() const { return !reason_.empty(); }
  // "mean" or "median": which statistic of the buffer fell below the tolerance ("" if neither).
  const std::string& reason() const { return reason_; }
  double mean_change() const;
  double median_change() const;

  // For checkpoints: the previous ELBO and the buffer, oldest first.
  std::vector<double> state() const;
  void set_state(const std::vector<double>& state);

 private:
  std::optional<double> tol_;
  size_t capacity_;
  std::vector<double> buffer_;  // oldest first
  std::optional<double> prev_;
  std::string reason_;
};

}  // namespace bvi::vi
