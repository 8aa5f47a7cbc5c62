#include "models/likelihoods/bernoulli_logit.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "inference/ad/ad.hpp"

namespace bvi::models {

BernoulliLogit::BernoulliLogit(const ParameterLayout& layout, bool fused) : fused_(fused) {
  const ParameterBlock* beta = layout.find("beta");
  if (!beta) throw std::logic_error("bernoulli_logit needs a beta parameter");
  beta_offset_ = beta->offset;
  beta_size_ = beta->size;
  if (const ParameterBlock* alpha = layout.find("alpha")) alpha_offset_ = alpha->offset;
}

std::string BernoulliLogit::check_response(double y) const {
  if (y == 0.0 || y == 1.0) return "";
  std::ostringstream os;
  os.precision(17);
  os << "response must be 0 or 1 for bernoulli_logit, got " << y;
  return os.str();
}

template <class T>
ad::Var BernoulliLogit::fused(const ad::Var& params, const DataBlock<T>& block) const {
  const ad::Var beta = params.cols(beta_offset_, beta_size_);
  if (alpha_offset_ < 0) return ad::bernoulli_logit_glm<T>(nullptr, beta, block.x, block.y, block.rows);
  const ad::Var alpha = params.col(alpha_offset_);
  return ad::bernoulli_logit_glm<T>(&alpha, beta, block.x, block.y, block.rows);
}

// The same density composed from generic ops, kept as the reference the fused primitive is
// tested against and as the path any new likelihood starts from:
//   row_sums(log_sigmoid(t .* (beta X^T + alpha))).
template <class T>
ad::Var BernoulliLogit::composed(const ad::Var& params, const DataBlock<T>& block) const {
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
  double* t = tape.scratch(m);
  for (Index n = 0; n < m; ++n) t[n] = block.y[n] > 0.5 ? 1.0 : -1.0;
  ad::Var z = ad::matmul(params.cols(beta_offset_, beta_size_), xt);
  if (alpha_offset_ >= 0) z = ad::add(z, params.col(alpha_offset_));
  return ad::row_sums(ad::log_sigmoid(ad::multiply(z, tape.constant(t, 1, m))));
}

ad::Var BernoulliLogit::log_lik(const ad::Var& params, const DataBlock<double>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}
ad::Var BernoulliLogit::log_lik(const ad::Var& params, const DataBlock<float>& block) const {
  return fused_ ? fused(params, block) : composed(params, block);
}

}  // namespace bvi::models
