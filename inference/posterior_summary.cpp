#include "inference/posterior_summary.hpp"

namespace bvi::vi {

namespace {
constexpr double kZ95 = 1.6448536269514722;  // Phi^-1(0.95)
}

std::vector<ParameterSummary> summarize_parameters(const Family& q, const std::vector<std::string>& names,
                                                   const std::vector<std::string>& labels) {
  const Eigen::VectorXd mu = q.mean();
  const Eigen::VectorXd sd = q.marginal_sd();
  std::vector<ParameterSummary> out;
  for (Index j = 0; j < q.dim(); ++j)
    out.push_back({names[j], labels[j], mu[j], sd[j], mu[j] - kZ95 * sd[j], mu[j], mu[j] + kZ95 * sd[j]});
  return out;
}

}  // namespace bvi::vi
