#include "models/expected_prior.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <stdexcept>
#include <array>
#include <cmath>

#include "inference/ad/ad.hpp"
#include "inference/ad/math/cholesky_corr.hpp"
#include "inference/ad/ops/grouped_multi_normal_lpdf.hpp"
#include "inference/ad/ops/lkj_corr_cholesky_lpdf.hpp"
#include "inference/exact/cholesky_adjoint.hpp"
#include "inference/math/constants.hpp"
#include "inference/quadrature/gauss_hermite.hpp"
#include "inference/rng/normal_stream.hpp"

namespace bvi::models {

namespace {

using bvi::math::kHalfLog2Pi;
constexpr int kMaxGridPoints = 256;

bool any_constrained(const std::vector<ad::ColumnTransform>& t, Index offset, Index size) {
  for (Index j = 0; j < size; ++j)
    if (t[offset + j].bound != ad::Bound::none) return true;
  return false;
}

// The column's constrained value is exp(zeta): a positive parameter (lower bound 0).
bool log_positive(const std::vector<ad::ColumnTransform>& t, Index offset, Index size) {
  for (Index j = 0; j < size; ++j)
    if (t[offset + j].bound != ad::Bound::lower || t[offset + j].lower != 0.0) return false;
  return true;
}

// Sigma_ik of q.
double cov(const vi::GaussianQ& q, Index i, Index k) { return q.cov(i, k); }

}  // namespace

ExpectedPrior::ExpectedPrior(const Model& model, std::uint64_t seed, Index sample_draws,
                             const std::vector<std::size_t>& left_out)
    : model_(model), seed_(seed), sample_draws_(sample_draws), tape_(std::size_t(1) << 20) {
  const auto& tr = model.transforms();
  const PriorFamily* normal = find_prior_family("normal");
  auto transforms_of = [&](Index offset, Index size) {
    return std::vector<ad::ColumnTransform>(tr.begin() + offset, tr.begin() + offset + size);
  };
  for (std::size_t i = 0; i < model.prior_terms().size(); ++i) {
    const PriorTerm& t = model.prior_terms()[i];
    if (std::find(left_out.begin(), left_out.end(), i) != left_out.end()) {
      left_out_.push_back(&t);
      if (any_constrained(tr, t.offset, t.size))
        grids_.push_back({nullptr, t.offset, t.size, transforms_of(t.offset, t.size), true});
      continue;
    }
    if (t.centered) {
      // A prior at the feature means, on x + beta M: per column of an unconstrained term one
      // linear combination of normals under q (alpha + means . beta; categorical_logit's C
      // intercepts each with its own category's coefficients). Centered cutpoints are an ordered
      // block's, which the Monte Carlo method samples with the likelihood (left_out).
      if (any_constrained(tr, t.offset, t.size))
        throw std::logic_error("ExpectedPrior: a centered prior on a constrained parameter");
      for (Index col = 0; col < t.size; ++col) {
        Combo c;
        c.term = &t;
        c.column = col;
        c.weights.push_back({t.offset + col, 1.0});
        for (Index j = 0; j < t.centered_matrix.rows(); ++j)
          if (t.centered_matrix(j, col) != 0.0)
            c.weights.push_back({model.beta_offset() + j, t.centered_matrix(j, col)});
        combos_.push_back(std::move(c));
      }
      continue;
    }
    const bool numeric =
        std::none_of(t.hypers.begin(), t.hypers.end(), [](const HyperTerm& h) { return h.is_expression(); });
    const bool constrained = any_constrained(tr, t.offset, t.size);
    if (numeric) {
      if (!constrained && t.family->gaussian_expectation)
        closed_.push_back({&t});
      else
        grids_.push_back({&t, t.offset, t.size, transforms_of(t.offset, t.size), constrained});
      continue;
    }
    if (constrained) grids_.push_back({nullptr, t.offset, t.size, transforms_of(t.offset, t.size), true});
    if (t.family == normal && !constrained) {
      const HyperTerm& loc = t.hypers[0];
      const HyperTerm& scale = t.hypers[1];
      Scale s;
      s.offset = t.offset;
      s.size = t.size;
      bool ok = true;
      if (loc.is_expression()) {
        ok = loc.offsets.size() == 1 && loc.factor == 1.0 &&
             !any_constrained(tr, loc.offsets[0], loc.sizes[0]);
        s.loc_offset = loc.offsets[0];
        s.loc_size = loc.sizes[0];
      } else {
        s.loc = loc.constant;
      }
      if (scale.is_expression()) {
        s.factor = Eigen::RowVectorXd::Constant(1, scale.factor);
        for (std::size_t k = 0; k < scale.offsets.size(); ++k) {
          ok = ok && log_positive(tr, scale.offsets[k], scale.sizes[k]);
          s.scales.push_back({scale.offsets[k], scale.sizes[k]});
        }
      } else {
        s.factor = scale.constant;
      }
      if (ok) {
        scales_.push_back(std::move(s));
        continue;
      }
    }
    Sampled s;
    s.term = &t;
    for (Index j = 0; j < t.size; ++j) s.columns.push_back(t.offset + j);
    for (const HyperTerm& h : t.hypers)
      for (std::size_t k = 0; k < h.offsets.size(); ++k)
        for (Index j = 0; j < h.sizes[k]; ++j) s.columns.push_back(h.offsets[k] + j);
    std::sort(s.columns.begin(), s.columns.end());
    s.columns.erase(std::unique(s.columns.begin(), s.columns.end()), s.columns.end());
    for (Index c : s.columns) s.transforms.push_back(tr[c]);
    sampled_.push_back(std::move(s));
  }
  parent_.assign(static_cast<std::size_t>(model.dim()), -1);
  for (const GroupPrior& g : model.group_priors()) {
    if (g.L_offset < 0) {
      for (Index j = 0; j < g.groups * g.effects; ++j)
        parent_[static_cast<std::size_t>(g.r_offset + j)] = g.sd_offset + j % g.effects;
      // r_F[g, k] ~ normal(0, sd_F[k]): the hierarchical normal, entry by entry.
      Scale s;
      s.offset = g.r_offset;
      s.size = g.groups * g.effects;
      s.loc = Eigen::RowVectorXd::Zero(1);
      s.factor = Eigen::RowVectorXd::Ones(1);
      s.scales.push_back({g.sd_offset, g.effects});
      s.period = g.effects;
      scales_.push_back(std::move(s));
      continue;
    }
    const Index K = g.effects, m = ad::corr::free_entries(K);
    if (K == 2 && log_positive(tr, g.sd_offset, K)) {
      pairs_.push_back({&g});
      continue;
    }
    if (K <= CorrelatedTilt::kMaxEffects && log_positive(tr, g.sd_offset, K)) {
      blocks_.push_back({&g, CorrelatedTilt(K)});
      continue;
    }
    Correlated c;
    c.group = &g;
    c.sd_transforms.assign(tr.begin() + g.sd_offset, tr.begin() + g.sd_offset + K);
    c.L_transforms.assign(tr.begin() + g.L_offset, tr.begin() + g.L_offset + m);
    correlated_.push_back(std::move(c));
    Sampled s;
    s.term = nullptr;
    s.group = &g;
    for (Index j = 0; j < g.groups * K; ++j) s.columns.push_back(g.r_offset + j);
    for (Index j = 0; j < K; ++j) s.columns.push_back(g.sd_offset + j);
    for (Index j = 0; j < m; ++j) s.columns.push_back(g.L_offset + j);
    std::sort(s.columns.begin(), s.columns.end());
    for (Index col : s.columns) s.transforms.push_back(tr[col]);
    sampled_.push_back(std::move(s));
  }
}

std::vector<Index> ExpectedPrior::sampled_widths(bool dense) const {
  std::vector<Index> out;
  for (const Sampled& s : sampled_)
    if (dense || !s.group) out.push_back(static_cast<Index>(s.columns.size()));
  if (!dense)
    for (const Correlated& c : correlated_)
      out.push_back(c.group->effects + ad::corr::free_entries(c.group->effects));
  return out;
}

void ExpectedPrior::add_cov(vi::ExpectationGradient* grad, bool dense, Index i, Index k, double g) {
  if (dense) {
    grad->d_cov(i, k) += g;
  } else if (i == k) {
    grad->d_var[i] += g;
    d_var_[i] += g;
  } else {
    off_diagonal_.push_back({i, k, g});
    if (grad->d_parent.size() != 0 && parent_[static_cast<std::size_t>(i)] == k) grad->d_parent[i] += g;
  }
}

double ExpectedPrior::evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  const bool dense = q.dense;
  const Index P = q.dim();
  if (grad && !dense) {
    d_var_.setZero(P);
    off_diagonal_.clear();
  }
  double total = 0.0;

