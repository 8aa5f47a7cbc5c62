#include "models/likelihoods/linear_predictor.hpp"

#include <stdexcept>

#include "inference/ad/ad.hpp"

namespace bvi::models {

LinearPredictor::LinearPredictor(const ParameterLayout& layout, const std::string& likelihood) {
  const ParameterBlock* beta = layout.find("beta");
  if (!beta) throw std::logic_error(likelihood + " needs a beta parameter");
  beta_offset_ = beta->offset;
  beta_size_ = beta->size;
  if (const ParameterBlock* alpha = layout.find("alpha")) alpha_offset_ = alpha->offset;
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
  return z;
}

template ad::Var LinearPredictor::composed<double>(const ad::Var&, const DataBlock<double>&) const;
template ad::Var LinearPredictor::composed<float>(const ad::Var&, const DataBlock<float>&) const;

}  // namespace bvi::models
