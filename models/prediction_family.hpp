#pragma once
// What `predict` needs of each likelihood, for one draw and one row with linear predictor eta
// (offset and log exposure included): the expected response E[y | theta], its variance
// Var[y | theta], and the log density log p(y | theta) with every constant (as in
// log_joint; the independent reference is scipy.stats, see tests/e2e/test_predict_families.py).
#include <cmath>
#include <string>

#include "inference/ad/ops/neg_binomial_2_log_kernel.hpp"
#include "inference/math/log_factorial.hpp"
#include "inference/math/log_ndtr.hpp"

namespace bvi::models {

class PredictFamily {
 public:
  enum class Kind { bernoulli_logit, bernoulli_probit, binomial_logit, poisson_log, normal, negative_binomial_log };

  // For a likelihood predict supports; `ok` false otherwise.
  static PredictFamily named(const std::string& likelihood, bool* ok) {
    const char* names[] = {"bernoulli_logit", "bernoulli_probit", "binomial_logit",
                           "poisson_log",     "normal",           "negative_binomial_log"};
    for (int k = 0; k < 6; ++k)
      if (likelihood == names[k]) {
        *ok = true;
        return PredictFamily(static_cast<Kind>(k));
      }
    *ok = false;
    return PredictFamily(Kind::bernoulli_logit);
  }

  Kind kind() const { return kind_; }
  bool binary() const { return kind_ == Kind::bernoulli_logit || kind_ == Kind::bernoulli_probit; }
  // The draws' column of the likelihood's own parameter (normal's sigma, the negative binomial's
  // phi), "" when it has none; log_density and variance take its value as `scale`.
  const char* scale_name() const {
    return kind_ == Kind::normal ? "sigma" : kind_ == Kind::negative_binomial_log ? "phi" : "";
  }

  // E[y | eta] (binomial: n p, the expected successes of the row's n trials).
  double mean(double eta, double trials) const {
    switch (kind_) {
      case Kind::bernoulli_logit:
        return sigmoid(eta);
      case Kind::bernoulli_probit:
        return std::exp(math::log_ndtr(eta));
      case Kind::binomial_logit:
        return trials * sigmoid(eta);
      case Kind::poisson_log:
      case Kind::negative_binomial_log:
        return std::exp(eta);
      case Kind::normal:
        return eta;
    }
    return 0;
  }

  // Var[y | eta, sigma] (negative_binomial_log: sigma is phi, Var = mu + mu^2 / phi).
  double variance(double eta, double trials, double sigma) const {
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
    }
    return 0;
  }

  // log p(y | eta, sigma), every constant included (negative_binomial_log: sigma is phi).
  double log_density(double y, double eta, double trials, double sigma) const {
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
