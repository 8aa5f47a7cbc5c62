// The sparse family's pass of ExpectedLikelihood (expected_likelihood.hpp): Sigma's entries on the
// precision's pattern in, dE/dSigma on it out.
//
// A chunk's partial sums hold the head (value, u's derivatives, dE/dmean over the design
// coordinates, the globals' block) and then only the blocks of the groups (and crossed level
// pairs) its rows touch, packed: the pattern's values for all groups in every chunk's slot would
// be 64 x (every group's K (K + n)) numbers zeroed and added at each evaluation. The blocks are
// added into the total chunk by chunk in chunk order, as the reducer adds everything, so a block's
// sum is the one a dense slot would give (a chunk that does not touch a group adds +0 there), and
// every thread and rank count gives the same bits.
#include <algorithm>
#include <stdexcept>

#include "models/expected_likelihood.hpp"
#include "models/expected_likelihood_scratch.hpp"

namespace bvi::models {

namespace {

// Row r's covariate of effect k of a factor: 1 for its intercept, else the slope's value.
template <class T>
inline double effect_covariate(const data::GroupData<T>& gd, Index r, Index k) {
  if (gd.intercept) {
    if (k == 0) return 1.0;
    --k;
  }
  return static_cast<double>(gd.slopes(r, k));
}

// All K of them into z.
template <class T>
inline void effect_covariates(const data::GroupData<T>& gd, Index r, Index K, double* z) {
  for (Index k = 0; k < K; ++k) z[k] = effect_covariate(gd, r, k);
}

}  // namespace

template <class T>
void ExpectedLikelihood<T>::pack_chunks(const vi::BlockPattern& pattern) {
  const std::size_t F = factors_.size(), NP = pattern.pairs().size();
  const Index n = pattern.n_global();
  // Each factor pair's level-pair index per row.
  row_pair_.assign(NP, {});
  for (std::size_t p = 0; p < NP; ++p) {
    const auto& pr = pattern.pairs()[p];
    const auto& l1 = factors_[static_cast<std::size_t>(pr.f1)].data->level;
    const auto& l2 = factors_[static_cast<std::size_t>(pr.f2)].data->level;
    auto& out = row_pair_[p];
    out.resize(l1.size());
    for (std::size_t r = 0; r < l1.size(); ++r) {
      const Index at = pattern.find_pair(p, l1[r], l2[r]);
      if (at < 0) throw std::logic_error("expected likelihood: a row's level pair is not in the sparse pattern");
      out[r] = static_cast<std::int32_t>(at);
    }
  }
  // Block ids and sizes: factor f's groups, then pair p's level pairs.
  block_base_.assign(F + NP + 1, 0);
  std::vector<Index> size_of(F + NP);
  for (std::size_t f = 0; f < F; ++f) {
    const Index K = factors_[f].effects;
    block_base_[f + 1] = block_base_[f] + factors_[f].groups;
    size_of[f] = K * K + K * n;
  }
  for (std::size_t p = 0; p < NP; ++p) {
    const auto& pr = pattern.pairs()[p];
    block_base_[F + p + 1] = block_base_[F + p] + static_cast<Index>(pr.levels.size());
    size_of[F + p] = factors_[static_cast<std::size_t>(pr.f1)].effects * factors_[static_cast<std::size_t>(pr.f2)].effects;
  }
  // This rank's chunks: blocks in order of first appearance, each row's block position.
  const Index first = reducer_.first_chunk(), last = reducer_.last_chunk();
  row_block_.assign(F, std::vector<std::int32_t>(static_cast<std::size_t>(data_.rows)));
  pair_block_.assign(NP, std::vector<std::int32_t>(static_cast<std::size_t>(data_.rows)));
  std::vector<Index> where(static_cast<std::size_t>(block_base_.back()), -1);  // a block's position in the chunk
  std::vector<double> mine;  // per owned chunk: [count, ids ...], for the gather
  Index longest = 0;
  for (Index c = first; c < last; ++c) {
    const auto [begin, end] = chunk_rows(c);
    std::vector<Index> ids;
    Index at = 0;
    auto place = [&](std::size_t kind, Index id) {
      Index& w = where[static_cast<std::size_t>(id)];
      if (w < 0) {
        w = at;
        at += size_of[kind];
        ids.push_back(id);
      }
      return static_cast<std::int32_t>(w);
    };
    for (Index r = begin; r < end; ++r) {
      for (std::size_t f = 0; f < F; ++f)
        row_block_[f][static_cast<std::size_t>(r)] =
            place(f, block_base_[f] + factors_[f].data->level[static_cast<std::size_t>(r)]);
      for (std::size_t p = 0; p < NP; ++p)
        pair_block_[p][static_cast<std::size_t>(r)] = place(F + p, block_base_[F + p] + row_pair_[p][static_cast<std::size_t>(r)]);
    }
    for (Index id : ids) where[static_cast<std::size_t>(id)] = -1;
    longest = std::max(longest, at);
    mine.push_back(static_cast<double>(ids.size()));
    for (Index id : ids) mine.push_back(static_cast<double>(id));
  }
  // Every chunk's list on every rank (the combination runs over all chunks everywhere), and the
  // longest packed partial of all.
  reduce::Communicator& comm = reducer_.comm();
  const std::vector<double> all = reduce::all_doubles(mine, comm);
  long len = longest;
  comm.allreduce_max(&len, 1);
  const Index chunks = reducer_.plan().n_chunks;
  chunk_blocks_.assign(static_cast<std::size_t>(chunks), {});
  std::size_t at = 0;
  for (Index c = 0; c < chunks; ++c) {
    const auto count = static_cast<std::size_t>(all.at(at++));
    auto& ids = chunk_blocks_[static_cast<std::size_t>(c)];
    ids.reserve(count);
    for (std::size_t k = 0; k < count; ++k) ids.push_back(static_cast<Index>(all.at(at++)));
  }
  head_len_ = 3 + des_ + n * n;
  packed_len_ = len;
  indexed_ = &pattern;
}

template <class T>
double ExpectedLikelihood<T>::evaluate_sparse(const vi::GaussianQ& q, vi::ExpectationGradient* grad) {
  prepare_scratch(2, q.dim());
  mean_des_.resize(des_);
  for (Index j = 0; j < des_; ++j) mean_des_[j] = q.mean[layout_column(j)];
  take_out_location();
  const vi::BlockPattern& pat = q.pattern();
  if (indexed_ != &pat) pack_chunks(pat);
  pattern_ = &pat;
  sigma_ = q.sigma.data();
  // The population coordinates lead the layout, so they are globals 0 .. lin - 1.
  const Index n = pat.n_global();
  sigma_lin_ = Eigen::Map<const Eigen::MatrixXd>(sigma_, n, n).topLeftCorner(lin_, lin_);
  const bool scaled = scale_ >= 0;
  u_global_ = -1;
  if (scaled) {
    for (Index j = 0; j < n; ++j)
      if (pat.globals()[static_cast<std::size_t>(j)] == scale_) u_global_ = j;
    sigma_lin_u_ = Eigen::Map<const Eigen::MatrixXd>(sigma_, n, n).col(u_global_).head(lin_);
  }
  u_mean_ = scaled ? q.mean[scale_] : 0.0;
  u_var_ = scaled ? q.var(scale_) : 0.0;

  const bool g = grad != nullptr;
  const double K = static_cast<double>(des_ - lin_) / std::max<double>(1.0, double(data_.total_rows));
  const double per_row = 4.0 * double(lin_) * double(lin_) + 20.0 * double(lin_) + 10.0 * K + 100.0;
  auto work = [this, g](int thread, Index chunk, double* partial) { sparse_chunk(thread, chunk, partial, g); };
  const double flops = per_row * static_cast<double>(data_.total_rows);
  ++passes_;
  if (!grad) {
    if (total_.size() < 3) total_.resize(3);
    reducer_.sum(3, work, total_.data(), flops);
    return total_[0];
  }
  const Index V = pat.size();
  if (total_.size() < 3 + des_ + V) total_.resize(3 + des_ + V);
  total_.head(3 + des_ + V).setZero();
  const std::size_t F = factors_.size();
  reducer_.sum(
      head_len_ + packed_len_, work,
      [&](Index chunk, const double* slot) {
        double* t = total_.data();
        for (Index j = 0; j < head_len_; ++j) t[j] += slot[j];
        double* G = t + 3 + des_;
        const double* packed = slot + head_len_;
        Index at = 0;
        for (Index id : chunk_blocks_[static_cast<std::size_t>(chunk)]) {
          const auto kind = static_cast<std::size_t>(
              std::upper_bound(block_base_.begin(), block_base_.end(), id) - block_base_.begin() - 1);
          const Index local = id - block_base_[kind];
          if (kind < F) {
            const Index Kf = factors_[kind].effects;
            double* within = G + pat.within_block(kind, local);
            double* cross = G + pat.cross_block(kind, local);
            for (Index k = 0; k < Kf * Kf; ++k) within[k] += packed[at + k];
            at += Kf * Kf;
            for (Index k = 0; k < Kf * n; ++k) cross[k] += packed[at + k];
            at += Kf * n;
          } else {
            const auto& pr = pat.pairs()[kind - F];
            const Index size = factors_[static_cast<std::size_t>(pr.f1)].effects *
                               factors_[static_cast<std::size_t>(pr.f2)].effects;
            double* blk = G + pat.pair_block(kind - F, local);
            for (Index k = 0; k < size; ++k) blk[k] += packed[at + k];
            at += size;
          }
        }
      },
      flops);
  const double* t = total_.data();
  const double value = t[0];
  grad->value += value;
  for (Index j = 0; j < des_; ++j) grad->d_mean[layout_column(j)] += t[3 + j];
  grad->d_sparse += Eigen::Map<const Eigen::VectorXd>(t + 3 + des_, V);
  if (scaled) {
    grad->d_mean[scale_] += t[1];
    grad->d_sparse[pat.slot(scale_, scale_)] += t[2];
  }
  return value;
}

template <class T>
void ExpectedLikelihood<T>::sparse_chunk(int thread, Index chunk, double* partial, bool grad) {
  ThreadScratch& s = *scratch_[thread];
  const auto [begin, end] = chunk_rows(chunk);
  const Likelihood& lik = model_.likelihood();
  const vi::BlockPattern& pat = *pattern_;
  const double* sigma = sigma_;
  const Index D = D_, lin = lin_, a = intercept_ ? 1 : 0, n_glob = pat.n_global(), gu = u_global_;
  const bool scaled = scale_ >= 0;
  double* p_dm = partial + 3;
  double* p_g = p_dm + des_;            // the global block (n x n), then the chunk's packed blocks
  double* packed = partial + head_len_;
  if (grad) {
    s.g_lin.setZero();
    s.dc_lin.setZero();
  }
  for (Index r0 = begin; r0 < end; r0 += kRows) {
    const Index n = std::min(kRows, end - r0);
    if (intercept_) s.xt.col(0).head(n).setOnes();
    for (Index i = 0; i < n; ++i) {
      const T* x = data_.x + (r0 + i) * D;
      for (Index j = 0; j < D; ++j) s.xt(i, a + j) = static_cast<double>(x[j]);
    }
    // Y = X Sigma_lin: v_i = x_i' Sigma_lin x_i, row by row in a fixed order.
    s.y.topRows(n).setZero();
    s.gemm.template add_product<Eigen::ColMajor, Eigen::ColMajor>(n, lin, lin, s.xt.data(), kRows, sigma_lin_.data(),
                                                                  lin, s.y.data(), kRows);
    for (Index i = 0; i < n; ++i) {
      double m = data_.offset ? data_.offset[r0 + i] : 0.0, v = 0.0, c = 0.0;
      for (Index j = 0; j < lin; ++j) {
        const double x = s.xt(i, j);
        m += x * mean_des_[j];
        v += x * s.y(i, j);
        if (scaled) c += x * sigma_lin_u_[j];
      }
      s.m[i] = m;
      s.v[i] = v;
      s.c[i] = c;
    }
    // Each factor's effects: their means, covariances with the population coordinates (the cross
    // block), with each other (the within block) and with u.
    for (std::size_t f = 0; f < factors_.size(); ++f) {
      const data::GroupData<T>& gd = *factors_[f].data;
      const Index K = factors_[f].effects;
      double* z = s.z.data();
      for (Index i = 0; i < n; ++i) {
        const Index g = gd.level[static_cast<std::size_t>(r0 + i)];
        const Index base = factors_[f].des_offset + g * K;
        effect_covariates(gd, r0 + i, K, z);
        const double* cross = sigma + pat.cross_block(f, g);
        const double* within = sigma + pat.within_block(f, g);
        double m = 0.0, v = 0.0, c = 0.0;
        for (Index k = 0; k < K; ++k) {
          const double* ck = cross + k * n_glob;
          double t = 0.0;
          for (Index j = 0; j < lin; ++j) t += ck[j] * s.xt(i, j);
          double w = 0.0;
          for (Index l = 0; l < K; ++l) w += within[k * K + l] * z[l];
          m += z[k] * mean_des_[base + k];
          v += z[k] * (2.0 * t + w);
          if (scaled) c += z[k] * ck[gu];
        }
        s.m[i] += m;
        s.v[i] += v;
        s.c[i] += c;
      }
    }
    // Crossed or nested factors: the rows' level pairs.
    for (std::size_t p = 0; p < pat.pairs().size(); ++p) {
      const auto& pr = pat.pairs()[p];
      const auto f1 = static_cast<std::size_t>(pr.f1), f2 = static_cast<std::size_t>(pr.f2);
      const data::GroupData<T>& d1 = *factors_[f1].data;
      const data::GroupData<T>& d2 = *factors_[f2].data;
      const Index K1 = factors_[f1].effects, K2 = factors_[f2].effects;
      for (Index i = 0; i < n; ++i) {
        const std::size_t r = static_cast<std::size_t>(r0 + i);
        const double* blk = sigma + pat.pair_block(p, row_pair_[p][r]);
        double t = 0.0;
        for (Index u = 0; u < K1; ++u) {
          const double z1 = effect_covariate(d1, r0 + i, u);
          for (Index w = 0; w < K2; ++w) {
            const double z2 = effect_covariate(d2, r0 + i, w);
            t += z1 * z2 * blk[u * K2 + w];
          }
        }
        s.v[i] += 2.0 * t;
      }
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
    // The population block: dE/dmean = X' dm, G_lin += X' diag(dv) X, and X' dc for u.
    for (Index j = 0; j < lin; ++j) {
      p_dm[j] += (s.xt.col(j).head(n).array() * s.dm.head(n)).sum();
      if (scaled) s.dc_lin[j] += (s.xt.col(j).head(n).array() * s.dc.head(n)).sum();
      s.w.col(j).head(n) = s.xt.col(j).head(n).array() * s.dv.head(n);
    }
    s.gemm.template add_product<Eigen::RowMajor, Eigen::ColMajor>(lin, lin, n, s.xt.data(), kRows, s.w.data(), kRows,
                                                                  s.g_lin.data(), lin);
    for (std::size_t f = 0; f < factors_.size(); ++f) {
      const data::GroupData<T>& gd = *factors_[f].data;
      const Index K = factors_[f].effects;
      double* z = s.z.data();
      for (Index i = 0; i < n; ++i) {
        const Index g = gd.level[static_cast<std::size_t>(r0 + i)];
        const Index base = factors_[f].des_offset + g * K;
        effect_covariates(gd, r0 + i, K, z);
        // The group's packed block: its K x K within block, then its K x n cross block.
        double* within = packed + row_block_[f][static_cast<std::size_t>(r0 + i)];
        double* cross = within + K * K;
        const double dm = s.dm[i], dv = s.dv[i], dc = scaled ? s.dc[i] : 0.0;
        for (Index k = 0; k < K; ++k) {
          p_dm[base + k] += dm * z[k];
          const double dvz = dv * z[k];
          double* ck = cross + k * n_glob;
          for (Index j = 0; j < lin; ++j) ck[j] += dvz * s.xt(i, j);
          for (Index l = 0; l < K; ++l) within[k * K + l] += dvz * z[l];
          if (scaled) ck[gu] += 0.5 * dc * z[k];
        }
      }
    }
    for (std::size_t p = 0; p < pat.pairs().size(); ++p) {
      const auto& pr = pat.pairs()[p];
      const auto f1 = static_cast<std::size_t>(pr.f1), f2 = static_cast<std::size_t>(pr.f2);
      const data::GroupData<T>& d1 = *factors_[f1].data;
      const data::GroupData<T>& d2 = *factors_[f2].data;
      const Index K1 = factors_[f1].effects, K2 = factors_[f2].effects;
      for (Index i = 0; i < n; ++i) {
        const std::size_t r = static_cast<std::size_t>(r0 + i);
        double* blk = packed + pair_block_[p][r];
        for (Index u = 0; u < K1; ++u) {
          const double z1 = effect_covariate(d1, r0 + i, u);
          for (Index w = 0; w < K2; ++w) {
            const double z2 = effect_covariate(d2, r0 + i, w);
            blk[u * K2 + w] += s.dv[i] * z1 * z2;
          }
        }
      }
    }
  }
  if (!grad) return;
  // Into the global block (stored whole): G_lin, and G_{lin,u} = X' dc / 2 on both sides.
  for (Index c = 0; c < lin; ++c)
    for (Index r = 0; r < lin; ++r) p_g[r + c * n_glob] += s.g_lin(r, c);
  if (scaled)
    for (Index j = 0; j < lin; ++j) {
      p_g[j + gu * n_glob] += 0.5 * s.dc_lin[j];
      p_g[gu + j * n_glob] += 0.5 * s.dc_lin[j];
    }
}


template double ExpectedLikelihood<double>::evaluate_sparse(const vi::GaussianQ&, vi::ExpectationGradient*);
template double ExpectedLikelihood<float>::evaluate_sparse(const vi::GaussianQ&, vi::ExpectationGradient*);
template void ExpectedLikelihood<double>::sparse_chunk(int, Index, double*, bool);
template void ExpectedLikelihood<float>::sparse_chunk(int, Index, double*, bool);
template void ExpectedLikelihood<double>::pack_chunks(const vi::BlockPattern&);
template void ExpectedLikelihood<float>::pack_chunks(const vi::BlockPattern&);

}  // namespace bvi::models
