#pragma once
// A multivariate normal with a full covariance: zeta = mu + L eps, L lower triangular with a
// positive diagonal. params() = [mu (P), then L's lower triangle column by column (P(P+1)/2),
// where each diagonal entry is stored as its log] so the diagonal stays positive.
#include "inference/families/family.hpp"

namespace bvi::vi {

class FullRank final : public Family {
 public:
  explicit FullRank(Index dim);
  std::string name() const override { return "fullrank"; }
  std::unique_ptr<Family> clone() const override { return std::make_unique<FullRank>(*this); }

  Eigen::MatrixXd cholesky() const;  // L
  void set_cholesky(const Eigen::MatrixXd& L);

  void transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                 Eigen::Ref<Eigen::MatrixXd> zeta) const override;
  // d/dmu = mean_s g_s;  d/dL_ij = mean_s g_si eps_sj (i > j);
  // d/d log L_ii = (mean_s g_si eps_si) L_ii + 1 (the entropy's share).
  void elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                     const Eigen::Ref<const Eigen::MatrixXd>& grad_logp,
                     Eigen::VectorXd& grad) const override;
  double log_det_scale() const override;
  Eigen::VectorXd marginal_sd() const override;
  Eigen::MatrixXd covariance() const override;
  void set_initial_scale(double s) override { set_cholesky(s * Eigen::MatrixXd::Identity(dim_, dim_)); }

 private:
  // Index in params() of L(i, j), i >= j.
  void fill_cholesky(Eigen::MatrixXd& L) const;
  Index slot(Index i, Index j) const { return dim_ + j * dim_ - j * (j - 1) / 2 + (i - j); }
  mutable Eigen::MatrixXd L_, GtE_;  // scratch, reused across steps
};

}  // namespace bvi::vi
