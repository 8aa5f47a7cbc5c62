#pragma once
// A multivariate normal stored by its precision on a sparse pattern (inference/sparse/): q = N(mu,
// Lambda^-1), Lambda zero off the BlockPattern of the model's posterior precision (the Hessian's
// pattern, known from the design), so it holds dense fullrank's optimum at a cost linear in the
// number of groups. params() = [mu (P), Lambda's values on the pattern (BlockPattern layout)].
// Draws are zeta = mu + P' L^-T eps (a sparse triangular solve), so log |det C| = -log det Lambda / 2.
// The exact method fits it (exact_vi.cpp); it has no Monte Carlo ELBO gradient.
#include <memory>

#include "inference/families/family.hpp"
#include "inference/sparse/sparse_factor.hpp"

namespace bvi::vi {

class SparsePrecision final : public Family {
 public:
  explicit SparsePrecision(std::shared_ptr<const BlockPattern> pattern);
  std::string name() const override { return "sparse"; }
  std::unique_ptr<Family> clone() const override { return std::make_unique<SparsePrecision>(*this); }

  const BlockPattern& pattern() const { return *pattern_; }
  const std::shared_ptr<const BlockPattern>& shared_pattern() const { return pattern_; }
  auto precision() const { return params_.tail(params_.size() - dim_); }
  auto precision() { return params_.tail(params_.size() - dim_); }

  void transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                 Eigen::Ref<Eigen::MatrixXd> zeta) const override;
  void elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                     const Eigen::Ref<const Eigen::MatrixXd>& grad_logp,
                     Eigen::VectorXd& grad) const override;
  double log_det_scale() const override;
  Eigen::VectorXd marginal_sd() const override;
  // Dense: for small P only (tests, reports of a few parameters).
  Eigen::MatrixXd covariance() const override;
  void set_initial_scale(double s) override;

  // The factorization workspace this q (and its clones) factorize the precision in: a GaussianQ
  // over q's own precision may share it, so that a factorization and selected inverse of the same
  // values is not repeated (SparseFactor keeps both for the last values it factorized).
  const std::shared_ptr<SparseFactor>& shared_factor() const;

 private:
  // The factorization of the current precision (a shared workspace: the symbolic analysis is
  // done once per pattern).
  SparseFactor& factor() const;
  std::shared_ptr<const BlockPattern> pattern_;
  mutable std::shared_ptr<SparseFactor> factor_;
};

}  // namespace bvi::vi
