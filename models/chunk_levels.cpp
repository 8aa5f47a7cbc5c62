#include "models/chunk_levels.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace bvi::models {

using Eigen::Index;

namespace {

// Index of the pair (f1, f2), f1 < f2, among F factors' pairs in the order (0, 1), (0, 2), ..., (1, 2), ...
Index pair_index(Index f1, Index f2, Index F) {
  return f1 * (2 * F - f1 - 1) / 2 + (f2 - f1 - 1);
}

}  // namespace

ChunkLevelCounts ChunkLevelCounts::count(const std::vector<const std::vector<std::int32_t>*>& level,
                                         const std::vector<Index>& offsets, Index first_chunk, Index n_chunks,
                                         reduce::Communicator& comm) {
  ChunkLevelCounts c;
  c.chunks_ = n_chunks;
  c.factors_ = static_cast<Index>(level.size());
  const Index F = c.factors_;
  c.per_chunk_ = F + F * (F - 1) / 2;
  c.counts_.assign(static_cast<std::size_t>(n_chunks * c.per_chunk_), 0);
  const Index owned = offsets.empty() ? 0 : static_cast<Index>(offsets.size()) - 1;
  if (first_chunk < 0 || first_chunk + owned > n_chunks)
    throw std::logic_error("chunk level counts: this rank's chunks are not among the plan's");
  for (const auto* lv : level)
    if (static_cast<Index>(lv->size()) != (owned ? offsets.back() : 0))
      throw std::logic_error("chunk level counts: the level codes are not this rank's rows");
  // Levels: a stamp per code, the chunk that last saw it.
  std::vector<Index> stamp;
  for (Index f = 0; f < F; ++f) {
    const std::vector<std::int32_t>& lv = *level[static_cast<std::size_t>(f)];
    std::int32_t top = -1, bottom = 0;
    for (std::int32_t l : lv) {
      top = std::max(top, l);
      bottom = std::min(bottom, l);
    }
    if (bottom < 0) throw std::logic_error("chunk level counts: a negative level code");
    stamp.assign(static_cast<std::size_t>(top + 1), -1);
    for (Index k = 0; k < owned; ++k) {
      long n = 0;
      for (Index r = offsets[static_cast<std::size_t>(k)]; r < offsets[static_cast<std::size_t>(k) + 1]; ++r) {
        Index& s = stamp[static_cast<std::size_t>(lv[static_cast<std::size_t>(r)])];
        if (s != k) {
          s = k;
          ++n;
        }
      }
      c.counts_[c.at(first_chunk + k, f)] = n;
    }
  }
  // Pairs: the chunk's (l1, l2) keys sorted, the distinct ones counted.
  std::vector<std::uint64_t> keys;
  for (Index f1 = 0; f1 < F; ++f1)
    for (Index f2 = f1 + 1; f2 < F; ++f2) {
      const std::vector<std::int32_t>& l1 = *level[static_cast<std::size_t>(f1)];
      const std::vector<std::int32_t>& l2 = *level[static_cast<std::size_t>(f2)];
      for (Index k = 0; k < owned; ++k) {
        keys.clear();
        for (Index r = offsets[static_cast<std::size_t>(k)]; r < offsets[static_cast<std::size_t>(k) + 1]; ++r)
          keys.push_back(static_cast<std::uint64_t>(static_cast<std::uint32_t>(l1[static_cast<std::size_t>(r)])) << 32 |
                         static_cast<std::uint32_t>(l2[static_cast<std::size_t>(r)]));
        std::sort(keys.begin(), keys.end());
        const auto n = std::unique(keys.begin(), keys.end()) - keys.begin();
        c.counts_[c.at(first_chunk + k, F + pair_index(f1, f2, F))] = static_cast<long>(n);
      }
    }
  // Every chunk's counts on every rank: each chunk's entries are 0 on every rank but its owner's.
  if (!c.counts_.empty()) comm.allreduce_max(c.counts_.data(), static_cast<int>(c.counts_.size()));
  return c;
}

Index ChunkLevelCounts::pairs(Index c, Index f1, Index f2) const {
  if (f1 == f2) throw std::logic_error("chunk level counts: a pair needs two factors");
  if (f1 > f2) std::swap(f1, f2);
  return counts_[at(c, factors_ + pair_index(f1, f2, factors_))];
}

}  // namespace bvi::models