  for (const Closed& c : closed_) {
    const PriorTerm& t = *c.term;
    const Index n = t.size;
    for (Eigen::VectorXd* b : {&buf_m_, &buf_v_, &buf_val_, &buf_dm_, &buf_dv_})
      if (b->size() < n) b->resize(n);
    for (Index j = 0; j < n; ++j) {
      buf_m_[j] = q.mean[t.offset + j];
      buf_v_[j] = q.var(t.offset + j);
    }
    std::array<const double*, kMaxHyperparameters> h{};
    std::array<Index, kMaxHyperparameters> hs{};
    for (std::size_t k = 0; k < t.hypers.size(); ++k) {
      h[k] = t.hypers[k].constant.data();
      hs[k] = t.hypers[k].constant.size();
    }
    t.family->gaussian_expectation(buf_m_.data(), buf_v_.data(), n, h.data(), hs.data(), buf_val_.data(),
                                   buf_dm_.data(), buf_dv_.data());
    total += buf_val_.head(n).sum();
    if (grad)
      for (Index j = 0; j < n; ++j) {
        grad->d_mean[t.offset + j] += buf_dm_[j];
        add_cov(grad, dense, t.offset + j, t.offset + j, buf_dv_[j]);
      }
  }

  for (Grid& g : grids_) {
    // Enough points that halving them changes nothing that matters: 16, doubled while 16 (or
    // the count reached) and half as many disagree. Chosen afresh at every evaluation, so the
    // value is a function of q alone (a resumed run evaluates exactly as the original did).
    // A value that needs more points discards the gradient it added, so that is taken first
    // into a scratch gradient.
    vi::ExpectationGradient* into = grad;
    if (grad) {
      grid_grad_.reset(q.dim(), dense);
      into = &grid_grad_;
    }
    g.points = 16;
    double v = grid_value(g, q, g.points, into);
    while (g.points < kMaxGridPoints) {
      const double coarse = grid_value(g, q, g.points / 2, nullptr);
      if (std::abs(v - coarse) <= 1e-12 * (1.0 + std::abs(v)) || !std::isfinite(v)) break;
      g.points *= 2;
      if (grad) grid_grad_.reset(q.dim(), dense);
      v = grid_value(g, q, g.points, into);
    }
    if (grad) {
      grad->d_mean += grid_grad_.d_mean;
      if (dense) {
        grad->d_cov += grid_grad_.d_cov;
      } else {
        grad->d_var += grid_grad_.d_var;
        d_var_ += grid_grad_.d_var;
      }
    }
    total += v;
  }

