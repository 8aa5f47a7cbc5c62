#pragma once
// The data part of the exact expected log joint, sum_i E_q log p(y_i | eta_i): under a Gaussian q
// each row's linear predictor eta_i = x~_i . theta + offset_i is N(m_i, v_i), so the row's
// expectation is a one-dimensional integral (Likelihood::expected_log_lik), and its gradient in
// q's mean and covariance follows by the chain rule through m_i = x~_i . mean and
// v_i = x~_i' Sigma x~_i:
//   dE/dmean = sum_i dE_i/dm_i x~_i,    dE/dSigma = sum_i dE_i/dv_i x~_i x~_i'.
// x~_i is the row's design over the "design coordinates": (1, x_i) for alpha (with an intercept)
// and beta, then, for each grouping factor f, the row's varying effects z_if = (1, its slopes)
// at the coordinates of its group g_f(i): eta_i += z_if . r_f[g_f(i)]. Those entries are read by
// index from the group data, never from a dense rows x groups design.
// One pass over the rows per evaluation, in sub-blocks that stay in cache:
//   meanfield: v_i = sum_j x~_ij^2 sd_j^2 and the diagonal of dE/dSigma, O(N (D + K)) per pass,
//              nothing P x P anywhere; the Hessian in the mean is applied to a vector by another
//              such pass (hessian_times) from each row's stored curvature;
//   fullrank:  v_i = |L_des' x~_i|^2 by one GEMM per sub-block (its dense design) and dE/dSigma
//              by another, O(N P^2) per pass: what the family costs;
//   sparse:    Sigma's entries on the precision's pattern (vi::BlockPattern): the (1, x_i) block by
//              GEMMs as fullrank's over the population coordinates alone, each group effect's
//              entries with them and with its group's other effects (and a crossed factor's level
//              pair) by index, O(N (D^2 + K D + K^2)) per pass, dE/dSigma on the same pattern.
// The normal likelihood's sigma (u = log sigma) enters beside eta: its moments and Cov(eta_i, u)
// go to the likelihood and its derivatives come back with the rows'. Sums over rows go through
// the ChunkReducer, so every thread and rank count gives the same bits.
#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "inference/ad/arena.hpp"
#include "inference/ad/gemm.hpp"
#include "inference/exact/expected_log_density.hpp"
#include "inference/quadrature/gaussian_expectation.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "models/data/group_data.hpp"
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
  // Where the exact method starts: 0 everywhere but the likelihood's scale, from the response's
  // spread (the normal likelihood's sigma at sd(y) rather than at 1), and the intercept, at the
  // intercept-only fit's linear predictor (Likelihood::initial_eta) less the mean offset; the
  // moments are weighted by the rows' weights.
  Eigen::VectorXd initial_mean();

 private:
  struct ThreadScratch;
  // A grouping factor's coordinates: its effects r_f sit at layout columns [r_offset, r_offset +
  // G K), and at [des_offset, des_offset + G K) among the design coordinates.
  struct Factor {
    const data::GroupData<T>* data = nullptr;
    Index r_offset = 0, des_offset = 0, groups = 0, effects = 0;
  };
  void meanfield_chunk(int thread, Index chunk, double* partial, bool grad);
  void fullrank_chunk(int thread, Index chunk, double* partial, bool grad);
  // Scratch for the family: 0 meanfield, 1 fullrank, 2 sparse.
  void prepare_scratch(int kind, Index P);
  // The sparse family (expected_likelihood_sparse.cpp): its pass, one chunk of it, and the packing
  // of each chunk's partial sums (once per pattern).
  double evaluate_sparse(const vi::GaussianQ& q, vi::ExpectationGradient* grad);
  void sparse_chunk(int thread, Index chunk, double* partial, bool grad);
  void pack_chunks(const vi::BlockPattern& pattern);
  void hessian_chunk(int thread, Index chunk, double* partial);
  // The row range of a chunk in local storage (its kept rows when rows were dropped).
  std::pair<Index, Index> chunk_rows(Index chunk) const;
  // The layout column of design coordinate j.
  Index layout_column(Index j) const;
  // The rows [first, first + n) of local storage as the likelihood reads them.
  ad::GlmRows rows(Index first, Index n) const;

  const Model& model_;
  DataView<T> data_;
  reduce::ChunkReducer& reducer_;
  Index lin_ = 0;  // design (and layout) coordinates [0, lin_) are alpha (with an intercept) and beta
  bool intercept_ = false;
  Index D_ = 0;
  std::vector<Factor> factors_;
  Index max_effects_ = 1;  // the most effects of a factor
  Index des_ = 0;     // design coordinates: lin_, then every factor's G K effects
  Index scale_ = -1;  // the likelihood's scale column (normal: log sigma), or -1
  Eigen::VectorXd log_constants_;

  // The q of the current pass over the design coordinates, as the chunks read it.
  Eigen::VectorXd mean_des_, var_des_;  // mean (both families), variance (meanfield)
  // A location family's intercept mean, taken out of mean_des_[0] and out of each row's y
  // (shifted_rows): y - m is then (y - alpha) - x . beta, exact where y is near alpha, not
  // fl(alpha + x . beta) subtracted from y. Normal data near 10^8 with sd 5 lost 1e-8 a row that
  // way, an ELBO noisy by 1e-6 where a step's gain was 4e-8, and the fit stalled.
  double location_ = 0.0;
  void take_out_location();
  // The rows [first, first + n) as rows() gives them, with y - location_ in `buffer` when there
  // is a location to take out.
  ad::GlmRows shifted_rows(Index first, Index n, Eigen::ArrayXd& buffer) const;
  Eigen::MatrixXd chol_des_;            // fullrank: L's rows of the design coordinates (des_ x P)
  Eigen::VectorXd chol_u_;              // fullrank: L's row of u, so Cov(eta_i, u) = (L_des' x~_i) . it
  // Sparse: the q of the pass (its pattern, Sigma on it), Sigma's block of the population
  // coordinates (lin x lin) and their covariances with u, u's index among the globals.
  const vi::BlockPattern* pattern_ = nullptr;
  const double* sigma_ = nullptr;
  Eigen::MatrixXd sigma_lin_;
  Eigen::VectorXd sigma_lin_u_;
  Index u_global_ = -1;
  // Sparse, per pattern: each factor pair's level-pair index of every local row; where each
  // local row's group block (factor f) and level-pair block (pair p) sit in its chunk's packed
  // partial; every chunk's blocks in packing order (ids: factor f's group g at block_base_[f] + g,
  // pair p's level pair at block_base_[F + p] + at), for the ordered combination; the packed
  // partial's length (the longest chunk's, the same on every rank).
  const vi::BlockPattern* indexed_ = nullptr;
  std::vector<std::vector<std::int32_t>> row_pair_;
  std::vector<std::vector<std::int32_t>> row_block_, pair_block_;
  std::vector<std::vector<Index>> chunk_blocks_;
  std::vector<Index> block_base_;
  Index packed_len_ = 0, head_len_ = 0;
  double u_mean_ = 0.0, u_var_ = 0.0;

  // Per local row, from the last gradient pass: dE_i/dv_i (meanfield Hessian-vector products).
  Eigen::VectorXd row_d_var_;
  Eigen::VectorXd direction_;  // hessian_times' d over the design coordinates
  // Meanfield, from the last gradient pass: sum_i dE_i/dCov(eta_i, u) x~_i over the design
  // coordinates, and d/du_var summed.
  Eigen::VectorXd cross_u_;
  double d_u_var_ = 0.0;

  std::vector<std::unique_ptr<ThreadScratch>> scratch_;  // one per thread, for the current family
  int scratch_kind_ = -1;  // 0 meanfield, 1 fullrank, 2 sparse
  Eigen::VectorXd total_;
  long passes_ = 0;
};

extern template class ExpectedLikelihood<double>;
extern template class ExpectedLikelihood<float>;

}  // namespace bvi::models
