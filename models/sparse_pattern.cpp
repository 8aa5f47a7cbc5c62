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
  if (static_cast<int>(priors.size()) != data.n_groups)
    throw std::logic_error("sparse pattern: the model's group terms and the data's disagree");
  std::vector<vi::BlockPattern::Factor> factors;
  for (const GroupPrior& g : priors) factors.push_back({g.r_offset, g.groups, g.effects});
  std::vector<vi::BlockPattern::Pair> pairs;
  for (int f1 = 0; f1 < data.n_groups; ++f1)
    for (int f2 = f1 + 1; f2 < data.n_groups; ++f2) {
      const auto& l1 = data.groups[f1].level;
      const auto& l2 = data.groups[f2].level;
      const double G2 = static_cast<double>(factors[static_cast<std::size_t>(f2)].groups);
      // Each pair as one exact double, g1 G2 + g2, for the gather.
      std::vector<double> local(l1.size());
      for (std::size_t r = 0; r < l1.size(); ++r) local[r] = static_cast<double>(l1[r]) * G2 + l2[r];
      std::sort(local.begin(), local.end());
      local.erase(std::unique(local.begin(), local.end()), local.end());
      std::vector<double> all = local;
      if (comm.size() > 1) {
        std::vector<long> counts(static_cast<std::size_t>(comm.size()), 0);
        counts[static_cast<std::size_t>(comm.rank())] = static_cast<long>(local.size());
        comm.allreduce_sum(counts.data(), comm.size());
        long total = 0;
        for (long c : counts) total += c;
        all.assign(static_cast<std::size_t>(total), 0.0);
        comm.allgatherv(local.data(), counts, all.data());
      }
      vi::BlockPattern::Pair p;
      p.f1 = f1;
      p.f2 = f2;
      p.levels.reserve(all.size());
      for (double v : all) {
        const double g1 = std::floor(v / G2);
        p.levels.emplace_back(static_cast<std::int32_t>(g1), static_cast<std::int32_t>(v - g1 * G2));
      }
      pairs.push_back(std::move(p));  // BlockPattern sorts and de-duplicates
    }
  return std::make_shared<const vi::BlockPattern>(model.dim(), std::move(factors), std::move(pairs));
}

void refuse_unfit_sparse(const spec::Config& config, const Model& model) {
  if (config.inference.method != "exact" || config.inference.algorithm != "sparse" || sparse_family_fits(model)) return;
  throw config_error("/inference/algorithm",
                     model.group_priors().empty()
                         ? "sparse is for models with group effects; use fullrank (the same family without them)"
                         : "the sparse family does not fit five or more correlated group effects (their LKJ prior's "
                           "expectation is a sample average; up to four are exact) or priors with parameters as "
                           "hyperparameters yet; "
                           "use fullrank, structured or meanfield");
}

bool sparse_family_fits(const Model& model) {
  return !model.group_priors().empty() && ExpectedPrior(model, 0, 1).exact();
}

template std::shared_ptr<const vi::BlockPattern> make_block_pattern<double>(const Model&, const DataView<double>&,
                                                                            reduce::Communicator&);
template std::shared_ptr<const vi::BlockPattern> make_block_pattern<float>(const Model&, const DataView<float>&,
                                                                           reduce::Communicator&);

}  // namespace bvi::models
