#include "models/expected_likelihood.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bvi::models {

namespace {

constexpr Index kRows = quadrature::ExpectationScratch::kRows;

// sum_j a_j b_j and sum_j a_j^2 c_j in eight fixed lanes, added in a fixed order: the rounding
// then depends on D alone, never on where a row happens to sit in memory (a compiler's
// vectorized reduction may peel an unaligned head, and a row's alignment changes with the
// number of MPI ranks).
template <class T>
inline void dot2(const T* a, const double* b, const double* c, Index n, double& ab, double& aac) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  Index j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) {
      const double x = static_cast<double>(a[j + l]);
      s[l] += x * b[j + l];
      t[l] += x * x * c[j + l];
    }
  for (int l = 0; j < n; ++j, ++l) {
    const double x = static_cast<double>(a[j]);
    s[l] += x * b[j];
    t[l] += x * x * c[j];
  }
  ab = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  aac = ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

template <class T>
inline double dot(const T* a, const double* b, Index n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  Index j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) s[l] += static_cast<double>(a[j + l]) * b[j + l];
  for (int l = 0; j < n; ++j, ++l) s[l] += static_cast<double>(a[j]) * b[j];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

}  // namespace

template <class T>
struct ExpectedLikelihood<T>::ThreadScratch {
  quadrature::ExpectationScratch quad;
  Eigen::ArrayXd m, v, c, value, dm, dv, dc;
  // fullrank: the sub-block's x~ (with the intercept's 1), L11' x~ per row, and x~ scaled by dv
  Eigen::MatrixXd xt, y, w;
  ad::Arena arena{std::size_t(1) << 20};
  ad::GemmWorkspace<double> gemm{arena};
  explicit ThreadScratch(Index lin, bool dense) {
    quad.reserve();
    for (Eigen::ArrayXd* a : {&m, &v, &c, &value, &dm, &dv, &dc}) a->setZero(kRows);
    if (dense) {
      xt.setZero(kRows, lin);
      y.setZero(kRows, lin);
      w.setZero(kRows, lin);
    }
  }
};

template <class T>
ExpectedLikelihood<T>::ExpectedLikelihood(const Model& model, DataView<T> data, reduce::ChunkReducer& reducer)
    : model_(model), data_(data), reducer_(reducer) {
  const ParameterLayout& layout = model.layout();
  const ParameterBlock* beta = layout.find("beta");
  const ParameterBlock* alpha = layout.find("alpha");
  if (!beta) throw std::logic_error("expected likelihood: the model has no beta");
  intercept_ = alpha != nullptr;
  D_ = beta->size;
  if (D_ != data_.cols) throw std::logic_error("expected likelihood: beta and the data disagree");
  // The layout puts alpha first and beta right after it.
  if ((intercept_ && (alpha->offset != 0 || beta->offset != 1)) || (!intercept_ && beta->offset != 0))
    throw std::logic_error("expected likelihood: alpha and beta must lead the parameter layout");
  lin_ = D_ + (intercept_ ? 1 : 0);
  scale_ = model.likelihood().scale_column();
  log_constants_.resize(data_.rows);
  if (!model.likelihood().log_constants(data_.y, data_.trials, data_.rows, log_constants_.data()))
    log_constants_.resize(0);
  row_d_var_.setZero(data_.rows);
}

template <class T>
ExpectedLikelihood<T>::~ExpectedLikelihood() = default;

template <class T>
ad::GlmRows ExpectedLikelihood<T>::rows(Index first, Index n) const {
  ad::GlmRows r;
  r.y = data_.y + first;
  r.trials = data_.trials ? data_.trials + first : nullptr;
  r.offset = data_.offset ? data_.offset + first : nullptr;
  r.log_constant = log_constants_.size() ? log_constants_.data() + first : nullptr;
  r.rows = n;
  return r;
}

