#include "models/problem_shape.hpp"

#include <algorithm>

#include "models/sparse_pattern.hpp"

#include "inference/reduce/collective_error.hpp"
#include "models/default_priors.hpp"
#include "models/expected_prior.hpp"
#include "models/model.hpp"
#include "models/model_data.hpp"

namespace bvi::models {

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
  return reduce::collectively(comm, [&] {
    ProblemShape s;
    s.total_rows = probe.records;
    s.plan = probe.plan;
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
    const ModelShape shape = model_shape(design);
    DataScales scales;
    scales.x_mean = Eigen::VectorXd::Zero(s.features);
    scales.x_sd = Eigen::VectorXd::Ones(s.features);
    fill_default_priors(s.config, shape, scales);
    const Model model = Model::build(s.config.model, shape);
    s.dim = model.dim();
    // Zero rows: whether the likelihood has such terms at all (it writes nothing).
    s.row_constants = model.likelihood().log_constants(nullptr, nullptr, 0, nullptr);
    const auto& groups = model.group_priors();
    const bool group_scales =
        std::any_of(groups.begin(), groups.end(), [](const GroupPrior& g) { return g.L_offset < 0; });
    spec::resolve_automatic(s.config, s.dim, s.total_rows, group_scales, sparse_family_fits(model));
    refuse_unfit_sparse(s.config, model);
    const Index n_global = s.dim - s.group_effects;
    const Index chunk = s.plan.chunk_rows;
    s.sparse_values = n_global * n_global;
    s.sparse_chunk_values = n_global * n_global;
    for (std::size_t f = 0; f < design.groups.size(); ++f) {
      const Index K = design.groups[f].effects(), G = static_cast<Index>(design.groups[f].levels.size());
      s.sparse_values += G * K * (K + n_global);
      s.sparse_chunk_values += std::min(chunk, G) * K * (K + n_global);
      for (std::size_t f2 = f + 1; f2 < design.groups.size(); ++f2) {
        const Index G2 = static_cast<Index>(design.groups[f2].levels.size()), K2 = design.groups[f2].effects();
        s.sparse_values += std::min(s.total_rows, G * G2) * K * K2;
        s.sparse_chunk_values += std::min(chunk, G * G2) * K * K2;
      }
    }
    set_sample_sizes(s, model);
    return s;
  });
}

}  // namespace bvi::models
