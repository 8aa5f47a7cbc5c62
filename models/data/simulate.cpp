#include "models/data/simulate.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/error.hpp"
#include "inference/rng/normal_stream.hpp"
#include "models/data/random_variates.hpp"

namespace bvi::data {

namespace {

// The steps of rng::Purpose::simulation: one stream per kind of number, so adding rows or
// features never shifts the others. Within a step the draw is the row (0 for beta) and the
// coordinate the column; the response's uniforms are RowUniforms of kResponseStep.
constexpr std::uint64_t kCoefficientStep = 0;
constexpr std::uint64_t kFeatureStep = 1;
constexpr std::uint64_t kResponseStep = 2;

enum class Family {
  bernoulli_logit,
  bernoulli_probit,
  binomial_logit,
  poisson_log,
  negative_binomial_log,
  normal,
  lognormal,
  gamma_log,
  beta_logit,
  student_t,
  ordinal_logit,
  ordinal_probit,
  categorical_logit
};

Family family_of(const std::string& name) {
  const std::vector<std::string>& all = simulated_likelihoods();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i] == name) return static_cast<Family>(i);
  throw std::invalid_argument("simulate: unknown likelihood '" + name + "'");
}

double sigmoid(double eta) {
  return 1.0 / (1.0 + std::exp(-eta));
}

// The smallest normal double or the largest double below 1: a beta draw that rounds to 0 or 1 (shapes far
// below 1) is not a response beta_logit can take.
double inside_unit(double y) {
  if (y <= 0) return std::numeric_limits<double>::min();
  if (y >= 1) return std::nextafter(1.0, 0.0);
  return y;
}

}  // namespace

const std::vector<std::string>& simulated_likelihoods() {
  static const std::vector<std::string> all{
      "bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "negative_binomial_log",
      "normal",          "lognormal",        "gamma_log",      "beta_logit",           "student_t",
      "ordinal_logit",   "ordinal_probit",   "categorical_logit"};
  return all;
}

std::vector<float> simulated_cutpoints(const SimulationSpec& spec) {
  const Family f = family_of(spec.likelihood);
  if (f != Family::ordinal_logit && f != Family::ordinal_probit) return {};
  if (spec.levels < 2) throw std::invalid_argument("simulated_cutpoints: levels must be >= 2");
  std::vector<float> c;
  for (int k = 1; k < spec.levels; ++k) {
    const double p = static_cast<double>(k) / spec.levels;
    // logit: log(p / (1 - p)); probit: Phi^-1(p) by bisection on erfc (exact to rounding: 200 halvings)
    double v = std::log(p / (1.0 - p));
    if (f == Family::ordinal_probit) {
      double lo = -40, hi = 40;
      for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
      }
      v = 2 * k == spec.levels ? 0.0 : 0.5 * (lo + hi);  // the median exactly, as the logit's log 1
    }
    c.push_back(static_cast<float>(v));
  }
  return c;
}

std::string simulated_parameter_name(const std::string& likelihood) {
  switch (family_of(likelihood)) {
    case Family::normal:
    case Family::lognormal:
    case Family::student_t:
      return "sigma";
    case Family::negative_binomial_log:
    case Family::beta_logit:
      return "phi";
    case Family::gamma_log:
      return "shape";
    default:
      return "";
  }
}

float default_simulated_parameter(const std::string& likelihood) {
  switch (family_of(likelihood)) {
    case Family::normal:
    case Family::lognormal:
    case Family::student_t:
      return 1.0f;
    case Family::negative_binomial_log:
      return 2.0f;
    case Family::beta_logit:
      return 10.0f;
    case Family::gamma_log:
      return 2.0f;
    default:
      return 0.0f;
  }
}

bool simulated_response_is_integer(const std::string& likelihood) {
  const Family f = family_of(likelihood);
  return f == Family::bernoulli_logit || f == Family::bernoulli_probit || f == Family::binomial_logit ||
         f == Family::poisson_log || f == Family::negative_binomial_log || f == Family::ordinal_logit ||
         f == Family::ordinal_probit || f == Family::categorical_logit;
}

int simulated_coefficient_count(const SimulationSpec& spec) {
  if (family_of(spec.likelihood) != Family::categorical_logit) return spec.features;
  if (spec.levels < 2 || spec.levels > 1000)
    throw std::invalid_argument("simulate: categorical_logit needs 2 ... 1000 levels");
  return (spec.levels - 1) * spec.features;
}

std::vector<float> simulated_coefficients(std::uint64_t seed, int features) {
  if (features < 1) throw std::invalid_argument("simulated_coefficients: features must be >= 1");
  Eigen::MatrixXd z(1, features);
  rng::standard_normal(seed, rng::Purpose::simulation, kCoefficientStep, 0, 0, z);
  std::vector<float> beta(static_cast<std::size_t>(features));
  for (int j = 0; j < features; ++j) beta[j] = static_cast<float>(z(0, j));
  return beta;
}