  for (const Scale& s : scales_) total += scale_value(s, q, grad);
  for (CorrelatedPair& c : pairs_) total += pair_value(c, q, grad);
  for (CorrelatedBlock& c : blocks_) total += block_value(c, q, grad);
  for (Combo& c : combos_) total += combo_value(c, q, grad);

  double var = 0.0;
  if (q.sparse() && !sampled_.empty())
    throw std::logic_error("expected prior: the sparse family has no sample-average terms yet");
  if (!dense)
    for (Correlated& c : correlated_) {
      total += correlated_value(c, q, grad);
      var += se_ * se_;
    }
  if (!sampled_.empty()) {
    Eigen::MatrixXd lbar;
    if (dense && grad) lbar.setZero(P, P);
    for (Sampled& s : sampled_) {
      if (s.group && !dense) continue;  // meanfield takes correlated factors as above
      total += sampled_value(s, q, grad, dense && grad ? &lbar : nullptr);
      var += se_ * se_;
    }
    if (dense && grad) grad->d_cov += vi::cholesky_adjoint(q.chol, lbar);
  }
  se_ = std::sqrt(var);
  if (grad) grad->value += total;
  if (grad && q.sparse()) {
    // The prior's G, kept as meanfield keeps it (the diagonal, then the rest by pairs), onto the
    // pattern: a prior term ties only coordinates that the pattern ties.
    const vi::BlockPattern& pat = q.pattern();
    for (Index j = 0; j < P; ++j) grad->d_sparse[pat.diagonal()[static_cast<std::size_t>(j)]] += grad->d_var[j];
    grad->d_var.setZero();
    for (const OffDiagonal& o : off_diagonal_) pat.add(grad->d_sparse, o.i, o.k, o.g);
  }
  return total;
}