template <class T>
double ExpectedLikelihood<T>::evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  const bool dense = q.dense;
  if (static_cast<int>(scratch_.size()) != reducer_.threads() || scratch_dense_ != dense) {
    scratch_.clear();
    for (int t = 0; t < reducer_.threads(); ++t)
      scratch_.push_back(std::make_unique<ThreadScratch>(lin_, dense));
    scratch_dense_ = dense;
  }
  q_ = &q;
  mean_lin_ = q.mean.head(lin_);
  if (dense) {
    chol_lin_ = q.chol.topLeftCorner(lin_, lin_);
    if (scale_ >= 0) cov_u_lin_ = q.chol.row(scale_).head(lin_).transpose();
  } else {
    var_lin_ = q.sd.head(lin_).array().square().matrix();
  }
  u_mean_ = scale_ >= 0 ? q.mean[scale_] : 0.0;
  u_var_ = scale_ >= 0 ? q.var(scale_) : 0.0;

  const Index len = 3 + (grad ? (dense ? 2 * lin_ + lin_ * lin_ : 3 * lin_) : 0);
  if (total_.size() < len) total_.resize(len);
  const bool g = grad != nullptr;
  const double per_row = dense ? 4.0 * double(lin_) * double(lin_) + 40.0 : 10.0 * double(lin_) + 100.0;
  reducer_.sum(
      len,
      [this, g, dense](int thread, Index chunk, double* partial) {
        if (dense)
          fullrank_chunk(thread, chunk, partial, g);
        else
          meanfield_chunk(thread, chunk, partial, g);
      },
      total_.data(), per_row * static_cast<double>(data_.total_rows));
  ++passes_;
  const double value = total_[0];
  if (!grad) return value;

  grad->value += value;
  const double* t = total_.data();
  grad->d_mean.head(lin_) += Eigen::Map<const Eigen::VectorXd>(t + 3, lin_);
  if (dense) {
    const Eigen::Map<const Eigen::VectorXd> dc(t + 3 + lin_, lin_);
    grad->d_cov.topLeftCorner(lin_, lin_) += Eigen::Map<const Eigen::MatrixXd>(t + 3 + 2 * lin_, lin_, lin_);
    if (scale_ >= 0) {
      // dE = sum_i dE_i/dc_i x~_i' dSigma_{lin,u}: half of it on each side of the symmetric G.
      grad->d_cov.col(scale_).head(lin_) += 0.5 * dc;
      grad->d_cov.row(scale_).head(lin_) += 0.5 * dc.transpose();
    }
  } else {
    grad->d_var.head(lin_) += Eigen::Map<const Eigen::VectorXd>(t + 3 + lin_, lin_);
    cross_u_ = Eigen::Map<const Eigen::VectorXd>(t + 3 + 2 * lin_, lin_);
    d_u_var_ = t[2];
  }
  if (scale_ >= 0) {
    grad->d_mean[scale_] += t[1];
    if (dense)
      grad->d_cov(scale_, scale_) += t[2];
    else
      grad->d_var[scale_] += t[2];
  }
  return value;
}

