#pragma once
// The log likelihood's Hessian between crossed grouping factors' effects (users x items, students
// x lecturers), for the Monte Carlo method's sparse family (vi::PairCurvature). The step's
// Hessian-vector products give every other entry on the pattern; these they cannot separate.
//
// For a likelihood whose row n sees the group effects only through its linear predictor eta_n
// (Likelihood::eta_curvature: student_t, the ordinal ones), the entry between effect e of level g1
// of factor f1 and effect k of level g2 of factor f2 is
//   sum over the rows of both levels of l_n''(eta_n) z_(f1, e, n) z_(f2, k, n),
// one pass over the rows for every draw: eta (one GEMM per block of rows, as the log joint's), each
// row's l_n'' summed over the draws, then times the rows' effect covariates into its level pair's
// block. Cost O(S N D + N sum K1 K2), whatever the number of levels each level shares rows with.
//
// A chunk's partial holds only the level pairs its rows touch, packed (as the exact method's sparse
// pass does, expected_likelihood_sparse.cpp), and the chunks are added in chunk order into the
// pattern's slots: every thread and rank count gives the same bits.
#include <Eigen/Core>
#include <memory>
#include <vector>

#include "inference/reduce/chunk_reducer.hpp"
#include "inference/sparse/block_pattern.hpp"
#include "inference/sparse/pair_curvature.hpp"
#include "models/data_view.hpp"
#include "models/model.hpp"

namespace bvi::models {

// Whether the model's likelihood gives the rows' curvature in eta (CrossedCurvature's need).
bool crossed_curvature_fits(const Model& model);

template <class T>
class CrossedCurvature final : public vi::PairCurvature {
 public:
  // std::invalid_argument when the likelihood has no eta_curvature or the pattern's factors are
  // not the data's grouping factors (one per factor, the same effects). All references must outlive
  // this. Collective under MPI (every rank constructs it).
  CrossedCurvature(const Model& model, DataView<T> data, reduce::ChunkReducer& reducer,
                   std::shared_ptr<const vi::BlockPattern> pattern);

  // The crossed pairs it fills (indexes into pattern.pairs(); HessianProbes::crossed_pairs).
  const std::vector<std::size_t>& pairs() const { return pairs_; }

  // Collective under MPI: every rank passes the same theta.
  void add(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::VectorXd& values) override;

 private:
  void pack();
  // Chunk `chunk`'s rows into its packed partial, on thread `thread`'s scratch.
  void add_chunk(int thread, Index chunk, double* partial);

  const Model& model_;
  DataView<T> data_;
  reduce::ChunkReducer& reducer_;
  std::shared_ptr<const vi::BlockPattern> pattern_;
  std::vector<std::size_t> pairs_;
  // Per crossed pair, per local row: where its level pair's block sits in the row's chunk's partial.
  std::vector<std::vector<std::int32_t>> row_at_;
  // Per chunk of every rank: the blocks of its partial in order, as (crossed pair, level pair).
  std::vector<std::vector<std::pair<std::int32_t, std::int32_t>>> chunk_blocks_;
  Index packed_len_ = 0;
  Eigen::MatrixXd params_;  // the draws, constrained
  struct Scratch {
    Eigen::MatrixXd eta, out;
    Eigen::RowVectorXd row_sum;
    std::vector<double> z1, z2;
  };
  std::vector<Scratch> scratch_;  // per thread
};

extern template class CrossedCurvature<double>;
extern template class CrossedCurvature<float>;

}  // namespace bvi::models