double ExpectedPrior::combo_value(Combo& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  // c = w . theta ~ N(m, v) under q.
  double m = 0.0, v = 0.0;
  for (const auto& [col, w] : c.weights) m += w * q.mean[col];
  if (q.dense) {
    Eigen::VectorXd Ltw = Eigen::VectorXd::Zero(q.dim());
    for (const auto& [col, w] : c.weights) Ltw += w * q.chol.row(col).transpose();
    v = Ltw.squaredNorm();
  } else if (q.sparse()) {
    for (const auto& [j, wj] : c.weights)
      for (const auto& [k, wk] : c.weights) v += wj * wk * q.cov(j, k);
  } else {
    for (const auto& [col, w] : c.weights) v += w * w * q.var(col);
  }
  const PriorTerm& t = *c.term;
  double value = 0.0, d_m = 0.0, d_v = 0.0;
  if (t.family->gaussian_expectation) {
    std::array<const double*, kMaxHyperparameters> h{};
    std::array<Index, kMaxHyperparameters> hs{};
    for (std::size_t k = 0; k < t.hypers.size(); ++k) {  // a per-column hyperparameter: the column's
      const Eigen::RowVectorXd& values = t.hypers[k].constant;
      h[k] = values.data() + (values.size() > 1 ? c.column : 0);
      hs[k] = 1;
    }
    t.family->gaussian_expectation(&m, &v, 1, h.data(), hs.data(), &value, &d_m, &d_v);
  } else {
    // Gauss-Hermite on the one coordinate c, the points doubled until halving them changes
    // nothing (as for the grid terms), the derivatives from the tape.
    const double sd = std::sqrt(v);
    auto rule_value = [&](int points, double* dm, double* dsd) {
      const quadrature::GaussHermiteRule& r = quadrature::gauss_hermite(points);
      const Index n = r.size();
      z_.resize(n, 1);
      z_.col(0) = (m + sd * r.nodes).matrix();
      tape_.rewind();
      z_adj_.setZero(n, 1);
      const ad::Var z = tape_.leaf(z_.data(), z_adj_.data(), n, 1);
      std::array<ad::Var, kMaxHyperparameters> hypers;
      for (std::size_t k = 0; k < t.hypers.size(); ++k) {
        const Eigen::RowVectorXd& values = t.hypers[k].constant;
        hypers[k] = tape_.constant(values.data() + (values.size() > 1 ? c.column : 0), 1, 1);
      }
      const ad::Var lp = t.family->log_density(z, hypers.data());
      const double val = (r.weights * lp.val().col(0)).sum();
      if (dm) {
        tape_.backward(lp, r.weights.data());
        *dm = z_adj_.col(0).sum();
        *dsd = (z_adj_.col(0).array() * r.nodes).sum();
      }
      return val;
    };
    int points = 16;
    double dsd = 0.0;
    value = rule_value(points, &d_m, &dsd);
    while (points < kMaxGridPoints) {
      const double coarse = rule_value(points / 2, nullptr, nullptr);
      if (std::abs(value - coarse) <= 1e-12 * (1.0 + std::abs(value)) || !std::isfinite(value)) break;
      points *= 2;
      value = rule_value(points, &d_m, &dsd);
    }
    d_v = dsd / (2.0 * sd);
  }
  if (grad) {
    for (const auto& [col, w] : c.weights) grad->d_mean[col] += w * d_m;
    // dE/dSigma = d_v w w': the whole matrix for fullrank; meanfield keeps its diagonal in the
    // gradient and applies the rank-one rest in hessian_times.
    for (const auto& [j, wj] : c.weights) {
      if (q.dense) {
        for (const auto& [k, wk] : c.weights) grad->d_cov(j, k) += d_v * wj * wk;
      } else if (q.sparse()) {
        for (const auto& [k, wk] : c.weights) add_cov(grad, false, j, k, d_v * wj * wk);
      } else {
        grad->d_var[j] += d_v * wj * wj;
      }
    }
    if (!q.dense) c.d_var = d_v;
  }
  return value;
}