void simulate_block(const SimulationSpec& spec, const std::vector<float>& beta, std::int64_t first_row,
                    Eigen::Index rows, SimulatedBlock& block) {
  const Eigen::Index D = spec.features;
  if (D < 1 || static_cast<Eigen::Index>(beta.size()) != simulated_coefficient_count(spec))
    throw std::invalid_argument("simulate_block: beta must have one entry per feature (and category)");
  if (first_row < 0 || rows < 0 || rows > spec.rows - first_row)
    throw std::invalid_argument("simulate_block: rows outside the dataset");
  const Family family = family_of(spec.likelihood);
  const double theta = spec.parameter;
  if (!simulated_parameter_name(spec.likelihood).empty() && !(theta > 0 && std::isfinite(theta)))
    throw std::invalid_argument("simulate_block: the likelihood's parameter must be positive");
  if (family == Family::student_t && !(spec.nu > 0 && std::isfinite(spec.nu)))
    throw std::invalid_argument("simulate_block: student_t's nu must be positive");
  if (family == Family::binomial_logit && spec.trials < 1)
    throw std::invalid_argument("simulate_block: trials must be >= 1");

  const std::vector<float> cut = simulated_cutpoints(spec);
  block.normals.resize(rows, D);
  const auto first = static_cast<std::uint64_t>(first_row);
  rng::standard_normal(spec.seed, rng::Purpose::simulation, kFeatureStep, 0, first, block.normals);
  block.x = block.normals.cast<float>();
  block.y.resize(static_cast<std::size_t>(rows));
  const double alpha = spec.intercept ? static_cast<double>(spec.alpha) : 0.0;
  for (Eigen::Index n = 0; n < rows; ++n) {
    // A plain loop, not Eigen's dot: its vectorized sum may split the terms differently with
    // the data's alignment, and y must not depend on where a block happens to sit in memory.
    const float* xn = block.x.row(n).data();
    double eta = 0.0;
    if (family != Family::categorical_logit)
      for (Eigen::Index j = 0; j < D; ++j) eta += static_cast<double>(xn[j]) * static_cast<double>(beta[j]);
    eta += alpha;
    RowUniforms u(spec.seed, kResponseStep, first + static_cast<std::uint64_t>(n));
    double y = 0;
    switch (family) {
      // P(y = 1) = P(u < p) = p for u uniform on (0, 1].
      case Family::bernoulli_logit:
        y = u() < sigmoid(eta) ? 1 : 0;
        break;
      case Family::bernoulli_probit:
        y = u() < 0.5 * std::erfc(-eta / std::sqrt(2.0)) ? 1 : 0;
        break;
      case Family::binomial_logit:
        y = static_cast<double>(binomial_variate(spec.trials, sigmoid(eta), u));
        break;
      case Family::poisson_log:
      case Family::negative_binomial_log: {
        const double mu = std::exp(eta);
        if (!(mu <= kMaxPoissonMean))
          throw usage_error("row " + std::to_string(first_row + n + 1) + " has a mean count exp(" +
                            std::to_string(eta) + ") past 1e15; use fewer features or a smaller intercept");
        y = static_cast<double>(family == Family::poisson_log ? poisson_variate(mu, u)
                                                              : negative_binomial_variate(mu, theta, u));
        break;
      }
      case Family::normal:
        y = eta + theta * normal_variate(u);
        break;
      case Family::lognormal:
        y = std::exp(eta + theta * normal_variate(u));
        break;
      case Family::student_t:
        y = eta + theta * student_t_variate(static_cast<double>(spec.nu), u);
        break;
      case Family::gamma_log:
        // Gamma(shape, rate shape / mu) = (mu / shape) Gamma(shape, 1).
        y = std::exp(log_gamma_variate(theta, u) + eta - std::log(theta));
        if (y == 0) y = std::numeric_limits<double>::min();
        break;
      case Family::beta_logit: {
        // 1 - sigmoid(eta) = sigmoid(-eta), without the cancellation near 1.
        const double a = sigmoid(eta) * theta, b = sigmoid(-eta) * theta;
        y = inside_unit(a > 0 && b > 0 ? beta_variate(a, b, u) : a > 0 ? 1.0 : 0.0);
        break;
      }
      case Family::categorical_logit: {
        // The inverse CDF of softmax(0, eta_2, ..., eta_K) about its largest linear predictor.
        const Eigen::Index C = spec.levels - 1;
        double e[1000];
        double hi = 0.0;
        for (Eigen::Index c = 0; c < C; ++c) {
          double v = alpha;
          for (Eigen::Index j = 0; j < D; ++j)
            v += static_cast<double>(xn[j]) * static_cast<double>(beta[static_cast<std::size_t>(j * C + c)]);
          e[c] = v;
          hi = std::max(hi, v);
        }
        double total = std::exp(-hi);
        for (Eigen::Index c = 0; c < C; ++c) total += (e[c] = std::exp(e[c] - hi));
        const double v = u() * total;
        double cdf = std::exp(-hi);
        Eigen::Index k = 0;  // 0: the reference category 1
        while (k < C && v > cdf) cdf += e[k++];
        y = static_cast<double>(k + 1);
        break;
      }
      case Family::ordinal_logit:
      case Family::ordinal_probit: {
        // The inverse CDF: the first k with P(y <= k) = F(c_k - eta) >= u.
        const double v = u();
        std::size_t k = 0;
        for (; k < cut.size(); ++k) {
          const double z = static_cast<double>(cut[k]) - eta;
          if (v <= (family == Family::ordinal_logit ? sigmoid(z) : 0.5 * std::erfc(-z / std::sqrt(2.0)))) break;
        }
        y = static_cast<double>(k + 1);
        break;
      }
    }
    if (!std::isfinite(y))
      throw usage_error("row " + std::to_string(first_row + n + 1) +
                        " has a response past the doubles (eta = " + std::to_string(eta) +
                        "); use fewer features or a smaller intercept");
    block.y[static_cast<std::size_t>(n)] = y;
  }
}

}  // namespace bvi::data
