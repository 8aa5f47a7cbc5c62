#include "models/likelihoods/categorical_logit.hpp"

#include <cmath>
#include <new>
#include <stdexcept>

#include "inference/ad/ad.hpp"
#include "models/likelihoods/linear_predictor.hpp"
#include "models/likelihoods/ordinal.hpp"
#include "models/likelihoods/response_checks.hpp"

namespace bvi::models {

CategoricalLogit::CategoricalLogit(const ParameterLayout& layout, bool /*fused: there is one path*/) {
  const ParameterBlock* beta = layout.find("beta");
  if (!beta) throw std::logic_error("categorical_logit needs a beta parameter");
  beta_offset_ = beta->offset;
  beta_size_ = beta->size;
  if (const ParameterBlock* alpha = layout.find("alpha")) alpha_offset_ = alpha->offset;
  categories_ = layout.categories();
  reference_ = layout.reference_category();
  // The group effects' blocks, in the order of the model's group terms (Model::build), each
  // category-major: category c's effects are the run of size / C columns from offset + c size / C.
  for (const auto& b : layout.blocks())
    if (b.name.compare(0, 2, "r_") == 0) r_blocks_.push_back({b.offset, b.size});
  r_start_ = group_effects_start(layout, name());
}

// An integer category 1, 2, ...: K is the largest in the data unless the config gives it.
std::string CategoricalLogit::check_response(double y) const {
  const int top = categories_ > 0 ? categories_ : kMaxOrdinalLevels;
  if (y >= 1.0 && y <= top && std::floor(y) == y) return "";
  return "response must be an integer category 1, 2, ..., " + std::to_string(top) + " for categorical_logit" +
         (categories_ > 0 ? " (the model's K)" : "") + ", got " + shortest_text(y);
}

template <class T>
ad::Var CategoricalLogit::evaluate(const ad::Var& params, const DataBlock<T>& block) const {
  if (categories_ < 2) throw std::logic_error("categorical_logit: the layout does not know K");
  const ad::Var beta = params.cols(beta_offset_, beta_size_);
  const ad::Var alpha = alpha_offset_ >= 0 ? params.cols(alpha_offset_, categories_ - 1) : ad::Var();
  const ad::Var* group = block.n_groups > 0 ? group_effects(params, block) : nullptr;
  return ad::categorical_logit_glm<T>(alpha_offset_ >= 0 ? &alpha : nullptr, beta, block.x,
                                      LinearPredictor::rows(block), categories_, reference_, group);
}

// Per non-reference category c, sum_F sum_k z_k r_F[c][group_F(row), k] as an S x m Var: the
// gather op once per category over that category's slice of every factor's effects.
template <class T>
const ad::Var* CategoricalLogit::group_effects(const ad::Var& params, const DataBlock<T>& block) const {
  if (block.n_groups != static_cast<int>(r_blocks_.size()))
    throw std::logic_error("the data's grouping factors do not match the model's group effects");
  ad::Tape& tape = params.tape();
  const Index C = categories_ - 1;
  auto* out = tape.arena().allocate_array<ad::Var>(static_cast<std::size_t>(C));
  auto* terms = tape.arena().allocate_array<ad::GroupTermRows<T>>(static_cast<std::size_t>(block.n_groups));
  for (Index c = 0; c < C; ++c) {
    for (int f = 0; f < block.n_groups; ++f) {
      const data::GroupData<T>& g = block.groups[f];
      if (r_blocks_[static_cast<std::size_t>(f)].second != C * g.groups() * g.effects())
        throw std::logic_error("r_" + g.ident + " has the wrong size");
      const GroupTermColumns cols = group_term_columns(r_start_, block, f, C);
      const Index width = cols.groups * g.effects();  // one category's
      ad::GroupTermRows<T>* t = new (terms + f) ad::GroupTermRows<T>();
      t->r = params.cols(cols.offset + c * width, width);
      t->level = cols.level;
      t->n_slopes = g.slopes.cols();
      t->slopes = t->n_slopes > 0 ? g.slopes.data() + block.first_local * t->n_slopes : nullptr;
      t->intercept = g.intercept;
    }
    new (out + c) ad::Var(ad::group_effects<T>(terms, block.n_groups, block.rows));
  }
  return out;
}

ad::Var CategoricalLogit::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return evaluate(params, block);
}
ad::Var CategoricalLogit::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return evaluate(params, block);
}

void CategoricalLogit::expected_log_lik(const EtaMoments&, const ad::GlmRows&, RowExpectations&,
                                        quadrature::ExpectationScratch&) const {
  throw std::logic_error("categorical_logit has no exact expectation (the config resolves it to monte_carlo)");
}

}  // namespace bvi::models
