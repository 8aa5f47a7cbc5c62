#include "models/chunk_columns.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "models/likelihoods/linear_predictor.hpp"

namespace bvi::models {

template <class T>
ChunkColumns::ChunkColumns(const ParameterLayout& layout, const DataView<T>& data, reduce::ChunkReducer& reducer)
    : factors_(data.n_groups) {
  if (layout.categories() > 0) categories_ = layout.categories() - 1;
  // The r blocks: the layout's last, in one run (checked there), one per grouping factor.
  r_start_ = group_effects_start(layout, "chunk columns");
  const auto& blocks = layout.blocks();
  std::size_t first_r = 0;
  while (first_r < blocks.size() && blocks[first_r].offset < r_start_) ++first_r;
  if (blocks.size() - first_r != static_cast<std::size_t>(factors_))
    throw std::logic_error("chunk columns: the layout's group effects are not the data's grouping factors");
  for (Index f = 0; f < factors_; ++f) {
    const data::GroupData<T>& g = data.groups[f];
    const ParameterBlock& r = blocks[first_r + static_cast<std::size_t>(f)];
    if (r.name != "r_" + g.ident || r.size != categories_ * g.groups() * g.effects())
      throw std::logic_error("chunk columns: " + r.name + " is not factor " + g.ident + "'s effects");
    effects_.push_back(g.effects());
    model_groups_.push_back(g.groups());
  }

  // This rank's chunks: each row's level in its chunk's numbering, and each chunk's levels.
  const reduce::ShardPlan& plan = reducer.plan();
  local_level_.assign(static_cast<std::size_t>(factors_), std::vector<std::int32_t>(static_cast<std::size_t>(data.rows), 0));
  std::vector<double> mine;  // per factor, per owned chunk: [count, levels...]
  std::vector<std::int32_t> where;
  std::vector<std::int32_t> seen;
  for (Index f = 0; f < factors_; ++f) {
    const std::vector<std::int32_t>& level = data.groups[f].level;
    std::vector<std::int32_t>& local = local_level_[static_cast<std::size_t>(f)];
    where.assign(static_cast<std::size_t>(model_groups_[static_cast<std::size_t>(f)]), -1);
    for (Index c = reducer.first_chunk(); c < reducer.last_chunk(); ++c) {
      const auto [begin, end] = data.chunk_rows(plan, c);
      seen.clear();
      for (Index r = begin; r < end; ++r) {
        const std::int32_t l = level[static_cast<std::size_t>(r)];
        if (where[static_cast<std::size_t>(l)] < 0) {
          where[static_cast<std::size_t>(l)] = 0;
          seen.push_back(l);
        }
      }
      std::sort(seen.begin(), seen.end());
      for (std::size_t i = 0; i < seen.size(); ++i) where[static_cast<std::size_t>(seen[i])] = static_cast<std::int32_t>(i);
      for (Index r = begin; r < end; ++r)
        local[static_cast<std::size_t>(r)] = where[static_cast<std::size_t>(level[static_cast<std::size_t>(r)])];
      for (std::int32_t l : seen) where[static_cast<std::size_t>(l)] = -1;
      mine.push_back(static_cast<double>(seen.size()));
      mine.insert(mine.end(), seen.begin(), seen.end());
    }
  }
  for (const auto& v : local_level_) level_ptrs_.push_back(v.data());

  // Every chunk's levels on every rank, in rank order (= chunk order); each rank's part is factor
  // by factor, its chunks in order within each.
  const std::vector<double> all = reduce::all_doubles(mine, reducer.comm());
  const auto n_chunks = static_cast<std::size_t>(plan.n_chunks);
  groups_.assign(n_chunks * static_cast<std::size_t>(factors_), 0);
  levels_.assign(n_chunks, {});
  std::size_t at = 0;
  const int ranks = reducer.comm().size();
  for (int rank = 0; rank < ranks; ++rank) {
    const Index c0 = plan.first_chunk(rank, ranks), c1 = plan.last_chunk(rank, ranks);
    for (Index f = 0; f < factors_; ++f)
      for (Index c = c0; c < c1; ++c) {
        const auto count = static_cast<std::size_t>(all.at(at++));
        groups_[static_cast<std::size_t>(c * factors_ + f)] = static_cast<Index>(count);
        std::vector<std::int32_t>& into = levels_[static_cast<std::size_t>(c)];
        for (std::size_t k = 0; k < count; ++k) into.push_back(static_cast<std::int32_t>(all.at(at++)));
      }
  }
  width_.assign(n_chunks, r_start_);
  for (std::size_t c = 0; c < n_chunks; ++c) {
    for (Index f = 0; f < factors_; ++f)
      width_[c] += categories_ * groups_[c * static_cast<std::size_t>(factors_) + static_cast<std::size_t>(f)] *
                   effects_[static_cast<std::size_t>(f)];
    max_width_ = std::max(max_width_, width_[c]);
  }
  if (n_chunks == 0) max_width_ = r_start_;
}

// copy(model_offset, local_offset, length) for each run of the chunk's columns, in doubles of an
// S-row column-major matrix: the leading columns, then per factor, category and level its K.
template <class Copy>
void ChunkColumns::each_run(Index chunk, Index S, Copy&& copy) const {
  copy(Index(0), Index(0), S * r_start_);
  const std::int32_t* level = levels_[static_cast<std::size_t>(chunk)].data();
  Index model_col = r_start_, local_col = r_start_;
  for (Index f = 0; f < factors_; ++f) {
    const Index K = effects_[static_cast<std::size_t>(f)], G = model_groups_[static_cast<std::size_t>(f)];
    const Index n = groups_[static_cast<std::size_t>(chunk * factors_ + f)];
    for (Index c = 0; c < categories_; ++c) {
      for (Index i = 0; i < n; ++i) copy(S * (model_col + level[i] * K), S * (local_col + i * K), S * K);
      model_col += G * K;
      local_col += n * K;
    }
    level += n;
  }
}

void ChunkColumns::gather(Index chunk, const double* values, Index S, double* out) const {
  each_run(chunk, S, [&](Index model, Index local, Index len) {
    if (len > 0) std::memcpy(out + local, values + model, static_cast<std::size_t>(len) * sizeof(double));
  });
}

void ChunkColumns::add(Index chunk, const double* local_values, Index S, double* total) const {
  each_run(chunk, S, [&](Index model, Index local, Index len) {
    Eigen::Map<Eigen::ArrayXd>(total + model, len) += Eigen::Map<const Eigen::ArrayXd>(local_values + local, len);
  });
}

template ChunkColumns::ChunkColumns(const ParameterLayout&, const DataView<double>&, reduce::ChunkReducer&);
template ChunkColumns::ChunkColumns(const ParameterLayout&, const DataView<float>&, reduce::ChunkReducer&);

}  // namespace bvi::models
