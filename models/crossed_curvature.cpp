#include "models/crossed_curvature.hpp"

#include <stdexcept>
#include <string>

#include "inference/sparse/hessian_probes.hpp"

namespace bvi::models {

namespace {

// Row r's covariates of a factor's K effects: 1 for its intercept, then the slopes' values.
template <class T>
void covariates(const data::GroupData<T>& gd, Index r, std::vector<double>& z) {
  std::size_t k = 0;
  if (gd.intercept) z[k++] = 1.0;
  for (Index j = 0; j < gd.slopes.cols(); ++j) z[k++] = static_cast<double>(gd.slopes(r, j));
}

}  // namespace

bool crossed_curvature_fits(const Model& model) { return model.likelihood().has_eta_curvature(); }

template <class T>
CrossedCurvature<T>::CrossedCurvature(const Model& model, DataView<T> data, reduce::ChunkReducer& reducer,
                                      std::shared_ptr<const vi::BlockPattern> pattern)
    : model_(model), data_(data), reducer_(reducer), pattern_(std::move(pattern)) {
  if (!crossed_curvature_fits(model_))
    throw std::invalid_argument(model_.likelihood().name() + " gives no curvature in its linear predictor");
  const auto& factors = pattern_->factors();
  if (static_cast<int>(factors.size()) != data_.n_groups)
    throw std::invalid_argument("crossed curvature: the pattern's factors are not the data's grouping factors");
  for (std::size_t f = 0; f < factors.size(); ++f)
    if (factors[f].effects != data_.groups[f].effects() || factors[f].groups != data_.groups[f].groups())
      throw std::invalid_argument("crossed curvature: factor " + std::to_string(f + 1) +
                                  " of the pattern is not the data's");
  pairs_ = vi::HessianProbes::crossed_pairs(*pattern_);
  scratch_.resize(static_cast<std::size_t>(reducer_.threads()));
  pack();
}

template <class T>
void CrossedCurvature<T>::pack() {
  const vi::BlockPattern& pat = *pattern_;
  const std::size_t Q = pairs_.size();
  std::vector<Index> base(Q + 1, 0), size_of(Q);
  for (std::size_t q = 0; q < Q; ++q) {
    const auto& pr = pat.pairs()[pairs_[q]];
    base[q + 1] = base[q] + static_cast<Index>(pr.levels.size());
    size_of[q] = pat.factors()[static_cast<std::size_t>(pr.f1)].effects *
                 pat.factors()[static_cast<std::size_t>(pr.f2)].effects;
  }
  row_at_.assign(Q, std::vector<std::int32_t>(static_cast<std::size_t>(data_.rows)));
  std::vector<Index> where(static_cast<std::size_t>(base.back()), -1);  // a block's position in its chunk
  std::vector<double> mine;  // per owned chunk: [count, then (pair, level pair) each]
  Index longest = 0;
  for (Index c = reducer_.first_chunk(); c < reducer_.last_chunk(); ++c) {
    const auto [begin, end] = data_.chunk_rows(reducer_.plan(), c);
    std::vector<std::pair<std::int32_t, std::int32_t>> blocks;
    Index at = 0;
    for (Index r = begin; r < end; ++r)
      for (std::size_t q = 0; q < Q; ++q) {
        const auto& pr = pat.pairs()[pairs_[q]];
        const auto l1 = data_.groups[pr.f1].level[static_cast<std::size_t>(r)];
        const auto l2 = data_.groups[pr.f2].level[static_cast<std::size_t>(r)];
        const Index found = pat.find_pair(pairs_[q], l1, l2);
        if (found < 0) throw std::logic_error("crossed curvature: a row's level pair is not in the sparse pattern");
        Index& w = where[static_cast<std::size_t>(base[q] + found)];
        if (w < 0) {
          w = at;
          at += size_of[q];
          blocks.emplace_back(static_cast<std::int32_t>(q), static_cast<std::int32_t>(found));
        }
        row_at_[q][static_cast<std::size_t>(r)] = static_cast<std::int32_t>(w);
      }
    for (const auto& [q, found] : blocks) where[static_cast<std::size_t>(base[q] + found)] = -1;
    longest = std::max(longest, at);
    mine.push_back(static_cast<double>(blocks.size()));
    for (const auto& [q, found] : blocks) {
      mine.push_back(q);
      mine.push_back(found);
    }
  }
  // Every chunk's list on every rank (each rank adds every chunk), and the longest partial of all.
  reduce::Communicator& comm = reducer_.comm();
  const std::vector<double> all = reduce::all_doubles(mine, comm);
  long len = longest;
  comm.allreduce_max(&len, 1);
  chunk_blocks_.assign(static_cast<std::size_t>(reducer_.plan().n_chunks), {});
  std::size_t at = 0;
  for (auto& blocks : chunk_blocks_) {
    const auto count = static_cast<std::size_t>(all.at(at++));
    blocks.reserve(count);
    for (std::size_t k = 0; k < count; ++k, at += 2)
      blocks.emplace_back(static_cast<std::int32_t>(all.at(at)), static_cast<std::int32_t>(all.at(at + 1)));
  }
  packed_len_ = std::max<Index>(1, len);
}

template <class T>
void CrossedCurvature<T>::add(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::VectorXd& values) {
  if (pairs_.empty() || theta.rows() == 0) return;
  model_.constrain_values(theta, params_);
  // What the work needs, behind one pointer: lambdas capturing it all would not fit
  // std::function's small buffer and would allocate on every pass.
  struct Pass {
    CrossedCurvature& self;
    Eigen::VectorXd& values;
  } ctx{*this, values};
  reducer_.sum(
      packed_len_,
      [w = &ctx](int thread, Index chunk, double* partial) { w->self.add_chunk(thread, chunk, partial); },
      [w = &ctx](Index chunk, const double* slot) {
        const vi::BlockPattern& pat = *w->self.pattern_;
        Index at = 0;
        for (const auto& [q, found] : w->self.chunk_blocks_[static_cast<std::size_t>(chunk)]) {
          const std::size_t p = w->self.pairs_[static_cast<std::size_t>(q)];
          const auto& pr = pat.pairs()[p];
          const Index len = pat.factors()[static_cast<std::size_t>(pr.f1)].effects *
                            pat.factors()[static_cast<std::size_t>(pr.f2)].effects;
          double* dst = w->values.data() + pat.pair_block(p, found);
          for (Index j = 0; j < len; ++j) dst[j] += slot[at + j];
          at += len;
        }
      },
      // eta's GEMM, the curvature and the blocks: a few flops per draw, row and feature
      4.0 * static_cast<double>(theta.rows()) * static_cast<double>(data_.rows) * static_cast<double>(data_.cols + 8));
}

template <class T>
void CrossedCurvature<T>::add_chunk(int thread, Index chunk, double* partial) {
  const vi::BlockPattern& pat = *pattern_;
  const Likelihood& lik = model_.likelihood();
  const reduce::ShardPlan& plan = reducer_.plan();
  Scratch& sc = scratch_[static_cast<std::size_t>(thread)];
  const auto [begin, end] = data_.chunk_rows(plan, chunk);
  for (Index local = begin; local < end; local += plan.block_rows) {
    const Index m = std::min(plan.block_rows, end - local);
    const DataBlock<T> block = data_.block(local, m);
    // eta and out keep their columns from block to block (Likelihood::eta_curvature): the first m.
    if (!lik.eta_curvature(params_, block, sc.eta, sc.out))
      throw std::logic_error("crossed curvature: the likelihood gave no curvature");
    if (sc.row_sum.size() < m) sc.row_sum.resize(m);
    sc.row_sum.head(m).noalias() = sc.out.leftCols(m).colwise().sum();
    for (std::size_t q = 0; q < pairs_.size(); ++q) {
      const auto& pr = pat.pairs()[pairs_[q]];
      const data::GroupData<T>& g1 = data_.groups[pr.f1];
      const data::GroupData<T>& g2 = data_.groups[pr.f2];
      const Index K1 = g1.effects(), K2 = g2.effects();
      sc.z1.resize(static_cast<std::size_t>(K1));
      sc.z2.resize(static_cast<std::size_t>(K2));
      for (Index n = 0; n < m; ++n) {
        const Index r = local + n;
        covariates(g1, r, sc.z1);
        covariates(g2, r, sc.z2);
        double* blk = partial + row_at_[q][static_cast<std::size_t>(r)];
        const double c = sc.row_sum[n];
        for (Index e = 0; e < K1; ++e)
          for (Index k = 0; k < K2; ++k)
            blk[e * K2 + k] += c * sc.z1[static_cast<std::size_t>(e)] * sc.z2[static_cast<std::size_t>(k)];
      }
    }
  }
}

template class CrossedCurvature<double>;
template class CrossedCurvature<float>;

}  // namespace bvi::models
