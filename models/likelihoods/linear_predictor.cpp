#include "models/likelihoods/linear_predictor.hpp"

#include <new>
#include <stdexcept>

#include "inference/ad/ad.hpp"

namespace bvi::models {

LinearPredictor::LinearPredictor(const ParameterLayout& layout, const std::string& likelihood) {
  const ParameterBlock* beta = layout.find("beta");
  if (!beta) throw std::logic_error(likelihood + " needs a beta parameter");
  beta_offset_ = beta->offset;
  beta_size_ = beta->size;
  if (const ParameterBlock* alpha = layout.find("alpha")) alpha_offset_ = alpha->offset;
  // The group effects' blocks, in the order of the model's group terms (Model::build).
  for (const auto& b : layout.blocks())
    if (b.name.compare(0, 2, "r_") == 0) r_blocks_.push_back({b.offset, b.size});
  r_start_ = group_effects_start(layout, likelihood);
}

Index group_effects_start(const ParameterLayout& layout, const std::string& likelihood) {
  Index start = layout.dim(), end = -1;
  for (const auto& b : layout.blocks()) {
    const bool r = b.name.compare(0, 2, "r_") == 0;
    if (r && end < 0) start = end = b.offset;
    if (end >= 0 && (!r || b.offset != end))
      throw std::logic_error(likelihood + ": the layout's group effects are not its last blocks, in one run");
    if (r) end += b.size;
  }
  return start;
}

template <class T>
ad::Var LinearPredictor::group_effects(const ad::Var& params, const DataBlock<T>& block) const {
  if (block.n_groups == 0) return ad::Var();
  if (block.n_groups != static_cast<int>(r_blocks_.size()))
    throw std::logic_error("the data's grouping factors do not match the model's group effects");
  ad::Tape& tape = params.tape();
  auto* terms = tape.arena().allocate_array<ad::GroupTermRows<T>>(static_cast<std::size_t>(block.n_groups));
  for (int f = 0; f < block.n_groups; ++f) {
    const data::GroupData<T>& g = block.groups[f];
    if (r_blocks_[static_cast<std::size_t>(f)].second != g.groups() * g.effects())
      throw std::logic_error("r_" + g.ident + " has the wrong size");
    const GroupTermColumns cols = group_term_columns(r_start_, block, f, 1);
    ad::GroupTermRows<T>* t = new (terms + f) ad::GroupTermRows<T>();
    t->r = params.cols(cols.offset, cols.groups * g.effects());
    t->level = cols.level;
    t->n_slopes = g.slopes.cols();
    t->slopes = t->n_slopes > 0 ? g.slopes.data() + block.first_local * t->n_slopes : nullptr;
    t->intercept = g.intercept;
  }
  return ad::group_effects<T>(terms, block.n_groups, block.rows);
}

template <class T>
ad::Var LinearPredictor::composed(const ad::Var& params, const DataBlock<T>& block) const {
  ad::Tape& tape = params.tape();
  const Index m = block.rows, D = block.cols;
  // A row-major m x D block is, read column-major, the D x m matrix X^T: no copy for double.
  ad::Var xt;
  if constexpr (std::is_same_v<T, double>) {
    xt = tape.constant(block.x, D, m);
  } else {
    double* xd = tape.scratch(m * D);
    for (Index i = 0; i < m * D; ++i) xd[i] = block.x[i];
    xt = tape.constant(xd, D, m);
  }
  ad::Var z = ad::matmul(beta(params), xt);
  if (has_alpha()) z = ad::add(z, alpha(params));
  if (block.offset) z = ad::add(z, tape.constant(block.offset, 1, m));
  if (block.n_groups > 0) z = ad::add(z, group_effects(params, block));
  return z;
}

template <class T>
void LinearPredictor::values(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<T>& block,
                             Eigen::MatrixXd& eta) const {
  const Index S = params.rows(), m = block.rows, D = block.cols;
  keep_columns(eta, S, m);
  // X^T read column-major from the row-major block: one GEMM for every draw and row.
  using Xt = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>;
  if constexpr (std::is_same_v<T, double>) {
    eta.leftCols(m).noalias() = params.middleCols(beta_offset_, beta_size_) * Xt(block.x, D, m);
  } else {
    // float32 features in doubles first: a cast inside the product would be a temporary per block.
    thread_local Eigen::MatrixXd xd;
    keep_columns(xd, D, m);
    xd.leftCols(m) = Xt(block.x, D, m).template cast<double>();
    eta.leftCols(m).noalias() = params.middleCols(beta_offset_, beta_size_) * xd.leftCols(m);
  }
  if (has_alpha()) eta.leftCols(m).colwise() += params.col(alpha_offset_);
  if (block.offset)
    for (Index n = 0; n < m; ++n) eta.col(n).array() += block.offset[n];
  for (int f = 0; f < block.n_groups; ++f) {
    const data::GroupData<T>& g = block.groups[f];
    const GroupTermColumns cols = group_term_columns(r_start_, block, f, 1);
    const Index K = g.effects();
    for (Index n = 0; n < m; ++n) {
      const Index row = block.first_local + n, col = cols.offset + cols.level[n] * K;
      Index k = 0;
      if (g.intercept) eta.col(n) += params.col(col + k++);
      for (Index j = 0; k < K; ++j, ++k) eta.col(n) += static_cast<double>(g.slopes(row, j)) * params.col(col + k);
    }
  }
}

template void LinearPredictor::values<double>(const Eigen::Ref<const Eigen::MatrixXd>&, const DataBlock<double>&,
                                              Eigen::MatrixXd&) const;
template void LinearPredictor::values<float>(const Eigen::Ref<const Eigen::MatrixXd>&, const DataBlock<float>&,
                                             Eigen::MatrixXd&) const;

template <class T>
ad::Var LinearPredictor::weighted_row_sums(const DataBlock<T>& block, const ad::Var& per_row) {
  if (!block.weight) return ad::row_sums(per_row);
  return ad::row_sums(ad::multiply(per_row, per_row.tape().constant(block.weight, 1, block.rows)));
}

template ad::Var LinearPredictor::weighted_row_sums<double>(const DataBlock<double>&, const ad::Var&);
template ad::Var LinearPredictor::weighted_row_sums<float>(const DataBlock<float>&, const ad::Var&);
template ad::Var LinearPredictor::group_effects<double>(const ad::Var&, const DataBlock<double>&) const;
template ad::Var LinearPredictor::group_effects<float>(const ad::Var&, const DataBlock<float>&) const;
template ad::Var LinearPredictor::composed<double>(const ad::Var&, const DataBlock<double>&) const;
template ad::Var LinearPredictor::composed<float>(const ad::Var&, const DataBlock<float>&) const;

}  // namespace bvi::models
