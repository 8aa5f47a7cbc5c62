#pragma once
// log p(y_i | theta_s) for a fit's draws theta_s and rows with a response, a block of rows at a
// time (the pointwise log likelihood matrix loo() takes, never held whole): every normalizing
// constant included, as predict's log predictive density has it (prediction_family.hpp; for
// categorical_logit the log softmax of the row's category, category_draws.hpp; for the ordinal
// likelihoods log(F(c_y - eta) - F(c_{y-1} - eta)), ordinal_draws.hpp).
#include <Eigen/Core>
#include <optional>
#include <vector>

#include "models/category_draws.hpp"
#include "models/draw_predictors.hpp"
#include "models/fit_result.hpp"
#include "models/ordinal_draws.hpp"
#include "models/prediction.hpp"
#include "models/prediction_family.hpp"

namespace bvi::models {

// categorical_logit's K and reference category (the fit's layout); categories 0 for the other
// likelihoods.
struct PointwiseCategories {
  int categories = 0;
  int reference = 1;
};

class PointwiseLogLik {
 public:
  // A caller's buffers, reused from block to block (sized at the first).
  struct Scratch {
    Eigen::MatrixXd eta;                    // S x m: the linear predictor
    std::vector<Eigen::MatrixXd> category;  // categorical_logit: K - 1 of S x m
  };

  // `fit` and `rows` must outlive this; rows.y is required (std::logic_error otherwise), and the
  // likelihood must be one predict supports (config error 78 otherwise); categorical_logit needs
  // `categories` (std::logic_error without).
  PointwiseLogLik(const FitResult& fit, const PredictRows& rows, PointwiseCategories categories = {});

  Eigen::Index draws() const { return fit_.draws.rows(); }
  Eigen::Index rows() const { return rows_.x.rows(); }

  // out(s, i) = log p(y_{r0 + i} | theta_s) for i < m; `out` is resized to S x m when smaller (a
  // caller reusing it and `scratch` allocates once).
  void block(Eigen::Index r0, Eigen::Index m, Scratch& scratch, Eigen::MatrixXd& out) const;

 private:
  void categorical_block(Eigen::Index r0, Eigen::Index m, Scratch& scratch, Eigen::MatrixXd& out) const;
  void ordinal_block(Eigen::Index r0, Eigen::Index m, Scratch& scratch, Eigen::MatrixXd& out) const;

  const FitResult& fit_;
  const PredictRows& rows_;
  // One of the three: predict's family and its single linear predictor, categorical_logit's
  // per-category draws, or the ordinal likelihoods' cutpoints and linear predictor.
  std::optional<PredictFamily> family_;
  std::optional<DrawPredictors> predictors_;
  std::optional<CategoryDraws> categories_;
  std::optional<OrdinalDraws> ordinal_;
};

}  // namespace bvi::models
