#include "models/pointwise_log_lik.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "inference/ad/packet_log1p.hpp"

#include "common/error.hpp"
#include "models/ordinal_prediction.hpp"

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

PointwiseLogLik::PointwiseLogLik(const FitResult& fit, const PredictRows& rows,
                                 PointwiseCategories categories)
    : fit_(fit), rows_(rows) {
  if (!rows.y) throw std::logic_error("pointwise log likelihood: the rows have no response");
  if (fit.likelihood == "categorical_logit") {
    if (categories.categories < 2)
      throw std::logic_error("pointwise log likelihood: categorical_logit needs its categories");
    categories_.emplace(fit, fit.draws.rows(), rows.x.cols(), categories.categories, categories.reference);
    return;
  }
  if (is_ordinal(fit.likelihood)) {
    ordinal_.emplace(fit, rows.x.cols());
    return;
  }
  family_.emplace(pointwise_family(fit.likelihood));
  predictors_.emplace(fit, *family_, rows.x.cols());
  if (family_->kind() == PredictFamily::Kind::binomial_logit && !rows.trials)
    throw std::logic_error("pointwise log likelihood: binomial_logit needs the rows' trials");
}

// log softmax_{y_i}(0, eta_1, ..., eta_C) per draw: the K - 1 linear predictors of the block in
// one GEMM each, then per row a pass over the draws (the fit's own log-sum-exp).
void PointwiseLogLik::categorical_block(Eigen::Index r0, Eigen::Index m, Scratch& scratch,
                                        Eigen::MatrixXd& out) const {
  const CategoryDraws& draws = *categories_;
  const Eigen::Index S = draws.draws();
  scratch.category.resize(static_cast<std::size_t>(draws.K - 1));
  for (Eigen::MatrixXd& e : scratch.category)
    if (e.rows() != S || e.cols() < m) e.resize(S, m);
  draws.linear_predictors(rows_, r0, m, scratch.category);
  for (Eigen::Index i = 0; i < m; ++i)
    draws.log_prob(scratch.category, i, static_cast<int>((*rows_.y)[r0 + i]), out.col(i).data());
}

// log(F(c_y - eta) - F(c_{y-1} - eta)) per draw: the block's linear predictors in one GEMM, then
// per row a pass over the draws (the fit's own kernel, ordinal_draws.hpp).
void PointwiseLogLik::ordinal_block(Eigen::Index r0, Eigen::Index m, Scratch& scratch,
                                    Eigen::MatrixXd& out) const {
  const OrdinalDraws& draws = *ordinal_;
  Eigen::MatrixXd& eta = scratch.eta;
  if (eta.rows() != draws.draws() || eta.cols() < m) eta.resize(draws.draws(), m);
  draws.predictors.block(fit_, rows_, r0, m, eta);
  for (Eigen::Index i = 0; i < m; ++i) {
    const Eigen::Index row = r0 + i;
    draws.log_prob_row(eta, i, (*rows_.y)[row], rows_.offset ? (*rows_.offset)[row] : 0.0, out.col(i).data());
  }
}

void PointwiseLogLik::block(Eigen::Index r0, Eigen::Index m, Scratch& scratch, Eigen::MatrixXd& out) const {
  const Eigen::Index S = draws();
  if (out.rows() != S || out.cols() < m) out.resize(S, m);
  if (categories_) {
    categorical_block(r0, m, scratch, out);
    return;
  }
  if (ordinal_) {
    ordinal_block(r0, m, scratch, out);
    return;
  }
  Eigen::MatrixXd& eta = scratch.eta;
  if (eta.rows() != S || eta.cols() < m) eta.resize(S, m);
  const DrawPredictors& predictors = *predictors_;
  const PredictFamily& family = *family_;
  predictors.block(fit_, rows_, r0, m, eta);
  const Eigen::VectorXd& scale = predictors.scale;
  if (family.kind() == PredictFamily::Kind::bernoulli_logit && !rows_.offset) {
    // The common case on whole columns: log sigmoid(t) = min(t, 0) - log1p(e), e = exp(-|t|) in
    // (0, 1], t = +-eta, by packets: log1p(e) by the fit's own kernel for e in [0, 1]
    // (packet_log1p_unit, within 4e-16 of log1p, no division), a remainder of S mod the packet
    // size by libm. No allocation per row.
    namespace ei = Eigen::internal;
    using Packet = ei::packet_traits<double>::type;
    constexpr Eigen::Index W = ei::packet_traits<double>::size;  // unpacket_traits<Packet> warns (the vector type's attributes)
    const Packet zero = ei::pset1<Packet>(0.0);
    for (Eigen::Index i = 0; i < m; ++i) {
      const double sign = (*rows_.y)[r0 + i] > 0.5 ? 1.0 : -1.0;
      const Packet sg = ei::pset1<Packet>(sign);
      const double* tc = eta.col(i).data();
      double* oc = out.col(i).data();
      Eigen::Index s = 0;
      for (; s + W <= S; s += W) {
        const Packet t = ei::pmul(sg, ei::ploadu<Packet>(tc + s));
        const Packet e = ei::pexp(ei::pnegate(ei::pabs(t)));
        ei::pstoreu(oc + s, ei::psub(ei::pmin(t, zero), ad::packet_log1p_unit(e)));
      }
      for (; s < S; ++s) {
        const double t = sign * tc[s];
        oc[s] = std::min(t, 0.0) - std::log1p(std::exp(-std::abs(t)));
      }
    }
    return;
  }
  for (Eigen::Index i = 0; i < m; ++i) {
    const Eigen::Index row = r0 + i;
    const double off = rows_.offset ? (*rows_.offset)[row] : 0.0;
    const double trials = rows_.trials ? (*rows_.trials)[row] : 0.0;
    const double y = (*rows_.y)[row];
    for (Eigen::Index s = 0; s < S; ++s)
      out(s, i) = family.log_density(y, eta(s, i) + off, trials, scale[s], predictors.second[s]);
  }
}

}  // namespace bvi::models
