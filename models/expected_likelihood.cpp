#include "models/expected_likelihood.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "models/expected_likelihood_scratch.hpp"
#include "models/pooled_response.hpp"

namespace bvi::models {

namespace {


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

// The rows ahead of the one being read whose lines are prefetched: about kPrefetchBytes. The
// hardware prefetcher follows the rows' stream but loses it at every sub-block, where the pass
// turns back to the sub-block's start for the gradient; the next sub-block's first rows then came
// from memory at full latency. Prefetched this far ahead they arrive while the gradient is summed:
// on 10^6 x 100 the pass over X measured 2.8 -> 1.65 reads in a microbenchmark of the two loops.
constexpr Index kPrefetchBytes = 96 * 800;
template <class T>
Index prefetch_distance(Index D) {
  return std::max<Index>(1, kPrefetchBytes / std::max<Index>(1, D * static_cast<Index>(sizeof(T))));
}
template <class T>
inline void prefetch_row(const T* row, Index D) {
  const char* p = reinterpret_cast<const char*>(row);
  const Index bytes = D * static_cast<Index>(sizeof(T));
  for (Index b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 0, 3);
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
  des_ = lin_;
  const auto& priors = model.group_priors();
  if (static_cast<int>(priors.size()) != data_.n_groups)
    throw std::logic_error("expected likelihood: the model's group terms and the data's disagree");
  for (int f = 0; f < data_.n_groups; ++f) {
    Factor fac;
    fac.data = &data_.groups[f];
    fac.r_offset = priors[static_cast<std::size_t>(f)].r_offset;
    fac.groups = priors[static_cast<std::size_t>(f)].groups;
    fac.effects = priors[static_cast<std::size_t>(f)].effects;
    if (fac.effects != fac.data->effects() || fac.groups != fac.data->groups())
      throw std::logic_error("expected likelihood: a factor's effects and its data disagree");
    fac.des_offset = des_;
    des_ += fac.groups * fac.effects;
    max_effects_ = std::max(max_effects_, fac.effects);
    factors_.push_back(fac);
  }
  scale_ = model.likelihood().scale_column();
  log_constants_.resize(data_.rows);
  if (!model.likelihood().log_constants(data_.y, data_.trials, data_.rows, log_constants_.data()))
    log_constants_.resize(0);
  row_d_var_.setZero(data_.rows);
}

template <class T>
ExpectedLikelihood<T>::~ExpectedLikelihood() = default;

template <class T>
std::pair<Index, Index> ExpectedLikelihood<T>::chunk_rows(Index chunk) const {
  return data_.chunk_rows(reducer_.plan(), chunk);
}

template <class T>
Index ExpectedLikelihood<T>::layout_column(Index j) const {
  if (j < lin_) return j;
  for (const Factor& f : factors_)
    if (j < f.des_offset + f.groups * f.effects) return f.r_offset + (j - f.des_offset);
  throw std::logic_error("expected likelihood: design coordinate out of range");
}

template <class T>
ad::GlmRows ExpectedLikelihood<T>::rows(Index first, Index n) const {
  ad::GlmRows r;
  r.y = data_.y + first;
  r.trials = data_.trials ? data_.trials + first : nullptr;
  r.offset = data_.offset ? data_.offset + first : nullptr;
  r.weight = data_.weight ? data_.weight + first : nullptr;
  r.log_constant = log_constants_.size() ? log_constants_.data() + first : nullptr;
  r.rows = n;
  return r;
}

template <class T>
void ExpectedLikelihood<T>::take_out_location() {
  location_ = intercept_ && model_.likelihood().location_family() ? mean_des_[0] : 0.0;
  if (intercept_) mean_des_[0] -= location_;
}

template <class T>
ad::GlmRows ExpectedLikelihood<T>::shifted_rows(Index first, Index n, Eigen::ArrayXd& buffer) const {
  ad::GlmRows r = rows(first, n);
  if (location_ != 0.0) {
    buffer.head(n) = Eigen::Map<const Eigen::ArrayXd>(r.y, n) - location_;
    r.y = buffer.data();
  }
  return r;
}

template <class T>
void ExpectedLikelihood<T>::prepare_scratch(int kind, Index P) {
  if (static_cast<int>(scratch_.size()) == reducer_.threads() && scratch_kind_ == kind) return;
  scratch_.clear();
  for (int t = 0; t < reducer_.threads(); ++t) {
    scratch_.push_back(std::make_unique<ThreadScratch>(des_, P, kind == 1));
    if (kind == 2) scratch_.back()->sparse(lin_, max_effects_);
  }
  scratch_kind_ = kind;
}

template <class T>
double ExpectedLikelihood<T>::evaluate(const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  if (q.sparse()) return evaluate_sparse(q, grad);
  const bool dense = q.dense;
  const Index P = q.dim();
  prepare_scratch(dense ? 1 : 0, P);
  mean_des_.resize(des_);
  for (Index j = 0; j < des_; ++j) mean_des_[j] = q.mean[layout_column(j)];
  take_out_location();
  if (dense) {
    chol_des_.resize(des_, P);
    for (Index j = 0; j < des_; ++j) chol_des_.row(j) = q.chol.row(layout_column(j));
    if (scale_ >= 0) chol_u_ = q.chol.row(scale_).transpose();
  } else {
    var_des_.resize(des_);
    for (Index j = 0; j < des_; ++j) var_des_[j] = q.var(layout_column(j));
  }
  u_mean_ = scale_ >= 0 ? q.mean[scale_] : 0.0;
  u_var_ = scale_ >= 0 ? q.var(scale_) : 0.0;

  const bool scaled = scale_ >= 0;
  const Index len = 3 + (grad ? (dense ? 2 * des_ + des_ * des_ : (scaled ? 3 : 2) * des_) : 0);
  if (total_.size() < len) total_.resize(len);
  const bool g = grad != nullptr;
  const double K = static_cast<double>(des_ - lin_) / std::max<double>(1.0, double(data_.total_rows));
  const double per_row = dense ? 4.0 * double(des_) * double(P) + 40.0 : 10.0 * double(lin_) + 10.0 * K + 100.0;
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
  for (Index j = 0; j < des_; ++j) grad->d_mean[layout_column(j)] += t[3 + j];
  if (dense) {
    const double* dc = t + 3 + des_;
    const double* G = t + 3 + 2 * des_;
    for (Index k = 0; k < des_; ++k) {
      const Index lk = layout_column(k);
      for (Index j = 0; j < des_; ++j) grad->d_cov(layout_column(j), lk) += G[j + k * des_];
    }
    if (scaled)
      // dE = sum_i dE_i/dc_i x~_i' dSigma_{des,u}: half of it on each side of the symmetric G.
      for (Index j = 0; j < des_; ++j) {
        grad->d_cov(layout_column(j), scale_) += 0.5 * dc[j];
        grad->d_cov(scale_, layout_column(j)) += 0.5 * dc[j];
      }
  } else {
    for (Index j = 0; j < des_; ++j) grad->d_var[layout_column(j)] += t[3 + des_ + j];
    if (scaled)
      cross_u_ = Eigen::Map<const Eigen::VectorXd>(t + 3 + 2 * des_, des_);
    else
      cross_u_.setZero(des_);
    d_u_var_ = t[2];
  }
  if (scaled) {
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
  const auto [begin, end] = chunk_rows(chunk);
  const Likelihood& lik = model_.likelihood();
  const Index D = D_, a = intercept_ ? 1 : 0;
  const double* mu = mean_des_.data() + a;
  const double* s2 = var_des_.data() + a;
  const double a_mean = intercept_ ? mean_des_[0] : 0.0, a_var = intercept_ ? var_des_[0] : 0.0;
  double* p_dm = partial + 3;
  double* p_dv = p_dm + des_;
  double* p_dc = p_dv + des_;
  const bool scaled = scale_ >= 0;
  const Index prefetch_rows = prefetch_distance<T>(D);
  for (Index r0 = begin; r0 < end; r0 += kRows) {
    const Index n = std::min(kRows, end - r0);
    // One row at a time: interleaving four rows' loads measured 2.4x slower (the hardware
    // prefetcher follows one sequential stream better than four strided ones).
    for (Index i = 0; i < n; ++i) {
      const T* row = data_.x + (r0 + i) * D;
      if (r0 + i + prefetch_rows < end) prefetch_row(data_.x + (r0 + i + prefetch_rows) * D, D);
      moments<1>(&row, mu, s2, D, &s.m[i], &s.v[i]);
    }
    for (Index i = 0; i < n; ++i) {
      s.m[i] += a_mean + (data_.offset ? data_.offset[r0 + i] : 0.0);
      s.v[i] += a_var;
    }
    // The rows' group effects: z . mean and z^2 . var at each factor's group of the row.
    for (const Factor& f : factors_) {
      const data::GroupData<T>& gd = *f.data;
      const Index K = f.effects, S = gd.slopes.cols(), first = gd.intercept ? 1 : 0;
      for (Index i = 0; i < n; ++i) {
        const Index base = f.des_offset + Index(gd.level[static_cast<std::size_t>(r0 + i)]) * K;
        double mm = 0.0, vv = 0.0;
        if (gd.intercept) {
          mm += mean_des_[base];
          vv += var_des_[base];
        }
        for (Index k = 0; k < S; ++k) {
          const double z = static_cast<double>(gd.slopes(r0 + i, k));
          mm += z * mean_des_[base + first + k];
          vv += z * z * var_des_[base + first + k];
        }
        s.m[i] += mm;
        s.v[i] += vv;
      }
    }
    EtaMoments eta{s.m.data(), s.v.data(), n, u_mean_, u_var_, nullptr};
    RowExpectations out{s.value.data(), s.dm.data(), s.dv.data(), scaled ? s.dc.data() : nullptr};
    const ad::GlmRows block_rows = shifted_rows(r0, n, s.y_shifted);
    lik.expected_log_lik(eta, block_rows, out, s.quad);
    weight_row_expectations(block_rows, out);
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
    accumulate(data_.x + r0 * D, D, n, s.dm.data(), s.dv.data(), scaled ? s.dc.data() : nullptr, p_dm + a, p_dv + a,
               p_dc + a);
    for (const Factor& f : factors_) {
      const data::GroupData<T>& gd = *f.data;
      const Index K = f.effects, S = gd.slopes.cols(), first = gd.intercept ? 1 : 0;
      for (Index i = 0; i < n; ++i) {
        const Index base = f.des_offset + Index(gd.level[static_cast<std::size_t>(r0 + i)]) * K;
        const double dm = s.dm[i], dv = s.dv[i], dc = scaled ? s.dc[i] : 0.0;
        if (gd.intercept) {
          p_dm[base] += dm;
          p_dv[base] += dv;
          if (scaled) p_dc[base] += dc;
        }
        for (Index k = 0; k < S; ++k) {
          const double z = static_cast<double>(gd.slopes(r0 + i, k));
          p_dm[base + first + k] += dm * z;
          p_dv[base + first + k] += dv * z * z;
          if (scaled) p_dc[base + first + k] += dc * z;
        }
      }
    }
  }
}

template <class T>
void ExpectedLikelihood<T>::fullrank_chunk(int thread, Index chunk, double* partial, bool grad) {
  ThreadScratch& s = *scratch_[thread];
  const auto [begin, end] = chunk_rows(chunk);
  const Likelihood& lik = model_.likelihood();
  const Index D = D_, P = des_, a = intercept_ ? 1 : 0, Pq = chol_des_.cols();
  const bool scaled = scale_ >= 0;
  double* p_dm = partial + 3;
  double* p_dc = p_dm + P;
  double* p_g = p_dc + P;
  const Index prefetch_rows = prefetch_distance<T>(D);
  for (Index r0 = begin; r0 < end; r0 += kRows) {
    const Index n = std::min(kRows, end - r0);
    // The sub-block's dense design: (1, x_i), then each factor's z_i at its group's columns.
    s.xt.topRows(n).setZero();
    if (intercept_) s.xt.col(0).head(n).setOnes();
    for (Index i = 0; i < n; ++i) {
      const T* x = data_.x + (r0 + i) * D;
      if (r0 + i + prefetch_rows < end) prefetch_row(data_.x + (r0 + i + prefetch_rows) * D, D);
      for (Index j = 0; j < D; ++j) s.xt(i, a + j) = static_cast<double>(x[j]);
    }
    for (const Factor& f : factors_) {
      const data::GroupData<T>& gd = *f.data;
      const Index K = f.effects, S = gd.slopes.cols(), first = gd.intercept ? 1 : 0;
      for (Index i = 0; i < n; ++i) {
        const Index base = f.des_offset + Index(gd.level[static_cast<std::size_t>(r0 + i)]) * K;
        if (gd.intercept) s.xt(i, base) = 1.0;
        for (Index k = 0; k < S; ++k) s.xt(i, base + first + k) = static_cast<double>(gd.slopes(r0 + i, k));
      }
    }
    // Y = X~ L_des, then m = X~ mean, v = rowwise |Y|^2, c = Y L_u', column by column so that
    // each row's sum runs in a fixed order.
    s.y.topRows(n).setZero();
    s.gemm.template add_product<Eigen::ColMajor, Eigen::ColMajor>(n, Pq, P, s.xt.data(), kRows, chol_des_.data(), P,
                                                                  s.y.data(), kRows);
    auto m = s.m.head(n);
    auto v = s.v.head(n);
    auto c = s.c.head(n);
    if (data_.offset)
      m = Eigen::Map<const Eigen::ArrayXd>(data_.offset + r0, n);
    else
      m.setZero();
    v.setZero();
    c.setZero();
    for (Index j = 0; j < P; ++j) m += mean_des_[j] * s.xt.col(j).head(n).array();
    for (Index j = 0; j < Pq; ++j) {
      v += s.y.col(j).head(n).array().square();
      if (scaled) c += chol_u_[j] * s.y.col(j).head(n).array();
    }
    EtaMoments eta{s.m.data(), s.v.data(), n, u_mean_, u_var_, scaled ? s.c.data() : nullptr};
    RowExpectations out{s.value.data(), s.dm.data(), s.dv.data(), scaled ? s.dc.data() : nullptr};
    const ad::GlmRows block_rows = shifted_rows(r0, n, s.y_shifted);
    lik.expected_log_lik(eta, block_rows, out, s.quad);
    weight_row_expectations(block_rows, out);
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
    s.gemm.template add_product<Eigen::RowMajor, Eigen::ColMajor>(P, P, n, s.xt.data(), kRows, s.w.data(), kRows,
                                                                  p_g, P);
  }
}

template <class T>
void ExpectedLikelihood<T>::hessian_chunk(int, Index chunk, double* partial) {
  const auto [begin, end] = chunk_rows(chunk);
  const Index D = D_, a = intercept_ ? 1 : 0;
  const double* d = direction_.data() + a;
  const double d0 = intercept_ ? direction_[0] : 0.0;
  double* out = partial + a;
  for (Index r = begin; r < end; ++r) {
    const T* x = data_.x + r * D;
    // (X~' diag(2 dv) X~ d)_j: each row adds x~_ij 2 dv_i (x~_i . d).
    double t = d0 + dot(x, d, D);
    for (const Factor& f : factors_) {
      const data::GroupData<T>& gd = *f.data;
      const Index base = f.des_offset + Index(gd.level[static_cast<std::size_t>(r)]) * f.effects;
      const Index first = gd.intercept ? 1 : 0;
      if (gd.intercept) t += direction_[base];
      for (Index k = 0; k < gd.slopes.cols(); ++k)
        t += static_cast<double>(gd.slopes(r, k)) * direction_[base + first + k];
    }
    const double w = 2.0 * row_d_var_[r] * t;
    if (intercept_) partial[0] += w;
    for (Index j = 0; j < D; ++j) out[j] += w * static_cast<double>(x[j]);
    for (const Factor& f : factors_) {
      const data::GroupData<T>& gd = *f.data;
      const Index base = f.des_offset + Index(gd.level[static_cast<std::size_t>(r)]) * f.effects;
      const Index first = gd.intercept ? 1 : 0;
      if (gd.intercept) partial[base] += w;
      for (Index k = 0; k < gd.slopes.cols(); ++k) partial[base + first + k] += w * static_cast<double>(gd.slopes(r, k));
    }
  }
}

template <class T>
void ExpectedLikelihood<T>::hessian_times(const Eigen::VectorXd& d, Eigen::VectorXd& out) {
  direction_.resize(des_);
  for (Index j = 0; j < des_; ++j) direction_[j] = d[layout_column(j)];
  if (total_.size() < des_) total_.resize(des_);
  reducer_.sum(
      des_, [this](int thread, Index chunk, double* partial) { hessian_chunk(thread, chunk, partial); },
      total_.data(), 4.0 * double(des_) * static_cast<double>(data_.total_rows));
  ++passes_;
  for (Index j = 0; j < des_; ++j) out[layout_column(j)] += total_[j];
  if (scale_ >= 0) {
    // The cross terms with u = log sigma: 2 G_{des,u} = sum_i dE_i/dc_i x~_i, and 2 G_uu.
    double cross = 0.0;
    for (Index j = 0; j < des_; ++j) {
      out[layout_column(j)] += cross_u_[j] * d[scale_];
      cross += cross_u_[j] * direction_[j];
    }
    out[scale_] += cross + 2.0 * d_u_var_ * d[scale_];
  }
}

template <class T>
Eigen::VectorXd ExpectedLikelihood<T>::initial_mean() {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(model_.dim());
  if (scale_ < 0 && !intercept_) return m;
  // Weighted sums over the rows: w, w y, w log y (and the rows with y <= 0, where log y is none),
  // w log(y + 1/2), w offset; the variance about the mean from pooled_response.
  enum { kW, kY, kLogY, kNonPositive, kLogHalfY, kOffset, kSums };
  double sums[kSums];
  reducer_.sum(
      kSums,
      [this](int, Index chunk, double* partial) {
        const auto [begin, end] = chunk_rows(chunk);
        for (Index r = begin; r < end; ++r) {
          const double w = data_.weight != nullptr ? data_.weight[r] : 1.0, y = data_.y[r];
          partial[kW] += w;
          partial[kY] += w * y;
          if (y > 0.0)
            partial[kLogY] += w * std::log(y);
          else
            partial[kNonPositive] += 1.0;
          partial[kLogHalfY] += w * std::log(y + 0.5);
          if (data_.offset != nullptr) partial[kOffset] += w * data_.offset[r];
        }
      },
      sums, 9.0 * static_cast<double>(data_.total_rows));
  const double W = sums[kW];
  if (!(W > 0.0)) return m;  // no rows, or every weight 0: nothing to start from
  if (scale_ >= 0) {
    const PooledResponse y = pooled_response(data_, reducer_);
    m[scale_] = model_.likelihood().initial_scale(y.mean, y.var);
    model_.start_group_scales(m);
  }
  if (intercept_) {
    ResponseMoments moments;
    moments.mean = sums[kY] / W;
    if (sums[kNonPositive] == 0.0) moments.log_mean = sums[kLogY] / W;
    moments.log_half_mean = sums[kLogHalfY] / W;
    const double eta = model_.likelihood().initial_eta(moments);
    if (std::isfinite(eta)) m[0] = eta - sums[kOffset] / W;  // alpha leads the layout
  }
  return m;
}

template class ExpectedLikelihood<double>;
template class ExpectedLikelihood<float>;

}  // namespace bvi::models
