#pragma once
// What `predict` needs of each likelihood, for one draw and one row with linear predictor eta
// (offset and log exposure included): the expected response E[y | theta], its variance
// Var[y | theta], and the log density log p(y | theta) with every constant (as in
// log_joint; the independent reference is scipy.stats, see tests/e2e/test_predict_families.py).
#include <cmath>
#include <limits>
#include <string>

#include "inference/ad/ops/beta_logit_kernel.hpp"
#include "inference/ad/ops/gamma_log_kernel.hpp"
#include "inference/ad/ops/neg_binomial_2_log_kernel.hpp"
#include "inference/ad/ops/student_t_kernel.hpp"
#include "inference/math/log_factorial.hpp"
#include "inference/math/log_ndtr.hpp"

namespace bvi::models {

class PredictFamily {
 public:
  enum class Kind {
    bernoulli_logit,
    bernoulli_probit,
    binomial_logit,
    poisson_log,
    normal,
    negative_binomial_log,
    lognormal,
    gamma_log,
    beta_logit,
    student_t
  };

  // For a likelihood predict supports; `ok` false otherwise.
  static PredictFamily named(const std::string& likelihood, bool* ok) {
    const char* names[] = {"bernoulli_logit", "bernoulli_probit", "binomial_logit",
                           "poisson_log",     "normal",           "negative_binomial_log",
                           "lognormal",       "gamma_log",        "beta_logit",
                           "student_t"};
    for (int k = 0; k < 10; ++k)
      if (likelihood == names[k]) {
        *ok = true;
        return PredictFamily(static_cast<Kind>(k));
      }
    *ok = false;
    return PredictFamily(Kind::bernoulli_logit);
  }

  Kind kind() const { return kind_; }
  bool binary() const { return kind_ == Kind::bernoulli_logit || kind_ == Kind::bernoulli_probit; }
  // The draws' column of the likelihood's own parameter (normal's and lognormal's sigma, the
  // negative binomial's phi), "" when it has none; mean, variance and log_density take its value
  // as `sigma`.
  const char* scale_name() const {
    switch (kind_) {
      case Kind::normal:
      case Kind::lognormal:
      case Kind::student_t:
        return "sigma";
      case Kind::negative_binomial_log:
      case Kind::beta_logit:
        return "phi";
      case Kind::gamma_log:
        return "shape";
      default:
        return "";
    }
  }

  // The draws' column of a second parameter of the likelihood (student_t's nu), "" when it has
  // none; mean, variance and log_density take its value as `nu`.
  const char* second_name() const { return kind_ == Kind::student_t ? "nu" : ""; }

  // E[y | eta, sigma] (sigma: the likelihood's own parameter, scale_name(); binomial: n p, the expected
  // successes of the row's n trials; lognormal: exp(eta + sigma^2 / 2), the others do not read sigma).
  // student_t: the location eta, its median, and its mean for nu > 1.
  double mean(double eta, double trials, double sigma, double /*nu*/ = 0.0) const {
    switch (kind_) {
      case Kind::bernoulli_logit:
        return sigmoid(eta);
      case Kind::bernoulli_probit:
        return std::exp(math::log_ndtr(eta));
      case Kind::binomial_logit:
        return trials * sigmoid(eta);
      case Kind::poisson_log:
      case Kind::negative_binomial_log:
      case Kind::gamma_log:
        return std::exp(eta);
      case Kind::normal:
      case Kind::student_t:
        return eta;
      case Kind::lognormal:
        return std::exp(eta + 0.5 * sigma * sigma);
      case Kind::beta_logit:
        return sigmoid(eta);
    }
    return 0;
  }

  // Var[y | eta, sigma] (negative_binomial_log: sigma is phi, Var = mu + mu^2 / phi; gamma_log: the shape).
  // student_t: sigma^2 nu / (nu - 2) for nu > 2, +inf for nu <= 2 (its variance does not exist).
  double variance(double eta, double trials, double sigma, double nu = 0.0) const {
    switch (kind_) {
      case Kind::bernoulli_logit:
        return sigmoid(eta) * sigmoid(-eta);
      case Kind::bernoulli_probit:
        return std::exp(math::log_ndtr(eta) + math::log_ndtr(-eta));
      case Kind::binomial_logit:
        return trials * sigmoid(eta) * sigmoid(-eta);
      case Kind::poisson_log:
        return std::exp(eta);
      case Kind::normal:
        return sigma * sigma;
      case Kind::negative_binomial_log: {
        const double mu = std::exp(eta);
        return mu + mu * (mu / sigma);
      }
      case Kind::lognormal:  // (e^{sigma^2} - 1) e^{2 eta + sigma^2}
        return std::expm1(sigma * sigma) * std::exp(2.0 * eta + sigma * sigma);
      case Kind::gamma_log:  // mu^2 / shape
        return std::exp(2.0 * eta) / sigma;
      case Kind::beta_logit:  // mu (1 - mu) / (1 + phi)
        return sigmoid(eta) * sigmoid(-eta) / (1.0 + sigma);
      case Kind::student_t:
        return nu > 2.0 ? sigma * sigma * (nu / (nu - 2.0)) : std::numeric_limits<double>::infinity();
    }
    return 0;
  }

  // log p(y | eta, sigma), every constant included (sigma as in mean()).
  double log_density(double y, double eta, double trials, double sigma, double nu = 0.0) const {
    switch (kind_) {
      case Kind::bernoulli_logit:
        return log_sigmoid(y > 0.5 ? eta : -eta);
      case Kind::bernoulli_probit:
        return math::log_ndtr(y > 0.5 ? eta : -eta);
      case Kind::binomial_logit: {
        double lp = math::log_binomial_coefficient(trials, y);
        if (y != 0) lp += y * log_sigmoid(eta);  // zero counts drop their term: no 0 * inf
        if (trials != y) lp += (trials - y) * log_sigmoid(-eta);
        return lp;
      }
      case Kind::poisson_log:
        return (y != 0 ? y * eta : 0.0) - std::exp(eta) - math::log_factorial(y);
      case Kind::normal: {
        const double z = (y - eta) / sigma;
        return -0.5 * z * z - std::log(sigma) - math::kLogSqrt2Pi;
      }
      case Kind::negative_binomial_log:
        return ad::detail::neg_binomial_2_log(y, eta, sigma, -math::log_factorial(y), nullptr);
      case Kind::lognormal: {  // scipy.stats.lognorm(s = sigma, scale = exp(eta)).logpdf(y)
        if (!(y > 0.0)) return -INFINITY;
        const double ly = std::log(y), z = (ly - eta) / sigma;
        return -0.5 * z * z - std::log(sigma) - math::kLogSqrt2Pi - ly;
      }
      case Kind::gamma_log:
        return ad::detail::gamma_log(y, eta, sigma, std::numeric_limits<double>::quiet_NaN(), nullptr);
      case Kind::beta_logit:
        return ad::detail::beta_logit(y, eta, sigma, ad::detail::beta_logit_terms(y), nullptr);
      case Kind::student_t:  // scipy.stats.t(df = nu, loc = eta, scale = sigma).logpdf(y)
        return ad::detail::StudentTKernel{}(y, nu, eta, sigma, nullptr);
    }
    return 0;
  }

 private:
  explicit PredictFamily(Kind kind) : kind_(kind) {}
  static double sigmoid(double z) {
    return z >= 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z));
  }
  static double log_sigmoid(double z) {
    return z >= 0 ? -std::log1p(std::exp(-z)) : z - std::log1p(std::exp(z));
  }

  Kind kind_;
};

}  // namespace bvi::models
