#include "models/model.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>

#include "common/error.hpp"
#include "inference/ad/ad.hpp"

namespace bvi::models {

namespace {

// The transform and the support of a declared parameter's constraint.
ParameterBlock declared_block(const spec::ParameterConfig& p, const std::vector<std::string>& features) {
  ParameterBlock b;
  b.name = p.name;
  b.size = p.size_is_features ? static_cast<Index>(features.size()) : static_cast<Index>(p.size);
  b.is_vector = p.size_is_features || p.size > 1;
  if (p.size_is_features) b.labels = features;
  if (p.constraint == "positive") {
    b.transform = {ad::Bound::lower, 0.0, 0.0};
    b.support = Support::positive;
  } else if (p.constraint == "unit_interval") {
    b.transform = {ad::Bound::interval, 0.0, 1.0};
    b.support = Support::unit_interval;
  } else if (p.lower && p.upper) {
    b.transform = {ad::Bound::interval, *p.lower, *p.upper};
    b.support = *p.lower >= 0 ? Support::positive : Support::real;
  } else if (p.lower) {
    b.transform = {ad::Bound::lower, *p.lower, 0.0};
    b.support = *p.lower >= 0 ? Support::positive : Support::real;
  } else if (p.upper) {
    b.transform = {ad::Bound::upper, 0.0, *p.upper};
  }
  return b;
}

bool positive_valued(const ParameterBlock& b) {
  return b.support == Support::positive || b.support == Support::unit_interval;
}

const char* support_phrase(Support s) {
  switch (s) {
    case Support::positive: return "a positive parameter (declare it with \"constraint\": \"positive\")";
    case Support::unit_interval: return "a parameter in (0, 1) (declare it with \"constraint\": \"unit_interval\")";
    default: return "a real parameter";
  }
}

}  // namespace

Model Model::build(const spec::ModelConfig& config, const std::vector<std::string>& feature_names,
                   const LikelihoodOptions& options) {
  Model m;
  if (config.intercept) m.layout_.add({"alpha", 0, 1, false, {}, Support::real, {}});
  m.layout_.add({"beta", 0, static_cast<Index>(feature_names.size()), true, feature_names, Support::real, {}});
  for (const auto& p : likelihood_parameters(config.likelihood)) m.layout_.add(declared_block(p, feature_names));
  for (const auto& p : config.parameters) m.layout_.add(declared_block(p, feature_names));

  // Priors: each one's family must fit its parameter's range, and each hyperparameter must fit
  // the parameter's size and the hyperparameter's own range.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> depends;  // name -> (on, pointer)
  for (const auto& block : m.layout_.blocks()) {
    const spec::PriorConfig& pc = config.priors.at(block.name);  // the parser checked presence
    PriorTerm term;
    term.family = find_prior_family(pc.family);
    term.offset = block.offset;
    term.size = block.size;
    if (term.family->support == Support::positive && !positive_valued(block))
      throw config_error(pc.pointer + "/" + pc.family, "a " + pc.family + " prior is for " +
                                                           support_phrase(Support::positive) + ", and '" + block.name +
                                                           "' is not one");
    for (const auto& field : term.family->hyperparameters) {
      const spec::HyperValue& hv = pc.hypers.at(field.name);
      HyperTerm h;
      if (!hv.is_expression()) {
        const Index n = static_cast<Index>(hv.values.size());
        if (n != 1 && n != block.size)
          throw config_error(hv.pointer,
                             "has " + std::to_string(n) + " entries, but " + block.name + " has " +
                                 std::to_string(block.size) +
                                 (block.name == "beta" ? " coefficients (one per feature)"
                                                       : std::string(block.size == 1 ? " entry" : " entries")) +
                                 "; give one number or one per coefficient");
        h.constant = Eigen::Map<const Eigen::RowVectorXd>(hv.values.data(), n);
      } else {
        h.factor = hv.factor;
        const bool must_be_positive = field.range.lo >= 0;
        if (must_be_positive && !(hv.factor > 0))
          throw config_error(hv.pointer, "its numeric factor must be positive");
        for (const std::string& name : hv.names) {
          const ParameterBlock* ref = m.layout_.find(name);
          if (ref->size != 1 && ref->size != block.size)
            throw config_error(hv.pointer, "'" + name + "' has " + std::to_string(ref->size) + " entries and '" +
                                               block.name + "' has " + std::to_string(block.size) +
                                               "; a hyperparameter needs one entry or one per entry");
          if (must_be_positive && !positive_valued(*ref))
            throw config_error(hv.pointer, "'" + name + "' can be zero or negative, and " + field.name +
                                               " must be positive: declare '" + name +
                                               "' with \"constraint\": \"positive\"");
          h.offsets.push_back(ref->offset);
          h.sizes.push_back(ref->size);
          depends[block.name].push_back({name, hv.pointer});
        }
      }
      term.hypers.push_back(std::move(h));
    }
    m.priors_.push_back(std::move(term));
  }

  // A prior that depends on itself through others is no density at all.
  std::map<std::string, int> state;  // 0 unseen, 1 on the current path, 2 done
  std::function<void(const std::string&)> visit = [&](const std::string& n) {
    state[n] = 1;
    for (const auto& [on, pointer] : depends[n]) {
      if (state[on] == 1)
        throw config_error(pointer, "the priors of '" + n + "' and '" + on + "' depend on each other in a cycle");
      if (state[on] == 0) visit(on);
    }
    state[n] = 2;
  };
  for (const auto& block : m.layout_.blocks())
    if (state[block.name] == 0) visit(block.name);

  m.transforms_ = m.layout_.column_transforms();
  m.likelihood_ = make_likelihood(config.likelihood, m.layout_, options);
  return m;
}

ad::Var Model::constrain(const ad::Var& theta, ad::Var* log_jacobian) const {
  if (layout_.all_unconstrained()) return theta;
  ad::Constrained c = ad::constrain(theta, transforms_);
  if (log_jacobian) *log_jacobian = c.log_jacobian;
  return c.x;
}

Eigen::MatrixXd Model::constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& theta) const {
  Eigen::MatrixXd x(theta.rows(), theta.cols());
  ad::constrain_values(theta, transforms_, x);
  return x;
}

ad::Var Model::log_prior(const ad::Var& params) const {
  ad::Tape& tape = params.tape();
  ad::Var total;
  bool first = true;
  for (const auto& term : priors_) {
    std::array<ad::Var, kMaxHyperparameters> hypers;
    for (std::size_t k = 0; k < term.hypers.size(); ++k) {
      const HyperTerm& h = term.hypers[k];
      if (!h.is_expression()) {
        hypers[k] = tape.constant(h.constant.data(), 1, h.constant.size());
        continue;
      }
      ad::Var v = params.cols(h.offsets[0], h.sizes[0]);
      for (std::size_t i = 1; i < h.offsets.size(); ++i) v = ad::multiply(v, params.cols(h.offsets[i], h.sizes[i]));
      if (h.factor != 1.0) v = ad::multiply(v, tape.constant(h.factor));
      hypers[k] = v;
    }
    ad::Var lp = ad::row_sums(term.family->log_density(params.cols(term.offset, term.size), hypers.data()));
    total = first ? lp : ad::add(total, lp);
    first = false;
  }
  if (first) return tape.constant(Eigen::VectorXd::Zero(params.rows()));
  return total;
}

}  // namespace bvi::models
