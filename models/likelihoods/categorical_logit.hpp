#pragma once
// Multinomial logit regression for unordered categories 1 ... K (brms's categorical, statsmodels'
// MNLogit, Stan's categorical_logit):
//   P(y_n = k) = exp(eta_nk) / sum_j exp(eta_nj),  eta_{n,ref} = 0,
//   eta_nk = alpha_k + x_n . beta_k for every category k but the reference one,
// so each non-reference category has its own intercept alpha.k and coefficients beta.k.j (the
// layout's categories and reference_category, set by Model::build; beta's columns feature-major).
// K is the largest category in the data or /model/categories. Only the Monte Carlo method fits it
// (each row's expectation is a (K - 1)-dimensional integral). Group effects (brms's (1 + x | g)
// with family categorical): each non-reference category k has its own r_g.k.l.e, sd_g.k.e and
// cor_g.k.i.j, gathered by group index per category (ad::group_effects) and added to eta_k.
#include <utility>
#include <vector>

#include "models/likelihoods/likelihood.hpp"

namespace bvi::models {

class CategoricalLogit final : public Likelihood {
 public:
  CategoricalLogit(const ParameterLayout& layout, bool fused);
  std::string name() const override { return "categorical_logit"; }
  ResponseKind response_kind() const override { return ResponseKind::categorical; }
  std::string check_response(double y) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const override;
  ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const override;
  // Never called: the config refuses the exact method for categorical_logit.
  void expected_log_lik(const EtaMoments& eta, const ad::GlmRows& rows, RowExpectations& out,
                        quadrature::ExpectationScratch& scratch) const override;

  int levels() const { return categories_; }
  int reference() const { return reference_; }

 private:
  template <class T>
  ad::Var evaluate(const ad::Var& params, const DataBlock<T>& block) const;
  // K - 1 Vars (S x m each) on the tape's arena: each category's group part of eta.
  template <class T>
  const ad::Var* group_effects(const ad::Var& params, const DataBlock<T>& block) const;

  Index alpha_offset_ = -1;  // -1: no intercepts
  Index beta_offset_ = 0, beta_size_ = 0;
  int categories_ = 0, reference_ = 1;  // categories_ 0: not known (the data reader's probe)
  std::vector<std::pair<Index, Index>> r_blocks_;  // per grouping factor: r_F's offset and size
  Index r_start_ = 0;                              // the first one's offset (group_effects_start)
};

}  // namespace bvi::models
