#pragma once
// The linear predictor every likelihood here shares,
//   eta = alpha + x . beta (+ offset) + sum_F sum_k z_k r_F[group_F(row), k],
// the last part the group-level effects (gathered by group index, ad::group_effects): where
// alpha, beta and r_F sit in the parameter columns, the arguments of the fused GLM ops (the group
// part is their extra S x m term), and eta on the tape from generic ops for the composed path
// (the reference the fused ops are tested against).
#include <string>
#include <utility>
#include <vector>

#include "inference/ad/ops/glm_rows.hpp"
#include "inference/ad/var.hpp"
#include "models/likelihoods/likelihood.hpp"

namespace bvi::models {

// Where grouping factor f's effects sit in the params a likelihood gets for `block`: their first
// column, the levels they hold (categories x groups x K columns from offset, category-major, each
// level's K effects together) and the block's rows' levels in that numbering. The model's columns
// (every level, the r blocks one after another from r_start, as Model::build lays them out) or,
// with block.local_level, a chunk's (models/chunk_columns.hpp). `categories`: those with effects of
// their own (categorical_logit's K - 1, else 1).
struct GroupTermColumns {
  Index offset = 0;
  Index groups = 0;
  const std::int32_t* level = nullptr;
};

template <class T>
GroupTermColumns group_term_columns(Index r_start, const DataBlock<T>& block, int f, Index categories) {
  GroupTermColumns out;
  out.offset = r_start;
  for (int e = 0; e < f; ++e)
    out.offset += categories * (block.local_groups ? block.local_groups[e] : block.groups[e].groups()) *
                  block.groups[e].effects();
  out.groups = block.local_groups ? block.local_groups[f] : block.groups[f].groups();
  out.level = (block.local_level ? block.local_level[f] : block.groups[f].level.data()) + block.first_local;
  return out;
}

// The first column of the layout's group effects, its r blocks, after checking that they are its
// last blocks, one after another (what group_term_columns reads); layout.dim() without groups.
Index group_effects_start(const ParameterLayout& layout, const std::string& likelihood);

// `a` with `rows` rows and at least `cols` columns, reallocated only to grow.
inline void keep_columns(Eigen::MatrixXd& a, Index rows, Index cols) {
  if (a.rows() != rows || a.cols() < cols) a.resize(rows, cols);
}

class LinearPredictor {
 public:
  // `likelihood` names the caller in the error for a layout without beta (a programming error).
  LinearPredictor(const ParameterLayout& layout, const std::string& likelihood);

  ad::Var beta(const ad::Var& params) const { return params.cols(beta_offset_, beta_size_); }
  bool has_alpha() const { return alpha_offset_ >= 0; }
  ad::Var alpha(const ad::Var& params) const { return params.col(alpha_offset_); }

  // Calls op(const Var* alpha_or_null, const Var& beta, const Var* group_effects_or_null): the
  // fused ops' alpha and beta, and their extra linear-predictor term.
  template <class Op, class T>
  ad::Var fused(const ad::Var& params, const DataBlock<T>& block, Op&& op) const {
    const ad::Var e = group_effects(params, block);
    const ad::Var* extra = e.cols() > 0 ? &e : nullptr;
    if (!has_alpha()) return op(static_cast<const ad::Var*>(nullptr), beta(params), extra);
    const ad::Var a = alpha(params);
    return op(&a, beta(params), extra);
  }

  // The block's group-level effects, S x m (ad::group_effects); an empty Var without groups.
  template <class T>
  ad::Var group_effects(const ad::Var& params, const DataBlock<T>& block) const;

  // The block's rows as the fused ops read them.
  template <class T>
  static ad::GlmRows rows(const DataBlock<T>& block) {
    ad::GlmRows r;
    r.y = block.y;
    r.trials = block.trials;
    r.offset = block.offset;
    r.log_constant = block.log_constant;
    r.weight = block.weight;
    r.rows = block.rows;
    return r;
  }

  // The composed path's sum over the block's rows, S x m -> S x 1: sum_n w_n l_sn, each column
  // multiplied by its row's weight first when the block has weights (block.weight), else row_sums.
  template <class T>
  static ad::Var weighted_row_sums(const DataBlock<T>& block, const ad::Var& per_row);

  // eta = beta X^T (+ alpha) (+ offset) as an S x m Var from matmul and add.
  template <class T>
  ad::Var composed(const ad::Var& params, const DataBlock<T>& block) const;

  // The same values without a tape: eta's first m columns (S x m; eta grows to S x m at least,
  // never shrinks) for the S constrained draws in `params` (S x P, column-major), group effects and
  // offset included (Likelihood::eta_curvature's input).
  template <class T>
  void values(const Eigen::Ref<const Eigen::MatrixXd>& params, const DataBlock<T>& block, Eigen::MatrixXd& eta) const;

 private:
  Index beta_offset_ = 0, beta_size_ = 0;
  Index alpha_offset_ = -1;  // -1: no intercept
  std::vector<std::pair<Index, Index>> r_blocks_;  // per grouping factor: r_F's offset and size
  Index r_start_ = 0;                              // the first one's offset (group_effects_start)
};

}  // namespace bvi::models