double ExpectedPrior::correlated_value(Correlated& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  const GroupPrior& g = *c.group;
  const Index K = g.effects, G = g.groups, m = ad::corr::free_entries(K), D = K + m;
  const Index draws = sample_draws_;
  if (c.xi.rows() != draws) {
    c.xi.resize(draws, D);
    rng::standard_normal(seed_, rng::Purpose::fixed_draws, static_cast<std::uint64_t>(1000000 + g.r_offset), 0,
                         c.xi);
  }
  // M = sum_g (m_g m_g' + diag(s_g^2)) and its factor V (M = V V'): K pseudo-groups.
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(K, K);
  for (Index gr = 0; gr < G; ++gr) {
    const Eigen::VectorXd mg = q.mean.segment(g.r_offset + gr * K, K);
    M.noalias() += mg * mg.transpose();
    for (Index k = 0; k < K; ++k) M(k, k) += q.sd[g.r_offset + gr * K + k] * q.sd[g.r_offset + gr * K + k];
  }
  const Eigen::MatrixXd V = Eigen::LLT<Eigen::MatrixXd>(M).matrixL();
  // psi's draws: (log sd, L's unconstrained entries) = mean + sd .* xi, through their transforms.
  Eigen::VectorXd psi_mean(D), psi_sd(D);
  auto column = [&](Index j) { return j < K ? g.sd_offset + j : g.L_offset + (j - K); };
  for (Index j = 0; j < D; ++j) {
    psi_mean[j] = q.mean[column(j)];
    psi_sd[j] = q.sd[column(j)];
  }
  z_.resize(draws, D);
  for (Index j = 0; j < D; ++j) z_.col(j) = psi_mean[j] + psi_sd[j] * c.xi.col(j).array();
  tape_.rewind();
  z_adj_.setZero(draws, D);
  const ad::Var z = tape_.leaf(z_.data(), z_adj_.data(), draws, D);
  const ad::Var sd = ad::constrain(z.cols(0, K), c.sd_transforms).x;  // its Jacobian is sd's grid term's
  const ad::Constrained L = ad::constrain(z.cols(K, m), c.L_transforms);
  // The pseudo-groups: group k's effects are V's column k; a last one at 0 counts the rest.
  Eigen::MatrixXd pseudo(draws, K * K), zero = Eigen::MatrixXd::Zero(draws, K);
  for (Index k = 0; k < K; ++k)
    for (Index j = 0; j < K; ++j) pseudo.col(k * K + j).setConstant(V(j, k));
  ad::Var lp = ad::grouped_multi_normal_lpdf(tape_.constant(pseudo.data(), draws, K * K), sd, L.x);
  const ad::Var lp0 = ad::grouped_multi_normal_lpdf(tape_.constant(zero.data(), draws, K), sd, L.x);
  lp = ad::add(lp, ad::multiply(lp0, tape_.constant(static_cast<double>(G - K))));
  lp = ad::add(lp, ad::add(ad::lkj_corr_cholesky_lpdf(L.x, g.eta, K), L.log_jacobian));
  const auto values = lp.val().col(0);
  const double value = values.mean();
  se_ = draws > 1 ? std::sqrt((values - value).square().sum() / double(draws - 1) / double(draws)) : 0.0;
  if (!grad) return value;
  const Eigen::VectorXd seed = Eigen::VectorXd::Constant(draws, 1.0 / double(draws));
  tape_.backward(lp, seed.data());
  for (Index j = 0; j < D; ++j) {
    grad->d_mean[column(j)] += z_adj_.col(j).sum();
    const double d_sd = (z_adj_.col(j).array() * c.xi.col(j).array()).sum();
    add_cov(grad, false, column(j), column(j), d_sd / (2.0 * psi_sd[j]));
  }
  // The effects: d/dm_g = -A m_g and dE/dSigma_g = -A/2, A = E[Sigma(psi)^-1] over the draws,
  // Sigma^-1 = D^-1 L^-T L^-1 D^-1.
  c.A.setZero(K, K);
  const auto sdv = sd.val();
  const auto Lv = L.x.val();
  Eigen::MatrixXd Lk(K, K);
  for (Index d = 0; d < draws; ++d) {
    ad::corr::fill_factor(Lv.data() + d, draws, K, Lk.data());
    const Eigen::MatrixXd Linv = Lk.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(K, K));
    Eigen::MatrixXd inv = Linv.transpose() * Linv;
    for (Index a = 0; a < K; ++a)
      for (Index b = 0; b < K; ++b) inv(a, b) /= sdv(d, a) * sdv(d, b);
    c.A += inv;
  }
  c.A /= double(draws);
  for (Index gr = 0; gr < G; ++gr) {
    const Index base = g.r_offset + gr * K;
    grad->d_mean.segment(base, K) -= c.A * q.mean.segment(base, K);
    for (Index a = 0; a < K; ++a)
      for (Index b = 0; b < K; ++b) add_cov(grad, false, base + a, base + b, -0.5 * c.A(a, b));
  }
  return value;
}

double ExpectedPrior::block_value(CorrelatedBlock& c, const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  const GroupPrior& g = *c.group;
  const bool dense = q.dense;
  const CorrelatedTilt::Columns col{g.r_offset, g.groups, g.sd_offset, g.L_offset};
  if (!grad) return c.tilt.value(col, g.eta, q, nullptr, {}, &c.points);
  return c.tilt.value(col, g.eta, q, &grad->d_mean,
                      [&](Index i, Index k, double v) { add_cov(grad, dense, i, k, v); }, &c.points);
}

