#include "models/problem.hpp"

#include <algorithm>
#include <tuple>

#include "common/error.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "inference/reduce/collective_error.hpp"
#include "models/chunk_stats.hpp"
#include "models/sparse_pattern.hpp"
#include "models/default_priors.hpp"
#include "models/model_data.hpp"

namespace bvi::models {

Index default_block_rows(Index features) {
  // The fused likelihood cuts a block into cache-sized row tiles itself (bernoulli_logit_glm.cpp),
  // so a block only has to amortize the per-block tape work (rewind, the S x D gradient sum,
  // the draws cast to float): 512 rows are within 3 % of the best measured for D = 10 to 1000
  // (bench_log_joint --profile fused --block-rows R), where 64 rows cost 8 % at D = 1000. The
  // composed path materializes S x block arrays and prefers 64-256 rows, but stays within 1.5x
  // of the reference at 512. At most 4 MiB of float64 features, so that a float block's double
  // copy on the composed path stays small when D is in the ten thousands.
  const Index cap = (Index(4) << 20) / (8 * std::max<Index>(features, 1));
  return std::clamp<Index>(cap, 16, 512);
}

ModelShape model_shape(const design::Design& design) {
  ModelShape shape;
  shape.features = design.column_names();
  for (const auto& t : design.terms) shape.terms.push_back({t.text, t.first_column, t.n_columns});
  for (const auto& dg : design.groups) {
    GroupShape g;
    g.ident = dg.ident;
    g.label = dg.label;
    g.levels = dg.levels;
    g.effects = dg.effect_names();
    g.correlated = dg.correlated;
    shape.groups.push_back(std::move(g));
  }
  return shape;
}

template <class T>
Problem<T> load_problem(const spec::Config& config, reduce::Communicator& comm, const LoadOptions& options) {
  ModelData<T> md = load_model_data<T>(config, comm, options.block_rows, options.threads);
  const data::Dataset<T>& d = md.data;
  // load_model_data set the design's group levels and names its columns as the data's features.
  ModelShape shape = model_shape(md.design);
  // The whole dataset's statistics for the default priors (and a centered intercept prior).
  reduce::ChunkReducer reducer(md.plan, comm, options.threads);
  LocalChunks chunks{d.first_chunk, d.chunk_offsets};
  const data::FeatureStats xs = chunked_column_stats(d.x, d.total_rows, chunks, reducer);
  DataScales scales;
  scales.x_mean = xs.mean;
  scales.x_sd = xs.sd;
  if (config.model.likelihood == "normal" || config.model.likelihood == "lognormal" ||
      config.model.likelihood == "student_t") {
    // lognormal is normal on log y: its scales are log y's (the reader has checked y > 0), less
    // the offset (offset + log exposure) where it has one, which eta's intercept does not carry.
    const bool on_log = config.model.likelihood == "lognormal";
    data::RowMatrix<double> y = on_log ? data::RowMatrix<double>(d.y.array().log().matrix())
                                       : data::RowMatrix<double>(d.y);
    if (on_log && d.offset.size() == y.rows()) y.col(0) -= d.offset;
    const data::FeatureStats ys = chunked_column_stats(y, d.total_rows, chunks, reducer);
    scales.y_mean = ys.mean[0];
    scales.y_sd = ys.sd[0];
  }
  shape.column_means = xs.mean;
  if (config.model.likelihood == "categorical_logit") {
    // K: /model/categories or /data/levels' length (the reader has refused a category above it), else
    // the largest on any rank.
    double k = d.y.size() > 0 ? d.y.maxCoeff() : 2.0;
    comm.allreduce_max(&k, 1);
    shape.response_levels = config.model.categories > 0 ? static_cast<Index>(config.model.categories)
                                                        : static_cast<Index>(k);
    shape.response_level_names = config.data.levels;  // with /data/levels, categories is their number
    if (config.model.reference_category > std::max<Index>(shape.response_levels, 2))
      throw config_error("/model/reference_category",
                         "is " + std::to_string(config.model.reference_category) + ", but the response has " +
                             std::to_string(std::max<Index>(shape.response_levels, 2)) +
                             " categories (the largest in the data; set /model/categories for more)");
  }
  if (spec::has_cutpoints(config.model.likelihood)) {
    // K: the largest category on any rank (the reader has checked that each is an integer >= 1).
    // With /data/levels, K is the list's length (a level no row takes still has its cutpoint).
    double k = d.y.size() > 0 ? d.y.maxCoeff() : 2.0;
    comm.allreduce_max(&k, 1);
    // With /model/categories, K is that (the reader has refused a category above it).
    shape.response_levels = !config.data.levels.empty() ? static_cast<Index>(config.data.levels.size())
                            : config.model.categories > 0 ? static_cast<Index>(config.model.categories)
                                                          : static_cast<Index>(k);
    shape.response_level_names = config.data.levels;
  }
  spec::Config resolved = config;
  fill_default_priors(resolved, shape, scales);
  Model model =
      reduce::collectively(comm, [&] { return Model::build(resolved.model, shape, {options.fused}); });
  const auto& groups = model.group_priors();
  const bool group_scales = std::any_of(groups.begin(), groups.end(), [](const GroupPrior& g) { return g.L_offset < 0; });
  const bool sparse_fits = sparse_family_fits(model);
  spec::resolve_automatic(resolved, model.dim(), md.data.total_rows, group_scales, sparse_fits);
  reduce::collectively(comm, [&] { refuse_unfit_sparse(resolved, model); });
  return Problem<T>{std::move(resolved), std::move(model), std::move(md.data), md.plan, std::move(md.design)};
}

template Problem<double> load_problem<double>(const spec::Config&, reduce::Communicator&, const LoadOptions&);
template Problem<float> load_problem<float>(const spec::Config&, reduce::Communicator&, const LoadOptions&);

}  // namespace bvi::models