template <class T>
void ExpectedLikelihood<T>::meanfield_chunk(int thread, Index chunk, double* partial, bool grad) {
  ThreadScratch& s = *scratch_[thread];
  const reduce::ShardPlan& plan = reducer_.plan();
  const Index begin = plan.chunk_begin_row(chunk) - data_.first_row;
  const Index end = plan.chunk_end_row(chunk) - data_.first_row;
  const Likelihood& lik = model_.likelihood();
  const Index D = D_, a = intercept_ ? 1 : 0;
  const double* mu = mean_lin_.data() + a;
  const double* s2 = var_lin_.data() + a;
  const double a_mean = intercept_ ? mean_lin_[0] : 0.0, a_var = intercept_ ? var_lin_[0] : 0.0;
  double* p_dm = partial + 3;
  double* p_dv = p_dm + lin_;
  double* p_dc = p_dv + lin_;
  const bool scaled = scale_ >= 0;
  for (Index r0 = begin; r0 < end; r0 += kRows) {
    const Index n = std::min(kRows, end - r0);
    for (Index i = 0; i < n; ++i) {
      double mm, vv;
      dot2(data_.x + (r0 + i) * D, mu, s2, D, mm, vv);
      s.m[i] = a_mean + mm + (data_.offset ? data_.offset[r0 + i] : 0.0);
      s.v[i] = a_var + vv;
    }
    EtaMoments eta{s.m.data(), s.v.data(), n, u_mean_, u_var_, nullptr};
    RowExpectations out{s.value.data(), s.dm.data(), s.dv.data(), scaled ? s.dc.data() : nullptr};
    lik.expected_log_lik(eta, rows(r0, n), out, s.quad);
    partial[0] += s.value.head(n).sum();
    if (!grad) continue;
    partial[1] += out.d_u_mean;
    partial[2] += out.d_u_var;
    for (Index i = 0; i < n; ++i) {
      const double dm = s.dm[i], dv = s.dv[i], dc = scaled ? s.dc[i] : 0.0;
      row_d_var_[r0 + i] = dv;
      if (intercept_) {
        p_dm[0] += dm;
        p_dv[0] += dv;
        p_dc[0] += dc;
      }
      const T* x = data_.x + (r0 + i) * D;
      double* gm = p_dm + a;
      double* gv = p_dv + a;
      double* gc = p_dc + a;
      for (Index j = 0; j < D; ++j) {
        const double xj = static_cast<double>(x[j]);
        gm[j] += dm * xj;
        gv[j] += dv * xj * xj;
      }
      if (scaled)
        for (Index j = 0; j < D; ++j) gc[j] += dc * static_cast<double>(x[j]);
    }
  }
}

template <class T>
void ExpectedLikelihood<T>::fullrank_chunk(int thread, Index chunk, double* partial, bool grad) {
  ThreadScratch& s = *scratch_[thread];
  const reduce::ShardPlan& plan = reducer_.plan();
  const Index begin = plan.chunk_begin_row(chunk) - data_.first_row;
  const Index end = plan.chunk_end_row(chunk) - data_.first_row;
  const Likelihood& lik = model_.likelihood();
  const Index D = D_, P = lin_, a = intercept_ ? 1 : 0;
  const bool scaled = scale_ >= 0;
  double* p_dm = partial + 3;
  double* p_dc = p_dm + P;
  double* p_g = p_dc + P;
  for (Index r0 = begin; r0 < end; r0 += kRows) {
    const Index n = std::min(kRows, end - r0);
    if (intercept_) s.xt.col(0).head(n).setOnes();
    for (Index i = 0; i < n; ++i) {
      const T* x = data_.x + (r0 + i) * D;
      for (Index j = 0; j < D; ++j) s.xt(i, a + j) = static_cast<double>(x[j]);
    }
    // Y = X~ L11, then m = X~ mean, v = rowwise |Y|^2, c = Y L_{u,lin}', column by column so that
    // each row's sum runs in a fixed order.
    s.y.topRows(n).setZero();
    s.gemm.template add_product<Eigen::ColMajor, Eigen::ColMajor>(n, P, P, s.xt.data(), kRows,
                                                                  chol_lin_.data(), P, s.y.data(), kRows);
    auto m = s.m.head(n);
    auto v = s.v.head(n);
    auto c = s.c.head(n);
    if (data_.offset)
      m = Eigen::Map<const Eigen::ArrayXd>(data_.offset + r0, n);
    else
      m.setZero();
    v.setZero();
    c.setZero();
    for (Index j = 0; j < P; ++j) {
      m += mean_lin_[j] * s.xt.col(j).head(n).array();
      v += s.y.col(j).head(n).array().square();
      if (scaled) c += cov_u_lin_[j] * s.y.col(j).head(n).array();
    }
    EtaMoments eta{s.m.data(), s.v.data(), n, u_mean_, u_var_, scaled ? s.c.data() : nullptr};
    RowExpectations out{s.value.data(), s.dm.data(), s.dv.data(), scaled ? s.dc.data() : nullptr};
    lik.expected_log_lik(eta, rows(r0, n), out, s.quad);
    partial[0] += s.value.head(n).sum();
    if (!grad) continue;
    partial[1] += out.d_u_mean;
    partial[2] += out.d_u_var;
    for (Index j = 0; j < P; ++j) {
      p_dm[j] += (s.xt.col(j).head(n).array() * s.dm.head(n)).sum();
      if (scaled) p_dc[j] += (s.xt.col(j).head(n).array() * s.dc.head(n)).sum();
      s.w.col(j).head(n) = s.xt.col(j).head(n).array() * s.dv.head(n);
    }
    // G += X~' diag(dv) X~
    s.gemm.template add_product<Eigen::RowMajor, Eigen::ColMajor>(P, P, n, s.xt.data(), kRows, s.w.data(),
                                                                  kRows, p_g, P);
  }
}

