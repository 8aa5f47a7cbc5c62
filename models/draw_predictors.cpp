#include "models/draw_predictors.hpp"

#include <stdexcept>
#include <string>

namespace bvi::models {

namespace {

Eigen::Index draws_column(const FitResult& fit, const std::string& name) {
  for (std::size_t j = 0; j < fit.names.size(); ++j)
    if (fit.names[j] == name) return static_cast<Eigen::Index>(j);
  return -1;
}

}  // namespace

DrawPredictors::DrawPredictors(const FitResult& fit, const PredictFamily& family, Eigen::Index D) {
  const Eigen::Index S = fit.draws.rows();
  const std::string scale_name = family.scale_name();
  const Eigen::Index a = draws_column(fit, "alpha");
  const Eigen::Index sigma_col = scale_name.empty() ? -1 : draws_column(fit, scale_name);
  Eigen::Index b = draws_column(fit, "beta.1");
  if (b < 0 && D == 1) b = draws_column(fit, "beta");
  if (D > 0 && (b < 0 || b + D > fit.draws.cols()))
    throw std::logic_error("predict: the draws have no beta columns");
  if (!scale_name.empty() && sigma_col < 0)
    throw std::logic_error("predict: the draws have no " + scale_name + " column");
  beta = D > 0 ? Eigen::MatrixXd(fit.draws.middleCols(b, D)) : Eigen::MatrixXd(S, 0);
  alpha = a >= 0 ? Eigen::VectorXd(fit.draws.col(a)) : Eigen::VectorXd::Zero(S);
  scale = sigma_col >= 0 ? Eigen::VectorXd(fit.draws.col(sigma_col)) : Eigen::VectorXd::Ones(S);
  const std::string second_name = family.second_name();
  const Eigen::Index second_col = second_name.empty() ? -1 : draws_column(fit, second_name);
  if (!second_name.empty() && second_col < 0)
    throw std::logic_error("predict: the draws have no " + second_name + " column");
  second = second_col >= 0 ? Eigen::VectorXd(fit.draws.col(second_col)) : Eigen::VectorXd::Zero(S);
}

void DrawPredictors::block(const FitResult& fit, const PredictRows& rows, Eigen::Index r0, Eigen::Index m,
                           Eigen::MatrixXd& eta) const {
  if (beta.cols() > 0)
    eta.leftCols(m).noalias() = beta * rows.x.middleRows(r0, m).transpose();
  else
    eta.leftCols(m).setZero();
  eta.leftCols(m).colwise() += alpha;
  for (const PredictGroupEffects& g : rows.groups) g.add_to(fit.draws, r0, m, eta);
}

}  // namespace bvi::models
