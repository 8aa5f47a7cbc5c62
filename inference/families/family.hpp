#pragma once
// A Gaussian variational family on the unconstrained space, q(zeta) = N(mu, C C^T), sampled by
// reparameterization: zeta = mu + C eps with eps ~ N(0, I). Its parameters are one flat vector
// the optimizers update.
#include <Eigen/Core>
#include <memory>
#include <string>

namespace bvi::vi {

using Index = Eigen::Index;

class Family {
 public:
  explicit Family(Index dim, Index n_params) : dim_(dim), params_(Eigen::VectorXd::Zero(n_params)) {}
  virtual ~Family() = default;

  virtual std::string name() const = 0;
  virtual std::unique_ptr<Family> clone() const = 0;

  Index dim() const { return dim_; }
  Eigen::VectorXd& params() { return params_; }
  const Eigen::VectorXd& params() const { return params_; }
  auto mean() const { return params_.head(dim_); }

  // zeta_s = mu + C eps_s for the S rows of eps (S x P).
  virtual void transform(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                         Eigen::Ref<Eigen::MatrixXd> zeta) const = 0;
  // The gradient with respect to params() of the reparameterized ELBO estimate
  //   (1/S) sum_s log p(mu + C eps_s) + H[q],
  // given eps (S x P) and grad_logp (S x P, the gradient of log p at each zeta_s).
  virtual void elbo_gradient(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                             const Eigen::Ref<const Eigen::MatrixXd>& grad_logp,
                             Eigen::VectorXd& grad) const = 0;
  // log |det C|.
  virtual double log_det_scale() const = 0;
  virtual Eigen::VectorXd marginal_sd() const = 0;
  virtual Eigen::MatrixXd covariance() const = 0;

  // H[q] = P/2 (1 + log 2 pi) + log |det C|, every constant included.
  double entropy() const;
  // log q(zeta_s) for zeta_s = mu + C eps_s: -P/2 log 2 pi - log |det C| - |eps_s|^2 / 2.
  void log_density_of_draws(const Eigen::Ref<const Eigen::MatrixXd>& eps,
                            Eigen::Ref<Eigen::VectorXd> out) const;
  bool is_finite() const { return params_.allFinite(); }
  // Resets the scale to s I (mean unchanged).
  virtual void set_initial_scale(double s) = 0;

 protected:
  Index dim_;
  Eigen::VectorXd params_;
};

// "meanfield" or "fullrank", centred at zero with unit scale (Stan's ADVI initialization).
std::unique_ptr<Family> make_family(const std::string& name, Index dim);

}  // namespace bvi::vi
