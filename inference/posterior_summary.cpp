#include "inference/posterior_summary.hpp"

#include <cmath>

namespace bvi::vi {

namespace {
constexpr double kZ95 = 1.6448536269514722;  // Phi^-1(0.95)
}

std::vector<ParameterSummary> summarize_parameters(const Family& q, const std::vector<std::string>& names,
                                                   const std::vector<std::string>& labels,
                                                   const std::vector<ad::ColumnTransform>& transforms,
                                                   const Eigen::Ref<const Eigen::MatrixXd>& draws) {
  const Eigen::VectorXd mu = q.mean();
  const Eigen::VectorXd sd = q.marginal_sd();
  std::vector<ParameterSummary> out;
  for (Index j = 0; j < q.dim(); ++j) {
    const ad::ColumnTransform& t = transforms[static_cast<size_t>(j)];
    if (t.bound == ad::Bound::none) {
      out.push_back({names[j], labels[j], mu[j], sd[j], mu[j] - kZ95 * sd[j], mu[j], mu[j] + kZ95 * sd[j]});
      continue;
    }
    // Quantiles through the monotone transform (upper bounds reverse the order).
    Eigen::MatrixXd u(1, 3), x(1, 3);
    u << mu[j] - kZ95 * sd[j], mu[j], mu[j] + kZ95 * sd[j];
    ad::constrain_values(u, std::vector<ad::ColumnTransform>(3, t), x);
    const double lo = std::min(x(0, 0), x(0, 2)), hi = std::max(x(0, 0), x(0, 2));
    Eigen::MatrixXd col(draws.rows(), 1), xc(draws.rows(), 1);
    col.col(0) = draws.col(j);
    ad::constrain_values(col, {t}, xc);
    const double m = xc.mean();
    const double var = draws.rows() > 1 ? (xc.array() - m).square().sum() / static_cast<double>(draws.rows() - 1) : 0.0;
    out.push_back({names[j], labels[j], m, std::sqrt(var), lo, x(0, 1), hi});
  }
  return out;
}

}  // namespace bvi::vi
