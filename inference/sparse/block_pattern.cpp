#include "inference/sparse/block_pattern.hpp"

#include <algorithm>
#include <stdexcept>

namespace bvi::vi {

BlockPattern::BlockPattern(Index dim, std::vector<Factor> factors, std::vector<Pair> pairs)
    : dim_(dim), factors_(std::move(factors)), pairs_(std::move(pairs)) {
  role_.assign(static_cast<std::size_t>(dim_), Role{});
  for (std::size_t f = 0; f < factors_.size(); ++f) {
    const Factor& fac = factors_[f];
    if (fac.offset < 0 || fac.offset + fac.groups * fac.effects > dim_)
      throw std::logic_error("block pattern: a factor's effects lie outside the parameters");
    for (Index j = 0; j < fac.groups * fac.effects; ++j) {
      Role& r = role_[static_cast<std::size_t>(fac.offset + j)];
      if (r.factor >= 0) throw std::logic_error("block pattern: two factors share a column");
      r.factor = static_cast<int>(f);
      r.index = j;
    }
  }
  for (Index j = 0; j < dim_; ++j)
    if (role_[static_cast<std::size_t>(j)].factor < 0) {
      role_[static_cast<std::size_t>(j)].index = static_cast<Index>(globals_.size());
      globals_.push_back(j);
    }
  const Index n = n_global();
  size_ = n * n;
  for (const Factor& fac : factors_) {
    within_.push_back(size_);
    size_ += fac.groups * fac.effects * fac.effects;
    cross_.push_back(size_);
    size_ += fac.groups * fac.effects * n;
  }
  for (Pair& p : pairs_) {
    if (!(p.f1 < p.f2) || p.f2 >= static_cast<int>(factors_.size()))
      throw std::logic_error("block pattern: a pair of factors out of order");
    std::sort(p.levels.begin(), p.levels.end());
    p.levels.erase(std::unique(p.levels.begin(), p.levels.end()), p.levels.end());
    pair_offset_.push_back(size_);
    size_ += static_cast<Index>(p.levels.size()) * factors_[static_cast<std::size_t>(p.f1)].effects *
             factors_[static_cast<std::size_t>(p.f2)].effects;
  }
  diagonal_.resize(static_cast<std::size_t>(dim_));
  for (Index j = 0; j < dim_; ++j) diagonal_[static_cast<std::size_t>(j)] = slot(j, j);
}

Index BlockPattern::pair_block(std::size_t p, Index at) const {
  const Pair& pr = pairs_[p];
  return pair_offset_[p] + at * factors_[static_cast<std::size_t>(pr.f1)].effects *
                               factors_[static_cast<std::size_t>(pr.f2)].effects;
}

Index BlockPattern::find_pair(std::size_t p, std::int32_t g1, std::int32_t g2) const {
  const auto& lv = pairs_[p].levels;
  const auto it = std::lower_bound(lv.begin(), lv.end(), std::make_pair(g1, g2));
  return it != lv.end() && *it == std::make_pair(g1, g2) ? static_cast<Index>(it - lv.begin()) : -1;
}

Index BlockPattern::slot(Index i, Index k) const {
  if (i < 0 || k < 0 || i >= dim_ || k >= dim_) return -1;
  Role a = role_[static_cast<std::size_t>(i)], b = role_[static_cast<std::size_t>(k)];
  const Index n = n_global();
  if (a.factor < 0 && b.factor < 0) return a.index + b.index * n;
  if (a.factor < 0) std::swap(a, b);
  const auto fa = static_cast<std::size_t>(a.factor);
  const Index K = factors_[fa].effects;
  if (b.factor < 0) return cross_[fa] + a.index * n + b.index;  // effect a with global b
  if (a.factor == b.factor) {
    const Index ga = a.index / K, gb = b.index / K;
    if (ga != gb) return -1;
    return within_[fa] + ga * K * K + (a.index % K) * K + (b.index % K);
  }
  if (a.factor > b.factor) std::swap(a, b);
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    if (pairs_[p].f1 != a.factor || pairs_[p].f2 != b.factor) continue;
    const Index K1 = factors_[static_cast<std::size_t>(a.factor)].effects,
                K2 = factors_[static_cast<std::size_t>(b.factor)].effects;
    const Index at = find_pair(p, static_cast<std::int32_t>(a.index / K1), static_cast<std::int32_t>(b.index / K2));
    return at < 0 ? -1 : pair_block(p, at) + (a.index % K1) * K2 + (b.index % K2);
  }
  return -1;
}

