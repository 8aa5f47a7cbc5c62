#pragma once
// The linear predictor every likelihood here shares, eta = alpha + x . beta (+ offset): where
// alpha and beta sit in the parameter columns, the arguments of the fused GLM ops, and eta on the
// tape from generic ops for the composed path (the reference the fused ops are tested against).
#include <string>

#include "inference/ad/ops/glm_rows.hpp"
#include "inference/ad/var.hpp"
#include "models/likelihoods/likelihood.hpp"

namespace bvi::models {

class LinearPredictor {
 public:
  // `likelihood` names the caller in the error for a layout without beta (a programming error).
  LinearPredictor(const ParameterLayout& layout, const std::string& likelihood);

  ad::Var beta(const ad::Var& params) const { return params.cols(beta_offset_, beta_size_); }
  bool has_alpha() const { return alpha_offset_ >= 0; }
  ad::Var alpha(const ad::Var& params) const { return params.col(alpha_offset_); }

  // Calls op(const Var* alpha_or_null, const Var& beta): the fused ops' first two arguments.
  template <class Op>
  ad::Var fused(const ad::Var& params, Op&& op) const {
    if (!has_alpha()) return op(static_cast<const ad::Var*>(nullptr), beta(params));
    const ad::Var a = alpha(params);
    return op(&a, beta(params));
  }

  // The block's rows as the fused ops read them.
  template <class T>
  static ad::GlmRows rows(const DataBlock<T>& block) {
    ad::GlmRows r;
    r.y = block.y;
    r.trials = block.trials;
    r.offset = block.offset;
    r.log_constant = block.log_constant;
    r.rows = block.rows;
    return r;
  }

  // eta = beta X^T (+ alpha) (+ offset) as an S x m Var from matmul and add.
  template <class T>
  ad::Var composed(const ad::Var& params, const DataBlock<T>& block) const;

 private:
  Index beta_offset_ = 0, beta_size_ = 0;
  Index alpha_offset_ = -1;  // -1: no intercept
};

}  // namespace bvi::models