double ExpectedPrior::grid_value(const Grid& g, const vi::GaussianQ& q, int points,
                                 vi::ExpectationGradient* grad) {
  const quadrature::GaussHermiteRule& r = quadrature::gauss_hermite(points);
  const Index n = r.size(), K = g.size;
  z_.resize(n, K);
  Eigen::VectorXd sd(K);
  for (Index j = 0; j < K; ++j) {
    sd[j] = std::sqrt(q.var(g.offset + j));
    z_.col(j) = (q.mean[g.offset + j] + sd[j] * r.nodes).matrix();
  }
  tape_.rewind();
  ad::Var z;
  if (grad) {
    z_adj_.setZero(n, K);
    z = tape_.leaf(z_.data(), z_adj_.data(), n, K);
  } else {
    z = tape_.constant(z_.data(), n, K);
  }
  ad::Var x = z, total;
  bool have = false;
  if (g.constrained) {
    const ad::Constrained c = ad::constrain(z, g.transforms);
    x = c.x;
    total = c.log_jacobian;
    have = true;
  }
  if (g.term) {
    std::array<ad::Var, kMaxHyperparameters> hypers;
    for (std::size_t k = 0; k < g.term->hypers.size(); ++k) {
      const Eigen::RowVectorXd& c = g.term->hypers[k].constant;
      hypers[k] = tape_.constant(c.data(), 1, c.size());
    }
    const ad::Var lp = ad::row_sums(g.term->family->log_density(x, hypers.data()));
    total = have ? ad::add(total, lp) : lp;
  }
  const double value = (r.weights * total.val().col(0)).sum();
  if (grad) {
    tape_.backward(total, r.weights.data());
    for (Index j = 0; j < K; ++j) {
      const Index c = g.offset + j;
      grad->d_mean[c] += z_adj_.col(j).sum();
      // d/dsd_j = sum_k z_k adj_kj, and dSigma_jj = 2 sd_j dsd_j.
      const double d_sd = (z_adj_.col(j).array() * r.nodes).sum();
      // G_jj directly (the caller adds the term's diagonal to the Hessian store once its point
      // count is final).
      if (q.dense)
        grad->d_cov(c, c) += d_sd / (2.0 * sd[j]);
      else
        grad->d_var[c] += d_sd / (2.0 * sd[j]);
    }
  }
  return value;
}

double ExpectedPrior::scale_value(const Scale& s, const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  const bool dense = q.dense;
  std::vector<Index> r;
  r.reserve(s.scales.size());
  double total = 0.0;
  for (Index j = 0; j < s.size; ++j) {
    const Index X = s.offset + j;
    const Index L = s.loc_offset >= 0 ? s.loc_offset + (s.loc_size == 1 ? 0 : j) : -1;
    const double c = s.factor[s.factor.size() == 1 ? 0 : j];
    r.clear();
    for (const auto& [offset, size] : s.scales) r.push_back(offset + (s.period ? j % s.period : size == 1 ? 0 : j));
    // Moments of d = x - loc and u = sum of the log scales.
    const double mu_d = q.mean[X] - (L >= 0 ? q.mean[L] : s.loc[s.loc.size() == 1 ? 0 : j]);
    const double V_d = cov(q, X, X) + (L >= 0 ? cov(q, L, L) - 2.0 * cov(q, X, L) : 0.0);
    double mu_u = 0.0, V_u = 0.0, C = 0.0;
    for (Index a : r) {
      mu_u += q.mean[a];
      for (Index b : r) V_u += cov(q, a, b);
      C += cov(q, X, a) - (L >= 0 ? cov(q, L, a) : 0.0);
    }
    // E log N(x | loc, c e^u) = -log(2 pi)/2 - log c - E u - E[d^2 e^{-2u}] / (2 c^2).
    const double B = std::exp(-2.0 * mu_u + 2.0 * V_u) / (2.0 * c * c);
    const double R = mu_d - 2.0 * C, Q = R * R + V_d;
    total += -kHalfLog2Pi - std::log(c) - mu_u - B * Q;
    if (!grad) continue;
    const double t_mud = -2.0 * B * R, t_Vd = -B, t_C = 4.0 * B * R, t_muu = -1.0 + 2.0 * B * Q,
                 t_Vu = -2.0 * B * Q;
    grad->d_mean[X] += t_mud;
    if (L >= 0) grad->d_mean[L] -= t_mud;
    for (Index a : r) grad->d_mean[a] += t_muu;
    // Var d = S_XX + S_LL - S_XL - S_LX;  Var u = sum_ab S_ab;  C = sum_a (S_Xa - S_La).
    add_cov(grad, dense, X, X, t_Vd);
    if (L >= 0) {
      add_cov(grad, dense, L, L, t_Vd);
      add_cov(grad, dense, X, L, -t_Vd);
      add_cov(grad, dense, L, X, -t_Vd);
    }
    for (Index a : r) {
      for (Index b : r) add_cov(grad, dense, a, b, t_Vu);
      add_cov(grad, dense, X, a, 0.5 * t_C);
      add_cov(grad, dense, a, X, 0.5 * t_C);
      if (L >= 0) {
        add_cov(grad, dense, L, a, -0.5 * t_C);
        add_cov(grad, dense, a, L, -0.5 * t_C);
      }
    }
  }
  return total;
}

