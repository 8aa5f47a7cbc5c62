#include "models/problem_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "inference/reduce/collective_error.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/field_splitter.hpp"
#include "models/default_priors.hpp"
#include "models/expected_prior.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/model.hpp"
#include "models/model_data.hpp"
#include "models/sparse_pattern.hpp"

namespace bvi::models {

namespace {

// categorical_logit's K before the load, which takes it from the data: the largest category in
// this rank's records of the response column (the caller takes the largest over ranks). Read
// leniently: a cell that is not an integer 1 ... kMaxOrdinalLevels is skipped, for the load to
// refuse (so every error is still the load's); at least 2. One walk of the records, for this
// likelihood alone: its parameters are K - 1 times a single linear predictor's, so the memory
// estimate needs K.
double largest_category(const spec::Config& config, const reduce::ShardPlan& plan, int rank, int ranks) {
  data::CsvReader reader(config.data.csv);
  long column = -1;
  for (std::size_t j = 0; j < reader.columns().size(); ++j)
    if (reader.columns()[j] == config.data.response) column = static_cast<long>(j);
  double top = 2;
  if (column >= 0) {
    reader.scan();
    std::string cell;
    reader.for_each_record(
        plan.first_row(rank, ranks), plan.last_row(rank, ranks), [&](Index, const data::RawRecord& r) {
          data::FieldSplitter fields(r.text, r.has_quotes);
          std::string_view f;
          for (long j = 0; fields.next(f); ++j) {
            if (j < column) continue;
            cell.assign(f);
            char* end = nullptr;
            const double y = std::strtod(cell.c_str(), &end);
            if (end != cell.c_str() && y >= 1 && y <= kMaxOrdinalLevels && std::floor(y) == y)
              top = std::max(top, y);
            break;
          }
        });
  }
  return top;
}

}  // namespace

ChunkLevelCounts loaded_chunk_levels(const std::vector<const std::vector<std::int32_t>*>& level,
                                     const std::vector<Index>& chunk_offsets, Index first_chunk, Index first_row,
                                     Index rows, const reduce::ShardPlan& plan, reduce::Communicator& comm) {
  std::vector<Index> offsets = chunk_offsets;
  if (offsets.empty()) {
    offsets.push_back(0);
    for (Index c = first_chunk; offsets.back() < rows; ++c) offsets.push_back(plan.chunk_end_row(c) - first_row);
  }
  return ChunkLevelCounts::count(level, offsets, first_chunk, plan.n_chunks, comm);
}

void set_sparse_sizes(ProblemShape& s, const Model& model) {
  const auto& groups = model.group_priors();
  // The sparse pattern's blocks, one factor per group prior (categorical_logit: one per factor
  // and non-reference category, factor-major, two categories' effects of one factor paired level
  // by level; models/sparse_pattern.cpp).
  Index effects = 0;
  for (const GroupPrior& g : groups) effects += g.groups * g.effects;
  const Index n_global = s.dim - effects;
  const Index chunk = s.plan.chunk_rows;
  const std::size_t per_factor =
      s.group_factors > 0
          ? std::max<std::size_t>(1, groups.size() / static_cast<std::size_t>(s.group_factors))
          : 1;
  // A chunk's levels of group prior f's factor, and level pairs of two priors' factors: counted
  // (s.chunk_levels) or bounded by the chunk's rows.
  const bool counted = !s.chunk_levels.empty() && s.chunk_levels.chunks() == s.plan.n_chunks &&
                       s.chunk_levels.factors() == s.group_factors;
  auto factor_of = [&](std::size_t f) { return static_cast<Index>(f / per_factor); };
  auto chunk_levels = [&](Index c, std::size_t f) {
    return counted ? s.chunk_levels.levels(c, factor_of(f)) : std::min(chunk, groups[f].groups);
  };
  auto chunk_pairs = [&](Index c, std::size_t f, std::size_t f2, Index pairs) {
    if (factor_of(f) == factor_of(f2)) return chunk_levels(c, f);
    return counted ? s.chunk_levels.pairs(c, factor_of(f), factor_of(f2)) : std::min(chunk, pairs);
  };
  s.sparse_values = n_global * n_global;
  s.sparse_probes = model.sparse_probes();
  s.sparse_factor_pairs = 0;
  for (std::size_t f = 0; f < groups.size(); ++f) {
    const Index K = groups[f].effects, G = groups[f].groups;
    s.sparse_values += G * K * (K + n_global);
    for (std::size_t f2 = f + 1; f2 < groups.size(); ++f2) {
      const Index G2 = groups[f2].groups, K2 = groups[f2].effects;
      const bool same_factor = factor_of(f) == factor_of(f2);
      const Index pairs = same_factor ? G : std::min(s.total_rows, G * G2);
      if (!same_factor) ++s.sparse_factor_pairs;
      s.sparse_values += pairs * K * K2;
    }
  }
  // The widest chunk's: the slots are all as long as it (the reducer's stride).
  s.chunk_parameters = n_global;
  s.sparse_chunk_values = n_global * n_global;
  for (Index c = 0; c < (counted ? s.plan.n_chunks : 1); ++c) {
    Index parameters = n_global, values = n_global * n_global;
    for (std::size_t f = 0; f < groups.size(); ++f) {
      const Index K = groups[f].effects, G = groups[f].groups, levels = chunk_levels(c, f);
      parameters += levels * K;
      values += levels * K * (K + n_global);
      for (std::size_t f2 = f + 1; f2 < groups.size(); ++f2) {
        const Index G2 = groups[f2].groups, K2 = groups[f2].effects;
        values += chunk_pairs(c, f, f2, std::min(s.total_rows, G * G2)) * K * K2;
      }
    }
    s.chunk_parameters = std::max(s.chunk_parameters, parameters);
    s.sparse_chunk_values = std::max(s.sparse_chunk_values, values);
  }
}

void set_sample_sizes(ProblemShape& s, const Model& model) {
  s.sample_draws = 0;
  s.sampled_widths.clear();
  if (s.config.inference.method != "exact") return;
  const ExpectedPrior prior(model, static_cast<std::uint64_t>(s.config.inference.seed));
  s.sampled_widths = prior.sampled_widths(s.config.inference.algorithm == "fullrank");
  if (!s.sampled_widths.empty()) s.sample_draws = prior.sample_draws();
}

ProblemShape probe_problem(const spec::Config& config, reduce::Communicator& comm, Index block_rows) {
  // The same steps, in the same order, as load_problem's, so the same input fails the same way.
  DesignProbe probe = probe_model_design(config, comm, block_rows);
  const design::Design& design = probe.design;
  const bool categorical = config.model.likelihood == "categorical_logit";
  // The ordinal likelihoods: K as load_problem takes it (/data/levels, /model/categories, else the
  // data's largest category), for their K - 1 cutpoints (P, and the sparse step's products).
  const bool ordered = spec::has_cutpoints(config.model.likelihood);
  double categories = ordered && !config.data.levels.empty() ? static_cast<double>(config.data.levels.size())
                                                             : static_cast<double>(config.model.categories);
  if ((categorical || ordered) && categories <= 0) {
    categories = reduce::collectively(
        comm, [&] { return largest_category(config, probe.plan, comm.rank(), comm.size()); });
    comm.allreduce_max(&categories, 1);
  }
  return reduce::collectively(comm, [&] {
    ProblemShape s;
    s.total_rows = probe.records;
    s.plan = probe.plan;
    s.chunk_levels = probe.chunk_levels;
    s.rows = s.plan.last_row(comm.rank(), comm.size()) - s.plan.first_row(comm.rank(), comm.size());
    s.features = static_cast<Index>(design.columns.size());
    s.numeric_variables = static_cast<Index>(design.numeric_variables().size());
    s.categorical_variables = static_cast<Index>(design.categorical_variables().size());
    s.design_copy = !design_is_numeric_variables(design);
    s.extra_columns = (probe.trials ? 1 : 0) + (probe.offset ? 1 : 0) + (probe.weights ? 1 : 0);
    s.group_factors = static_cast<Index>(design.groups.size());
    for (const auto& g : design.groups) {
      s.group_slopes += static_cast<Index>(g.slopes.size());
      s.group_effects += static_cast<Index>(g.levels.size()) * g.effects();
    }
    // The model of this design. Its default priors' numbers need the data's statistics, which
    // are not read yet; which parameters there are does not depend on them.
    s.config = config;
    ModelShape shape = model_shape(design);
    // categorical_logit: /model/categories, else the data's largest; never below the reference,
    // which the load refuses with its own message.
    if (categorical)
      shape.response_levels = std::max<Index>(static_cast<Index>(categories),
                                              static_cast<Index>(config.model.reference_category));
    if (ordered) {
      shape.response_levels = static_cast<Index>(categories);
      shape.response_level_names = config.data.levels;
    }
    DataScales scales;
    scales.x_mean = Eigen::VectorXd::Zero(s.features);
    scales.x_sd = Eigen::VectorXd::Ones(s.features);
    fill_default_priors(s.config, shape, scales);
    const Model model = Model::build(s.config.model, shape);
    s.dim = model.dim();
    s.linear_predictors = model.layout().categories() > 0 ? model.layout().categories() - 1 : 1;
    // Zero rows: whether the likelihood has such terms at all (it writes nothing).
    s.row_constants = model.likelihood().log_constants(nullptr, nullptr, 0, nullptr);
    const auto& groups = model.group_priors();
    const bool group_scales =
        std::any_of(groups.begin(), groups.end(), [](const GroupPrior& g) { return g.L_offset < 0; });
    spec::resolve_automatic(s.config, s.dim, s.total_rows, group_scales, sparse_family_fits(model));
    refuse_unfit_sparse(s.config, model);
    s.block_transforms = model.layout().has_block_transform();
    set_sparse_sizes(s, model);
    set_sample_sizes(s, model);
    return s;
  });
}

}  // namespace bvi::models