void BlockPattern::add(Eigen::VectorXd& values, Index i, Index k, double g) const {
  const Index s = slot(i, k);
  if (s < 0) throw std::logic_error("block pattern: an entry off the pattern");
  if (i == k) {
    values[s] += g;
    return;
  }
  const Index t = slot(k, i);
  if (t == s) {
    values[s] += 0.5 * g;
  } else {
    values[s] += 0.5 * g;
    values[t] += 0.5 * g;
  }
}

std::vector<BlockPattern::Entry> BlockPattern::lower_entries() const {
  std::vector<Entry> out;
  const Index n = n_global();
  for (Index c = 0; c < n; ++c)
    for (Index r = c; r < n; ++r) out.push_back({globals_[static_cast<std::size_t>(r)], globals_[static_cast<std::size_t>(c)], r + c * n});
  for (std::size_t f = 0; f < factors_.size(); ++f) {
    const Factor& fac = factors_[f];
    const Index K = fac.effects;
    for (Index g = 0; g < fac.groups; ++g)
      for (Index a = 0; a < K; ++a) {
        const Index col_a = fac.offset + g * K + a;
        for (Index b = 0; b <= a; ++b) out.push_back({col_a, fac.offset + g * K + b, within_block(f, g) + a * K + b});
        for (Index j = 0; j < n; ++j) {
          const Index gl = globals_[static_cast<std::size_t>(j)];
          out.push_back({std::max(col_a, gl), std::min(col_a, gl), cross_block(f, g) + a * n + j});
        }
      }
  }
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const Pair& pr = pairs_[p];
    const Factor &f1 = factors_[static_cast<std::size_t>(pr.f1)], &f2 = factors_[static_cast<std::size_t>(pr.f2)];
    for (std::size_t at = 0; at < pr.levels.size(); ++at)
      for (Index a = 0; a < f1.effects; ++a)
        for (Index b = 0; b < f2.effects; ++b) {
          const Index c1 = f1.offset + pr.levels[at].first * f1.effects + a;
          const Index c2 = f2.offset + pr.levels[at].second * f2.effects + b;
          out.push_back({std::max(c1, c2), std::min(c1, c2),
                         pair_block(p, static_cast<Index>(at)) + a * f2.effects + b});
        }
  }
  return out;
}

Eigen::VectorXd BlockPattern::diagonal_matrix(const Eigen::VectorXd& d) const {
  Eigen::VectorXd v = Eigen::VectorXd::Zero(size_);
  for (Index j = 0; j < dim_; ++j) v[diagonal_[static_cast<std::size_t>(j)]] = d[j];
  return v;
}

void BlockPattern::multiply(const Eigen::VectorXd& values, const Eigen::Ref<const Eigen::VectorXd>& x,
                            Eigen::Ref<Eigen::VectorXd> y) const {
  y.setZero();
  const Index n = n_global();
  auto global = [&](Index r) { return globals_[static_cast<std::size_t>(r)]; };
  // The global and within blocks hold both orders of each entry; cross and pair entries once.
  for (Index c = 0; c < n; ++c)
    for (Index r = 0; r < n; ++r) y[global(r)] += values[r + c * n] * x[global(c)];
  for (std::size_t f = 0; f < factors_.size(); ++f) {
    const Factor& fac = factors_[f];
    const Index K = fac.effects;
    for (Index g = 0; g < fac.groups; ++g) {
      const Index first = fac.offset + g * K, within = within_block(f, g), cross = cross_block(f, g);
      for (Index a = 0; a < K; ++a) {
        for (Index b = 0; b < K; ++b) y[first + a] += values[within + a * K + b] * x[first + b];
        for (Index j = 0; j < n; ++j) {
          const double v = values[cross + a * n + j];
          y[first + a] += v * x[global(j)];
          y[global(j)] += v * x[first + a];
        }
      }
    }
  }
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const Pair& pr = pairs_[p];
    const Factor &f1 = factors_[static_cast<std::size_t>(pr.f1)],
                 &f2 = factors_[static_cast<std::size_t>(pr.f2)];
    for (std::size_t at = 0; at < pr.levels.size(); ++at) {
      const Index block = pair_block(p, static_cast<Index>(at));
      for (Index a = 0; a < f1.effects; ++a)
        for (Index b = 0; b < f2.effects; ++b) {
          const Index c1 = f1.offset + pr.levels[at].first * f1.effects + a;
          const Index c2 = f2.offset + pr.levels[at].second * f2.effects + b;
          const double v = values[block + a * f2.effects + b];
          y[c1] += v * x[c2];
          y[c2] += v * x[c1];
        }
    }
  }
}

}  // namespace bvi::vi