double ExpectedPrior::sampled_value(Sampled& s, const vi::GaussianQ& q, vi::ExpectationGradient* grad,
                                    Eigen::MatrixXd* lbar) {
  const Index K = sample_draws_, n = static_cast<Index>(s.columns.size()), P = q.dim();
  const Index width = q.dense ? P : n;
  if (s.eps.rows() != K || s.eps.cols() != width) {
    s.eps.resize(K, width);
    const auto step = static_cast<std::uint64_t>(s.group ? 2000000 + s.group->r_offset : s.term->offset);
    rng::standard_normal(seed_, rng::Purpose::fixed_draws, step, 0, s.eps);
  }
  z_.resize(K, n);
  s.sd.resize(n);
  for (Index c = 0; c < n; ++c) {
    const Index col = s.columns[c];
    if (q.dense) {
      z_.col(c) = (s.eps * q.chol.row(col).transpose()).array() + q.mean[col];
    } else {
      s.sd[c] = q.sd[col];
      z_.col(c) = q.mean[col] + s.sd[c] * s.eps.col(c).array();
    }
  }
  auto position = [&](Index col) {
    return static_cast<Index>(std::lower_bound(s.columns.begin(), s.columns.end(), col) - s.columns.begin());
  };
  tape_.rewind();
  ad::Var z;
  if (grad) {
    z_adj_.setZero(K, n);
    z = tape_.leaf(z_.data(), z_adj_.data(), K, n);
  } else {
    z = tape_.constant(z_.data(), K, n);
  }
  ad::Var lp;
  if (s.group) {
    // A factor's correlated effects: r unconstrained, sd through its transform (its Jacobian is
    // sd's grid term's), L through cholesky_corr with its Jacobian, which only this term counts.
    const GroupPrior& g = *s.group;
    const Index Kf = g.effects, m = ad::corr::free_entries(Kf);
    const Index pr = position(g.r_offset), ps = position(g.sd_offset), pl = position(g.L_offset);
    const std::vector<ad::ColumnTransform> sd_tr(s.transforms.begin() + ps, s.transforms.begin() + ps + Kf);
    const std::vector<ad::ColumnTransform> L_tr(s.transforms.begin() + pl, s.transforms.begin() + pl + m);
    s.block_transforms = {sd_tr, L_tr};  // the tape's backward pass reads them
    const ad::Var sd = ad::constrain(z.cols(ps, Kf), s.block_transforms[0]).x;
    const ad::Constrained L = ad::constrain(z.cols(pl, m), s.block_transforms[1]);
    lp = ad::add(ad::grouped_multi_normal_lpdf(z.cols(pr, g.groups * Kf), sd, L.x),
                 ad::add(ad::lkj_corr_cholesky_lpdf(L.x, g.eta, Kf), L.log_jacobian));
  } else {
    const PriorTerm& t = *s.term;
    const ad::Var x = ad::constrain(z, s.transforms).x;  // the Jacobians are the grid's
    std::array<ad::Var, kMaxHyperparameters> hypers;
    for (std::size_t k = 0; k < t.hypers.size(); ++k) {
      const HyperTerm& h = t.hypers[k];
      if (!h.is_expression()) {
        hypers[k] = tape_.constant(h.constant.data(), 1, h.constant.size());
        continue;
      }
      ad::Var v = x.cols(position(h.offsets[0]), h.sizes[0]);
      for (std::size_t i = 1; i < h.offsets.size(); ++i)
        v = ad::multiply(v, x.cols(position(h.offsets[i]), h.sizes[i]));
      if (h.factor != 1.0) v = ad::multiply(v, tape_.constant(h.factor));
      hypers[k] = v;
    }
    lp = ad::row_sums(t.family->log_density(x.cols(position(t.offset), t.size), hypers.data()));
  }
  const auto values = lp.val().col(0);
  const double value = values.mean();
  se_ = K > 1 ? std::sqrt((values - value).square().sum() / double(K - 1) / double(K)) : 0.0;
  if (grad) {
    const Eigen::VectorXd seed = Eigen::VectorXd::Constant(K, 1.0 / double(K));
    tape_.backward(lp, seed.data());
    for (Index c = 0; c < n; ++c) grad->d_mean[s.columns[c]] += z_adj_.col(c).sum();
    if (q.dense) {
      // dF/dL_{col, :} = sum_k adj_k eps_k'.
      for (Index c = 0; c < n; ++c) lbar->row(s.columns[c]) += z_adj_.col(c).transpose() * s.eps;
    } else {
      for (Index c = 0; c < n; ++c) {
        const double d_sd = (z_adj_.col(c).array() * s.eps.col(c).array()).sum();
        add_cov(grad, false, s.columns[c], s.columns[c], d_sd / (2.0 * s.sd[c]));
      }
      s.adj = z_adj_;
    }
  }
  return value;
}

