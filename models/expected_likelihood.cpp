#include "models/expected_likelihood.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace bvi::models {

namespace {

constexpr Index kRows = quadrature::ExpectationScratch::kRows;

// Eight doubles as one value (GCC/Clang vector extensions: one AVX-512 register, or two AVX
// ones): the sums below run in these eight fixed lanes, added in a fixed order at the end, so
// their rounding depends on the number of features alone, never on where a row sits in memory
// (a compiler's own vectorized reduction may peel an unaligned head, and a row's alignment
// changes with the number of MPI ranks).
typedef double Lanes __attribute__((vector_size(64)));
typedef float FloatLanes __attribute__((vector_size(32)));

inline Lanes load_lanes(const double* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline Lanes load_lanes(const float* p) {
  FloatLanes f;
  std::memcpy(&f, p, sizeof f);
  return __builtin_convertvector(f, Lanes);
}
inline double lane_sum(Lanes v) {
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

// For rows x_r (r < R, D features each): m_r = sum_j x_rj b_j and v_r = sum_j x_rj^2 c_j.
template <int R, class T>
inline void moments(const T* const* x, const double* b, const double* c, Index D, double* m, double* v) {
  Lanes sm[R], sv[R];
  for (int r = 0; r < R; ++r) sm[r] = sv[r] = Lanes{};
  Index j = 0;
  for (; j + 8 <= D; j += 8) {
    const Lanes bj = load_lanes(b + j), cj = load_lanes(c + j);
    for (int r = 0; r < R; ++r) {
      const Lanes xr = load_lanes(x[r] + j);
      sm[r] += xr * bj;
      sv[r] += xr * xr * cj;
    }
  }
  for (int r = 0; r < R; ++r) {
    double tm = 0.0, tv = 0.0;
    for (Index k = j; k < D; ++k) {
      const double a = static_cast<double>(x[r][k]);
      tm += a * b[k];
      tv += a * a * c[k];
    }
    m[r] = lane_sum(sm[r]) + tm;
    v[r] = lane_sum(sv[r]) + tv;
  }
}

template <class T>
inline double dot(const T* a, const double* b, Index n) {
  Lanes s{};
  Index j = 0;
  for (; j + 8 <= n; j += 8) s += load_lanes(a + j) * load_lanes(b + j);
  double t = 0.0;
  for (; j < n; ++j) t += static_cast<double>(a[j]) * b[j];
  return lane_sum(s) + t;
}

// gm += X' dm, gv += (X .* X)' dv and, with dc, gc += X' dc, for the n rows of a row-major
// block: four rows at a time, so each gradient entry is loaded and stored once per four rows
// rather than once per row (the pass is otherwise bound by those loads and stores, not by X).
// Each entry's sum still runs over the rows in order, whatever the threads.
template <class T>
void accumulate(const T* __restrict x, Index D, Index n, const double* dm, const double* dv, const double* dc,
                double* __restrict gm, double* __restrict gv, double* __restrict gc) {
  Index i = 0;
  for (; i + 4 <= n; i += 4) {
    const T* __restrict x0 = x + i * D;
    const T* __restrict x1 = x0 + D;
    const T* __restrict x2 = x1 + D;
    const T* __restrict x3 = x2 + D;
    const double m0 = dm[i], m1 = dm[i + 1], m2 = dm[i + 2], m3 = dm[i + 3];
    const double v0 = dv[i], v1 = dv[i + 1], v2 = dv[i + 2], v3 = dv[i + 3];
    for (Index j = 0; j < D; ++j) {
      const double a0 = static_cast<double>(x0[j]), a1 = static_cast<double>(x1[j]),
                   a2 = static_cast<double>(x2[j]), a3 = static_cast<double>(x3[j]);
      gm[j] = (((gm[j] + m0 * a0) + m1 * a1) + m2 * a2) + m3 * a3;
      gv[j] = (((gv[j] + v0 * a0 * a0) + v1 * a1 * a1) + v2 * a2 * a2) + v3 * a3 * a3;
    }
    if (dc) {
      const double c0 = dc[i], c1 = dc[i + 1], c2 = dc[i + 2], c3 = dc[i + 3];
      for (Index j = 0; j < D; ++j)
        gc[j] = (((gc[j] + c0 * static_cast<double>(x0[j])) + c1 * static_cast<double>(x1[j])) +
                 c2 * static_cast<double>(x2[j])) +
                c3 * static_cast<double>(x3[j]);
    }
  }
  for (; i < n; ++i) {
    const T* __restrict xi = x + i * D;
    for (Index j = 0; j < D; ++j) {
      const double a = static_cast<double>(xi[j]);
      gm[j] += dm[i] * a;
      gv[j] += dv[i] * a * a;
    }
    if (dc)
      for (Index j = 0; j < D; ++j) gc[j] += dc[i] * static_cast<double>(xi[j]);
  }
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
    // One row at a time: interleaving four rows' loads measured 2.4x slower (the hardware
    // prefetcher follows one sequential stream better than four strided ones).
    for (Index i = 0; i < n; ++i) {
      const T* row = data_.x + (r0 + i) * D;
      moments<1>(&row, mu, s2, D, &s.m[i], &s.v[i]);
    }
    for (Index i = 0; i < n; ++i) {
      s.m[i] += a_mean + (data_.offset ? data_.offset[r0 + i] : 0.0);
      s.v[i] += a_var;
    }
    EtaMoments eta{s.m.data(), s.v.data(), n, u_mean_, u_var_, nullptr};
    RowExpectations out{s.value.data(), s.dm.data(), s.dv.data(), scaled ? s.dc.data() : nullptr};
    lik.expected_log_lik(eta, rows(r0, n), out, s.quad);
    partial[0] += s.value.head(n).sum();
    if (!grad) continue;
    partial[1] += out.d_u_mean;
    partial[2] += out.d_u_var;
    for (Index i = 0; i < n; ++i) row_d_var_[r0 + i] = s.dv[i];
    if (intercept_) {
      p_dm[0] += s.dm.head(n).sum();
      p_dv[0] += s.dv.head(n).sum();
      if (scaled) p_dc[0] += s.dc.head(n).sum();
    }
    accumulate(data_.x + r0 * D, D, n, s.dm.data(), s.dv.data(), scaled ? s.dc.data() : nullptr, p_dm + a,
               p_dv + a, p_dc + a);
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