template <class T>
void ExpectedLikelihood<T>::hessian_chunk(int, Index chunk, double* partial) {
  const reduce::ShardPlan& plan = reducer_.plan();
  const Index begin = plan.chunk_begin_row(chunk) - data_.first_row;
  const Index end = plan.chunk_end_row(chunk) - data_.first_row;
  const Index D = D_, a = intercept_ ? 1 : 0;
  const double* d = direction_.data() + a;
  const double d0 = intercept_ ? direction_[0] : 0.0;
  double* out = partial + a;
  for (Index r = begin; r < end; ++r) {
    const T* x = data_.x + r * D;
    // (X~' diag(2 dv) X~ d)_j: each row adds x~_ij 2 dv_i (x~_i . d).
    const double w = 2.0 * row_d_var_[r] * (d0 + dot(x, d, D));
    if (intercept_) partial[0] += w;
    for (Index j = 0; j < D; ++j) out[j] += w * static_cast<double>(x[j]);
  }
}

template <class T>
void ExpectedLikelihood<T>::hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) {
  direction_ = d.head(lin_);
  if (total_.size() < lin_) total_.resize(lin_);
  reducer_.sum(
      lin_, [this](int thread, Index chunk, double* partial) { hessian_chunk(thread, chunk, partial); },
      total_.data(), 4.0 * double(lin_) * static_cast<double>(data_.total_rows));
  ++passes_;
  out.head(lin_) += total_.head(lin_);
  if (scale_ >= 0) {
    // The cross terms with u = log sigma: 2 G_{lin,u} = sum_i dE_i/dc_i x~_i, and 2 G_uu.
    out.head(lin_) += cross_u_ * d[scale_];
    out[scale_] += cross_u_.dot(d.head(lin_)) + 2.0 * d_u_var_ * d[scale_];
  }
}

template <class T>
Eigen::VectorXd ExpectedLikelihood<T>::initial_mean() {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(model_.dim());
  if (scale_ < 0) return m;
  double sums[2];
  reducer_.sum(
      2,
      [this](int, Index chunk, double* partial) {
        const reduce::ShardPlan& plan = reducer_.plan();
        for (Index r = plan.chunk_begin_row(chunk); r < plan.chunk_end_row(chunk); ++r) {
          const double y = data_.y[r - data_.first_row];
          partial[0] += y;
          partial[1] += y * y;
        }
      },
      sums, 2.0 * static_cast<double>(data_.total_rows));
  const double n = static_cast<double>(data_.total_rows);
  const double var = n > 1 ? (sums[1] - sums[0] * sums[0] / n) / (n - 1) : 0.0;
  m[scale_] = var > 0 ? 0.5 * std::log(var) : 0.0;
  return m;
}

template class ExpectedLikelihood<double>;
template class ExpectedLikelihood<float>;

}  // namespace bvi::models
