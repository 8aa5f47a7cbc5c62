#include "models/pointwise_log_lik.hpp"

#include <stdexcept>

#include "common/error.hpp"

namespace bvi::models {

namespace {

PredictFamily pointwise_family(const std::string& likelihood) {
  bool ok = false;
  const PredictFamily family = PredictFamily::named(likelihood, &ok);
  if (!ok)
    throw config_error("/model/likelihood", "loo does not support the likelihood '" + likelihood + "' yet");
  return family;
}

}  // namespace

PointwiseLogLik::PointwiseLogLik(const FitResult& fit, const PredictRows& rows)
    : fit_(fit),
      rows_(rows),
      family_(pointwise_family(fit.likelihood)),
      predictors_(fit, family_, rows.x.cols()) {
  if (!rows.y) throw std::logic_error("pointwise log likelihood: the rows have no response");
  if (family_.kind() == PredictFamily::Kind::binomial_logit && !rows.trials)
    throw std::logic_error("pointwise log likelihood: binomial_logit needs the rows' trials");
}

void PointwiseLogLik::block(Eigen::Index r0, Eigen::Index m, Eigen::MatrixXd& eta,
                            Eigen::MatrixXd& out) const {
  const Eigen::Index S = draws();
  if (eta.rows() != S || eta.cols() < m) eta.resize(S, m);
  if (out.rows() != S || out.cols() < m) out.resize(S, m);
  predictors_.block(fit_, rows_, r0, m, eta);
  const Eigen::VectorXd& scale = predictors_.scale;
  if (family_.kind() == PredictFamily::Kind::bernoulli_logit && !rows_.offset) {
    // The common case on whole columns: log sigmoid(t) = min(t, 0) - log1p(e), e = exp(-|t|) in
    // (0, 1], t = +-eta; log1p(e) = log(u) - ((u - 1) - e) / u with u = 1 + e (Goldberg's
    // correction, about an ulp), which Eigen vectorizes where libm's log1p is a call per value.
    // In place (t in eta's column, e in out's): no allocation per row, the same operations.
    for (Eigen::Index i = 0; i < m; ++i) {
      const double sign = (*rows_.y)[r0 + i] > 0.5 ? 1.0 : -1.0;
      auto t = eta.col(i).array();
      auto e = out.col(i).array();
      t *= sign;
      e = (-t.abs()).exp();
      e = t.min(0.0) - ((1.0 + e).log() - (((1.0 + e) - 1.0) - e) / (1.0 + e));
    }
    return;
  }
  for (Eigen::Index i = 0; i < m; ++i) {
    const Eigen::Index row = r0 + i;
    const double off = rows_.offset ? (*rows_.offset)[row] : 0.0;
    const double trials = rows_.trials ? (*rows_.trials)[row] : 0.0;
    const double y = (*rows_.y)[row];
    for (Eigen::Index s = 0; s < S; ++s)
      out(s, i) = family_.log_density(y, eta(s, i) + off, trials, scale[s], predictors_.second[s]);
  }
}

}  // namespace bvi::models
