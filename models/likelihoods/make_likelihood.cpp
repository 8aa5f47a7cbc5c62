#include <functional>
#include <stdexcept>

#include "models/likelihoods/bernoulli_logit.hpp"
#include "models/likelihoods/bernoulli_probit.hpp"
#include "models/likelihoods/beta_logit.hpp"
#include "models/likelihoods/binomial_logit.hpp"
#include "models/likelihoods/categorical_logit.hpp"
#include "models/likelihoods/gamma_log.hpp"
#include "models/likelihoods/lognormal.hpp"
#include "models/likelihoods/negative_binomial_log.hpp"
#include "models/likelihoods/normal.hpp"
#include "models/likelihoods/ordinal.hpp"
#include "models/likelihoods/poisson_log.hpp"
#include "models/likelihoods/student_t.hpp"

namespace bvi::models {

namespace {

struct Entry {
  std::string name;
  LikelihoodNeeds needs;
  std::function<std::unique_ptr<Likelihood>(const ParameterLayout&, bool fused)> make;
};

template <class L>
std::unique_ptr<Likelihood> construct(const ParameterLayout& layout, bool fused) {
  return std::make_unique<L>(layout, fused);
}

// A likelihood's own positive scalar (normal's and lognormal's scale sigma, the negative
// binomial's shape phi, gamma_log's shape, student_t's sigma and nu),
// with a prior at /model/priors/NAME.
spec::ParameterConfig positive_parameter(const std::string& name) {
  spec::ParameterConfig p;
  p.name = name;
  p.size = 1;
  p.constraint = "positive";
  p.pointer = "/model/likelihood";
  return p;
}

// The ordinal likelihoods' K - 1 increasing cutpoints (their number set by Model::build from the
// data's K), with a prior at /model/priors/cutpoints.
spec::ParameterConfig cutpoints_parameter() {
  spec::ParameterConfig p;
  p.name = "cutpoints";
  p.size = 1;
  p.constraint = "ordered";
  p.pointer = "/model/likelihood";
  return p;
}

const std::vector<Entry>& registry() {
  static const std::vector<Entry> all{
      {"bernoulli_logit", {}, construct<BernoulliLogit>},
      {"bernoulli_probit", {}, construct<BernoulliProbit>},
      {"binomial_logit", {{}, true, false}, construct<BinomialLogit>},
      {"poisson_log", {{}, false, true}, construct<PoissonLog>},
      {"normal", {{positive_parameter("sigma")}, false, false}, construct<NormalLikelihood>},
      {"negative_binomial_log", {{positive_parameter("phi")}, false, true}, construct<NegativeBinomialLog>},
      // offset + log exposure on eta: lognormal's median and gamma_log's mean scale with exposure.
      {"lognormal", {{positive_parameter("sigma")}, false, true}, construct<Lognormal>},
      {"gamma_log", {{positive_parameter("shape")}, false, true}, construct<GammaLog>},
      {"beta_logit", {{positive_parameter("phi")}, false, false}, construct<BetaLogit>},
      // brms's student: scale sigma and degrees of freedom nu.
      {"student_t", {{positive_parameter("sigma"), positive_parameter("nu")}, false, false}, construct<StudentT>},
      {"ordinal_logit", {{cutpoints_parameter()}, false, false}, construct<OrdinalLogit>},
      {"ordinal_probit", {{cutpoints_parameter()}, false, false}, construct<OrdinalProbit>},
      // Its alpha and beta hold one intercept and coefficient vector per non-reference category.
      {"categorical_logit", {}, construct<CategoricalLogit>},
  };
  return all;
}

const Entry* find(const std::string& name) {
  for (const Entry& e : registry())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

std::vector<std::string> likelihood_names() {
  std::vector<std::string> names;
  for (const Entry& e : registry()) names.push_back(e.name);
  return names;
}

const LikelihoodNeeds& likelihood_needs(const std::string& name) {
  if (const Entry* e = find(name)) return e->needs;
  throw std::invalid_argument("unknown likelihood '" + name + "'");  // the config validator lists them
}

std::string exact_method_refusal(const std::string& name) {
  if (name == "student_t")
    return "each row's expected log density is a 3-D integral over (eta, log sigma, log nu), which the exact "
           "method does not take; use method monte_carlo (or auto, which chooses it)";
  if (name == "ordinal_logit" || name == "ordinal_probit")
    return "each row's expectation involves eta and two cutpoints, which the exact method does not take; use "
           "method monte_carlo (or auto, which chooses it)";
  if (name == "categorical_logit")
    return "each row's expectation is a (K - 1)-dimensional integral over the categories' linear predictors, "
           "which the exact method does not take; use method monte_carlo (or auto, which chooses it)";
  return "";
}

std::vector<spec::ParameterConfig> likelihood_parameters(const std::string& name) {
  const Entry* e = find(name);
  return e ? e->needs.parameters : std::vector<spec::ParameterConfig>{};
}

std::unique_ptr<Likelihood> make_likelihood(const std::string& name, const ParameterLayout& layout,
                                            const LikelihoodOptions& options) {
  if (const Entry* e = find(name)) return e->make(layout, options.fused);
  throw std::invalid_argument("unknown likelihood '" + name + "'");  // the config validator lists them
}

}  // namespace bvi::models
