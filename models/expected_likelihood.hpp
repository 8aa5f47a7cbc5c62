#pragma once
// The data part of the exact expected log joint, sum_i E_q log p(y_i | eta_i): under a Gaussian q
// each row's linear predictor eta_i = alpha + x_i . beta + offset_i is N(m_i, v_i), so the row's
// expectation is a one-dimensional integral (Likelihood::expected_log_lik), and its gradient in
// q's mean and covariance follows by the chain rule through m_i = x~_i . mean and
// v_i = x~_i' Sigma x~_i (x~_i = (1, x_i) with an intercept):
//   dE/dmean = sum_i dE_i/dm_i x~_i,    dE/dSigma = sum_i dE_i/dv_i x~_i x~_i'.
// One pass over the rows per evaluation, in sub-blocks that stay in cache:
//   meanfield: v_i = sum_j x_ij^2 sd_j^2 and the diagonal of dE/dSigma, O(N D) per pass, nothing
//              P x P anywhere; the Hessian in the mean is applied to a vector by another O(N D)
//              pass (hessian_times) from each row's stored curvature;
//   fullrank:  v_i = |L11' x~_i|^2 by one GEMM per sub-block and dE/dSigma by another,
//              O(N D^2) per pass.
// The normal likelihood's sigma (u = log sigma) enters beside eta: its moments and Cov(eta_i, u)
// go to the likelihood and its derivatives come back with the rows'. Sums over rows go through
// the ChunkReducer, so every thread and rank count gives the same bits.
#include <Eigen/Core>
#include <memory>
#include <vector>

#include "inference/ad/arena.hpp"
#include "inference/ad/gemm.hpp"
#include "inference/exact/expected_log_density.hpp"
#include "inference/quadrature/gaussian_expectation.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "models/data_view.hpp"
#include "models/model.hpp"

namespace bvi::models {

template <class T>
class ExpectedLikelihood {
 public:
  ExpectedLikelihood(const Model& model, DataView<T> data, reduce::ChunkReducer& reducer);
  ~ExpectedLikelihood();

  // Adds E and, with `grad`, its gradient into *grad; returns E.
  double evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  // Meanfield: adds (d^2 E / dmean^2) d into out, from the curvature of the last evaluate()
  // with a gradient.
  void hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out);
  long passes() const { return passes_; }
  // Where the exact method starts: 0 everywhere but the likelihood's scale, log sd(y) (the
  // normal likelihood's sigma at the response's own spread rather than at 1).
  Eigen::VectorXd initial_mean();

 private:
  struct ThreadScratch;
  void meanfield_chunk(int thread, Index chunk, double* partial, bool grad);
  void fullrank_chunk(int thread, Index chunk, double* partial, bool grad);
  void hessian_chunk(int thread, Index chunk, double* partial);
  // The rows [first, first + n) of local storage as the likelihood reads them.
  ad::GlmRows rows(Index first, Index n) const;

  const Model& model_;
  DataView<T> data_;
  reduce::ChunkReducer& reducer_;
  Index lin_ = 0;  // columns [0, lin_) of q are alpha (when there is one) and beta
  bool intercept_ = false;
  Index D_ = 0;
  Index scale_ = -1;  // the likelihood's scale column (normal: log sigma), or -1
  Eigen::VectorXd log_constants_;

  // The q of the current pass, as the chunks read it.
  const vi::GaussianQ* q_ = nullptr;
  Eigen::VectorXd mean_lin_, var_lin_;  // meanfield: mean and variance of the linear coordinates
  Eigen::MatrixXd chol_lin_;            // fullrank: L11, the linear coordinates' Cholesky block
  Eigen::VectorXd cov_u_lin_;           // fullrank: L_{u, lin}, so Cov(eta_i, u) = (L11' x~_i) . it
  double u_mean_ = 0.0, u_var_ = 0.0;

  // Per local row, from the last gradient pass: dE_i/dv_i (meanfield Hessian-vector products).
  Eigen::VectorXd row_d_var_;
  Eigen::VectorXd direction_;  // hessian_times' d over the linear coordinates
  // Meanfield, from the last gradient pass: sum_i dE_i/dCov(eta_i, u) x~_i, and d/du_var summed.
  Eigen::VectorXd cross_u_;
  double d_u_var_ = 0.0;

  std::vector<std::unique_ptr<ThreadScratch>> scratch_;  // one per thread, for the current family
  bool scratch_dense_ = false;
  Eigen::VectorXd total_;
  long passes_ = 0;
};

extern template class ExpectedLikelihood<double>;
extern template class ExpectedLikelihood<float>;

}  // namespace bvi::models
