#include "models/sparse_pattern.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"
#include "models/expected_prior.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

template <class T>
std::shared_ptr<const vi::BlockPattern> make_block_pattern(const Model& model, const DataView<T>& data,
                                                           reduce::Communicator& comm) {
  const auto& priors = model.group_priors();
  // One group prior per grouping factor, or per factor and category (categorical_logit's K - 1
  // sets of effects, factor-major): prior p is data factor p / C's.
  const std::size_t F = static_cast<std::size_t>(data.n_groups);
  if (F == 0 || priors.size() % F != 0)
    throw std::logic_error("sparse pattern: the model's group terms and the data's disagree");
  const std::size_t C = priors.size() / F;
  std::vector<vi::BlockPattern::Factor> factors;
  for (const GroupPrior& g : priors) factors.push_back({g.r_offset, g.groups, g.effects});
  // The level pairs of data factors f1 <= f2 that share a row (f1 == f2: each level with itself,
  // which two categories' effects of one factor share), gathered over the ranks.
  auto level_pairs = [&](std::size_t f1, std::size_t f2) {
    const auto& l1 = data.groups[f1].level;
    const auto& l2 = data.groups[f2].level;
    const double G2 = static_cast<double>(priors[f2 * C].groups);
    // Each pair as one exact double, g1 G2 + g2, for the gather.
    std::vector<double> local(l1.size());
    for (std::size_t r = 0; r < l1.size(); ++r) local[r] = static_cast<double>(l1[r]) * G2 + l2[r];
    std::sort(local.begin(), local.end());
    local.erase(std::unique(local.begin(), local.end()), local.end());
    const std::vector<double> all = reduce::all_doubles(local, comm);
    std::vector<std::pair<std::int32_t, std::int32_t>> levels;
    levels.reserve(all.size());
    for (double v : all) {
      const double g1 = std::floor(v / G2);
      levels.emplace_back(static_cast<std::int32_t>(g1), static_cast<std::int32_t>(v - g1 * G2));
    }
    return levels;  // BlockPattern sorts and de-duplicates
  };
  std::vector<std::vector<std::pair<std::int32_t, std::int32_t>>> by_factors(F * F);
  std::vector<char> made(F * F, 0);
  std::vector<vi::BlockPattern::Pair> pairs;
  for (std::size_t p1 = 0; p1 < priors.size(); ++p1)
    for (std::size_t p2 = p1 + 1; p2 < priors.size(); ++p2) {
      const std::size_t f1 = p1 / C, f2 = p2 / C, at = f1 * F + f2;
      if (!made[at]) {
        by_factors[at] = level_pairs(f1, f2);  // a collective: every rank makes the same calls
        made[at] = 1;
      }
      vi::BlockPattern::Pair p;
      p.f1 = static_cast<int>(p1);
      p.f2 = static_cast<int>(p2);
      p.levels = by_factors[at];
      pairs.push_back(std::move(p));
    }
  return std::make_shared<const vi::BlockPattern>(model.dim(), std::move(factors), std::move(pairs));
}

void refuse_unfit_sparse(const spec::Config& config, const Model& model) {
  if (config.inference.algorithm != "sparse") return;
  if (config.inference.method != "exact") {
    // The Monte Carlo method's sparse step takes any prior (its curvature is the log density's own
    // Hessian); it needs group effects, and factors that are not crossed (checked with the rows).
    if (model.group_priors().empty())
      throw config_error(
          "/inference/algorithm",
          "sparse is for models with group effects; use fullrank (the same family without them)");
    return;
  }
  if (sparse_family_fits(model)) return;
  throw config_error("/inference/algorithm",
                     model.group_priors().empty()
                         ? "sparse is for models with group effects; use fullrank (the same family without them)"
                         : "the sparse family does not fit five or more correlated group effects (their LKJ prior's "
                           "expectation is a sample average; up to four are exact) or priors with parameters as "
                           "hyperparameters yet; "
                           "use fullrank, structured or meanfield");
}

bool sparse_family_fits(const Model& model) {
  // The block priors (an ordered block's cutpoints) are sampled with the likelihood, as fit and
  // check take them (fit_command.cpp): only the others need a closed form.
  return !model.group_priors().empty() && ExpectedPrior(model, 0, 1, model.block_prior_terms()).exact();
}

template std::shared_ptr<const vi::BlockPattern> make_block_pattern<double>(const Model&, const DataView<double>&,
                                                                            reduce::Communicator&);
template std::shared_ptr<const vi::BlockPattern> make_block_pattern<float>(const Model&, const DataView<float>&,
                                                                           reduce::Communicator&);

}  // namespace bvi::models
