#include "models/model.hpp"

#include <array>

#include "common/error.hpp"
#include "inference/ad/ad.hpp"

namespace bvi::models {

Model Model::build(const spec::ModelConfig& config, const std::vector<std::string>& feature_names,
                   const LikelihoodOptions& options) {
  Model m;
  if (config.intercept) m.layout_.add({"alpha", 0, 1, false, {}, Support::real});
  m.layout_.add({"beta", 0, static_cast<Index>(feature_names.size()), true, feature_names, Support::real});

  for (const auto& block : m.layout_.blocks()) {
    const spec::PriorConfig& pc = config.priors.at(block.name);  // the parser checked presence
    PriorTerm term;
    term.family = find_prior_family(pc.family);
    term.offset = block.offset;
    term.size = block.size;
    for (const auto& field : term.family->hyperparameters) {
      const spec::HyperValue& hv = pc.hypers.at(field.name);
      const Index n = static_cast<Index>(hv.values.size());
      if (n != 1 && n != block.size)
        throw config_error(hv.pointer,
                           "has " + std::to_string(n) + " entries, but " + block.name + " has " +
                               std::to_string(block.size) +
                               (block.name == "beta" ? " coefficients (one per feature)" : " entries") +
                               "; give one number or one per coefficient");
      term.hypers.push_back(Eigen::Map<const Eigen::RowVectorXd>(hv.values.data(), n));
    }
    m.priors_.push_back(std::move(term));
  }
  m.likelihood_ = make_likelihood(config.likelihood, m.layout_, options);
  return m;
}

ad::Var Model::constrain(const ad::Var& theta, ad::Var* /*log_jacobian*/) const {
  return theta;
}

ad::Var Model::log_prior(const ad::Var& params) const {
  ad::Tape& tape = params.tape();
  ad::Var total;
  bool first = true;
  for (const auto& term : priors_) {
    std::array<ad::Var, kMaxHyperparameters> hypers;
    for (std::size_t k = 0; k < term.hypers.size(); ++k)
      hypers[k] = tape.constant(term.hypers[k].data(), 1, term.hypers[k].size());
    ad::Var lp = ad::row_sums(term.family->log_density(params.cols(term.offset, term.size), hypers.data()));
    total = first ? lp : ad::add(total, lp);
    first = false;
  }
  if (first) return tape.constant(Eigen::VectorXd::Zero(params.rows()));
  return total;
}

}  // namespace bvi::models