void ExpectedPrior::hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) const {
  out.array() += 2.0 * d_var_.array() * d.array();
  // A combination's rank-one curvature 2 dE/dv w (w . d) (its diagonal is not in d_var_).
  for (const Combo& c : combos_) {
    double wd = 0.0;
    for (const auto& [col, w] : c.weights) wd += w * d[col];
    for (const auto& [col, w] : c.weights) out[col] += 2.0 * c.d_var * w * wd;
  }
  for (const OffDiagonal& e : off_diagonal_) out[e.i] += 2.0 * e.g * d[e.k];
  // Stein: E[grad^2 f] ~ (1/K) sum_k grad f_k (eps_k / sd)', symmetrized, from the stored draws.
  for (const Sampled& s : sampled_) {
    if (s.adj.size() == 0) continue;
    const Index n = static_cast<Index>(s.columns.size());
    Eigen::VectorXd dI(n);
    for (Index c = 0; c < n; ++c) dI[c] = d[s.columns[c]];
    const Eigen::VectorXd u = s.eps * (dI.array() / s.sd.array()).matrix();
    const Eigen::VectorXd part1 = s.adj.transpose() * u;
    const Eigen::VectorXd part2 = ((s.eps.transpose() * (s.adj * dI)).array() / s.sd.array()).matrix();
    for (Index c = 0; c < n; ++c) out[s.columns[c]] += 0.5 * (part1[c] + part2[c]);
  }
}

std::vector<std::pair<std::string, std::string>> ExpectedPrior::methods() const {
  std::vector<std::pair<std::string, std::string>> out;
  // The parameter whose columns hold `offset` (a term may start inside one: categorical_logit's
  // per-category parts of beta, sd_F and r_F).
  auto name_of = [&](Index offset) {
    for (const auto& b : model_.layout().blocks())
      if (b.offset <= offset && offset < b.offset + b.size) return b.name;
    return std::string("?");
  };
  for (const PriorTerm* t : left_out_) out.push_back({name_of(t->offset), "sampled with the likelihood"});
  for (const Closed& c : closed_) out.push_back({name_of(c.term->offset), "closed form"});
  for (const Grid& g : grids_)
    out.push_back({name_of(g.offset), g.term ? "quadrature" : "Jacobian by quadrature"});
  for (const Scale& s : scales_) out.push_back({name_of(s.offset), "closed form (hierarchical normal)"});
  for (const CorrelatedPair& c : pairs_)
    out.push_back({name_of(c.group->r_offset),
                   "closed form in the effects and sds, quadrature in the correlation (two correlated effects)"});
  for (const CorrelatedBlock& c : blocks_)
    out.push_back({name_of(c.group->r_offset),
                   "closed form in the effects and sds, quadrature in the correlations (" +
                       std::to_string(c.group->effects) + " correlated effects, " + std::to_string(c.tilt.terms()) +
                       " tilt terms per group)"});
  for (const Combo& c : combos_)
    out.push_back({name_of(c.term->offset), c.term->family->gaussian_expectation
                                                ? "closed form (on the intercept at the column means)"
                                                : "quadrature (on the intercept at the column means)"});
  for (const Sampled& s : sampled_) {
    if (s.group) {
      out.push_back({name_of(s.group->r_offset),
                     "meanfield: exact in the effects, sample average over the sds and correlations (" +
                         std::to_string(sample_draws_) + " fixed draws); fullrank: sample average (" +
                         std::to_string(sample_draws_) + " fixed draws)"});
      continue;
    }
    out.push_back({name_of(s.term->offset), "sample average (" + std::to_string(sample_draws_) + " fixed draws)"});
  }
  // One entry per parameter and way (a term per category says the same thing K - 1 times).
  std::vector<std::pair<std::string, std::string>> once;
  for (auto& entry : out)
    if (std::find(once.begin(), once.end(), entry) == once.end()) once.push_back(std::move(entry));
  return once;
}

}  // namespace bvi::models
