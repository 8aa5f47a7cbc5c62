#include "models/model.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"
#include "inference/ad/ad.hpp"
#include "inference/ad/math/cholesky_corr.hpp"
#include "models/correlation_output.hpp"

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

// Which prior each of beta's columns takes: "beta", or "beta[TERM]" for a term's columns.
std::vector<std::string> beta_sources(const spec::ModelConfig& config, const ModelShape& shape) {
  std::vector<std::string> src(shape.features.size(), "beta");
  for (const auto& t : shape.terms) {
    const std::string key = "beta[" + t.text + "]";
    if (!config.priors.count(key)) continue;
    for (Index j = t.first; j < t.first + t.count; ++j) src[static_cast<std::size_t>(j)] = key;
  }
  for (const auto& entry : config.priors) {
    // Not a structured binding: clang 14 (the sanitizer and fuzz build) cannot capture one in a lambda.
    const std::string& key = entry.first;
    if (key.compare(0, 5, "beta[") == 0 &&
        std::none_of(shape.terms.begin(), shape.terms.end(),
                     [&](const TermColumns& t) { return "beta[" + t.text + "]" == key; }))
      throw config_error(entry.second.pointer, "the model has no term '" + key.substr(5, key.size() - 6) + "'");
  }
  return src;
}

const spec::PriorConfig& prior_of(const spec::ModelConfig& config, const std::string& key) {
  const auto it = config.priors.find(key);
  if (it == config.priors.end()) throw config_error("/model/priors", "missing prior for '" + key + "'");
  return it->second;
}

using Depends =
    std::map<std::string, std::vector<std::pair<std::string, std::string>>>;  // name -> (on, pointer)

// The prior `pc` over columns [from, from + n) of `block`. `pc` was written for the `owner_size`
// entries from block column `owner_first` (beta's prior: all of beta; beta[TERM]'s: the term's
// columns), so its arrays and the parameters it names have 1 entry or owner_size, and are cut to
// the columns taken.
PriorTerm make_prior_term(const ParameterBlock& block, const spec::PriorConfig& pc, const std::string& owner,
                          Index owner_first, Index owner_size, Index from, Index n,
                          const ParameterLayout& layout, Depends& depends) {
  PriorTerm term;
  term.family = find_prior_family(pc.family);
  if (!term.family)
    throw config_error(pc.pointer, "'" + pc.family + "' is no prior for '" + block.name + "'");
  term.offset = block.offset + from;
  term.size = n;
  if (term.family->support == Support::positive && !positive_valued(block))
    throw config_error(pc.pointer + "/" + pc.family, "a " + pc.family + " prior is for " +
                                                         support_phrase(Support::positive) + ", and '" +
                                                         block.name + "' is not one");
  const Index shift = from - owner_first;
  const bool term_prior = owner != block.name;
  for (const auto& field : term.family->hyperparameters) {
    const spec::HyperValue& hv = pc.hypers.at(field.name);
    HyperTerm h;
    if (!hv.is_expression()) {
      const Index count = static_cast<Index>(hv.values.size());
      if (count != 1 && count != owner_size)
        throw config_error(
            hv.pointer,
            "has " + std::to_string(count) + " entries, but " +
                (term_prior
                     ? "the term '" + owner + "' has " + std::to_string(owner_size) + " coefficients"
                     : block.name + " has " + std::to_string(owner_size) +
                           (block.name == "beta" ? " coefficients (one per feature)"
                                                 : std::string(owner_size == 1 ? " entry" : " entries"))) +
                "; give one number or one per coefficient");
      h.constant =
          count == 1 ? Eigen::RowVectorXd::Constant(1, hv.values[0])
                     : Eigen::RowVectorXd(Eigen::Map<const Eigen::RowVectorXd>(hv.values.data() + shift, n));
    } else {
      h.factor = hv.factor;
      const bool must_be_positive = field.range.lo >= 0;
      if (must_be_positive && !(hv.factor > 0))
        throw config_error(hv.pointer, "its numeric factor must be positive");
      for (const std::string& name : hv.names) {
        const ParameterBlock* ref = layout.find(name);
        if (!ref) throw config_error(hv.pointer, "no parameter '" + name + "'");
        if (ref->size != 1 && ref->size != owner_size)
          throw config_error(hv.pointer, "'" + name + "' has " + std::to_string(ref->size) +
                                             " entries and '" +
                                             (term_prior ? "beta[" + owner + "]" : block.name) + "' has " +
                                             std::to_string(owner_size) +
                                             "; a hyperparameter needs one entry or one per entry");
        if (must_be_positive && !positive_valued(*ref))
          throw config_error(hv.pointer, "'" + name + "' can be zero or negative, and " + field.name +
                                             " must be positive: declare '" + name +
                                             "' with \"constraint\": \"positive\"");
        h.offsets.push_back(ref->size == 1 ? ref->offset : ref->offset + shift);
        h.sizes.push_back(ref->size == 1 ? 1 : n);
        depends[block.name].push_back({name, hv.pointer});
      }
    }
    term.hypers.push_back(std::move(h));
  }
  return term;
}

}  // namespace

Model Model::build(const spec::ModelConfig& config, const ModelShape& shape,
                   const LikelihoodOptions& options) {
  Model m;
  const std::vector<std::string>& feature_names = shape.features;
  const Index D = static_cast<Index>(feature_names.size());
  // categorical_logit: one linear predictor per category but the reference one, each with its own
  // alpha.k and beta.k.j. beta's columns are feature-major (beta.2.1, beta.3.1, beta.2.2, ...: Stan's
  // column-major order of a (K - 1) x D matrix), so the block read as a column-major S (K - 1) x D
  // matrix has the draws of category c in rows c S ... c S + S - 1: one GEMM for every category's
  // linear predictor (ad::categorical_logit_glm).
  const bool categorical = config.likelihood == "categorical_logit";
  Index C = 1;  // linear predictors per row
  std::vector<int> cats;
  std::vector<std::string> cat_labels;  // "mu2" or "muVeh", per category in cats
  if (categorical) {
    // K from the data (or the config); before the data is read (a preflight probe), the fewest the
    // config allows: its categories, its reference, one more than an alpha prior's array.
    Index known = shape.response_levels;
    if (known <= 0) {
      known = std::max<Index>(config.categories, static_cast<Index>(config.reference_category));
      if (const auto a = config.priors.find("alpha"); a != config.priors.end())
        for (const auto& h : a->second.hypers)
          if (!h.second.is_expression() && h.second.values.size() > 1)
            known = std::max<Index>(known, static_cast<Index>(h.second.values.size()) + 1);
    }
    const int K = static_cast<int>(std::max<Index>(known, 2));
    const int ref = static_cast<int>(config.reference_category);
    if (ref > K)
      throw config_error("/model/reference_category", "is " + std::to_string(ref) + ", but the response has " +
                                                          std::to_string(K) + " categories");
    for (int k = 1; k <= K; ++k)
      if (k != ref) cats.push_back(k);
    // brms's labels name a category by its level (muVeh_Intercept) when the response has labels.
    const std::vector<std::string>& names = shape.response_level_names;
    for (int k : cats)
      cat_labels.push_back("mu" + (static_cast<int>(names.size()) == K
                                       ? names[static_cast<std::size_t>(k - 1)]
                                       : std::to_string(k)));
    C = K - 1;
    m.layout_.set_categories(K, ref);
  }
  if (config.intercept) {
    if (!categorical) {
      m.layout_.add({"alpha", 0, 1, false, {}, Support::real, {}});
    } else {
      // brms's names b_mu2_Intercept, ... as labels.
      ParameterBlock a{"alpha", 0, C, true, {}, Support::real, {}};
      for (std::size_t c = 0; c < cats.size(); ++c) {
        a.names.push_back("alpha." + std::to_string(cats[c]));
        a.labels.push_back(cat_labels[c] + "_Intercept");
      }
      m.layout_.add(std::move(a));
    }
  }
  if (!categorical) {
    m.layout_.add({"beta", 0, D, true, feature_names, Support::real, {}});
  } else {
    ParameterBlock b{"beta", 0, C * D, true, {}, Support::real, {}};
    for (Index j = 0; j < D; ++j)
      for (std::size_t c = 0; c < cats.size(); ++c) {
        b.names.push_back("beta." + std::to_string(cats[c]) + "." + std::to_string(j + 1));
        b.labels.push_back(cat_labels[c] + "_" + feature_names[static_cast<std::size_t>(j)]);
      }
    m.layout_.add(std::move(b));
  }
  for (const auto& p : likelihood_parameters(config.likelihood)) {
    ParameterBlock b = declared_block(p, feature_names);
    if (p.constraint == "ordered") {
      // The ordinal likelihoods' K - 1 cutpoints, "k|k+1" as brms labels its thresholds. Before the
      // data is read (a preflight probe), as many as the longest array of a cutpoints prior gives,
      // so a prior with one entry per cutpoint is not refused there.
      Index known = shape.response_levels;
      if (known <= 0 && config.categories > 0) known = static_cast<Index>(config.categories);
      if (known <= 0)
        if (const auto c = config.priors.find(p.name); c != config.priors.end())
          for (const auto& h : c->second.hypers)
            if (!h.second.is_expression() && h.second.values.size() > 1)
              known = std::max<Index>(known, static_cast<Index>(h.second.values.size()) + 1);
      b.size = std::max<Index>(known, 2) - 1;
      b.is_vector = true;
      b.transforms = ad::ordered_block(b.size);
      const std::vector<std::string>& names = shape.response_level_names;
      const bool named = static_cast<Index>(names.size()) == b.size + 1;
      for (Index k = 1; k <= b.size; ++k)
        b.labels.push_back(named ? names[static_cast<std::size_t>(k - 1)] + "|" + names[static_cast<std::size_t>(k)]
                                 : std::to_string(k) + "|" + std::to_string(k + 1));
    }
    m.layout_.add(std::move(b));
  }
  for (const auto& p : config.parameters) m.layout_.add(declared_block(p, feature_names));
  // Group sds and correlations of every factor, then every factor's group effects.
  // categorical_logit: each non-reference category k has its own effects, sds and correlations
  // (brms's sd_g__muk_Intercept), category-major within each block (sd_g.k.e, cor_g.k.i.j,
  // r_g.k.l.e), so category c's part of a block is the run of columns a single factor's would be.
  const auto cat_name = [&](std::size_t c) { return categorical ? std::to_string(cats[c]) + "." : std::string(); };
  const auto cat_label = [&](std::size_t c) { return categorical ? cat_labels[c] + "_" : std::string(); };
  const auto n_cats = static_cast<std::size_t>(C);
  for (const auto& g : shape.groups) {
    const Index K = g.effects_count();
    ParameterBlock sd{"sd_" + g.ident, 0, C * K, true, {}, Support::positive, {ad::Bound::lower, 0.0, 0.0}};
    for (std::size_t c = 0; c < n_cats; ++c)
      for (std::size_t e = 0; e < g.effects.size(); ++e) {
        if (categorical) sd.names.push_back("sd_" + g.ident + "." + cat_name(c) + std::to_string(e + 1));
        sd.labels.push_back(g.label + ": sd(" + cat_label(c) + g.effects[e] + ")");
      }
    m.layout_.add(std::move(sd));
    if (g.has_correlations()) {
      ParameterBlock L{"L_" + g.ident, 0, C * ad::corr::free_entries(K), true, {}, Support::real, {}};
      for (std::size_t c = 0; c < n_cats; ++c) {
        const auto t = ad::cholesky_corr_block(K);
        L.transforms.insert(L.transforms.end(), t.begin(), t.end());
        for (std::size_t i = 1; i < g.effects.size(); ++i)
          for (std::size_t j = 0; j < i; ++j) {
            L.names.push_back("cor_" + g.ident + "." + cat_name(c) + std::to_string(i + 1) + "." +
                              std::to_string(j + 1));
            L.labels.push_back(g.label + ": cor(" + cat_label(c) + g.effects[j] + ", " + cat_label(c) +
                               g.effects[i] + ")");
          }
      }
      m.layout_.add(std::move(L));
    }
  }
  for (const auto& g : shape.groups) {
    const Index K = g.effects_count();
    ParameterBlock r{"r_" + g.ident, 0, C * g.groups() * K, true, {}, Support::real, {}};
    for (std::size_t c = 0; c < n_cats; ++c)
      for (Index l = 0; l < g.groups(); ++l)
        for (Index k = 0; k < K; ++k) {
          r.names.push_back("r_" + g.ident + "." + cat_name(c) + std::to_string(l + 1) + "." + std::to_string(k + 1));
          r.labels.push_back(g.label + "[" + g.levels[static_cast<std::size_t>(l)] + "]:" + cat_label(c) +
                             g.effects[static_cast<std::size_t>(k)]);
        }
    m.layout_.add(std::move(r));
  }

  // Priors: each one's family must fit its parameter's range, and each hyperparameter must fit
  // the parameter's size and the hyperparameter's own range.
  Depends depends;
  const std::vector<std::string> beta_src = beta_sources(config, shape);
  std::size_t alpha_term = SIZE_MAX, cutpoints_term = SIZE_MAX;  // their places in priors_
  for (const auto& block : m.layout_.blocks()) {
    if (block.name.compare(0, 2, "r_") == 0 || block.name.compare(0, 2, "L_") == 0) continue;  // below
    if (block.name != "beta") {
      m.priors_.push_back(make_prior_term(block, prior_of(config, block.name), block.name, 0, block.size, 0,
                                          block.size, m.layout_, depends));
      if (block.name == "alpha" && config.alpha_prior_centered) alpha_term = m.priors_.size() - 1;
      if (block.name == "cutpoints" && config.cutpoints_prior_centered) cutpoints_term = m.priors_.size() - 1;
      continue;
    }
    m.beta_offset_ = block.offset;
    m.beta_size_ = block.size;
    // categorical_logit: beta read as its D features (errors count those), each feature's C
    // columns taking the feature's prior.
    ParameterBlock features_view = block;
    features_view.size = D;
    // beta's columns in runs that take the same prior: beta's, or a term's.
    for (Index j = 0; j < D;) {
      Index k = j;
      while (k < D && beta_src[static_cast<std::size_t>(k)] == beta_src[static_cast<std::size_t>(j)])
        ++k;
      const std::string& key = beta_src[static_cast<std::size_t>(j)];
      Index owner_first = 0, owner_size = D;
      std::string owner = "beta";
      if (key != "beta")
        for (const auto& t : shape.terms)
          if ("beta[" + t.text + "]" == key) {
            owner_first = t.first;
            owner_size = t.count;
            owner = t.text;
          }
      if (C == 1) {
        m.priors_.push_back(make_prior_term(block, prior_of(config, key), owner, owner_first, owner_size, j,
                                            k - j, m.layout_, depends));
      } else {
        // Hyperparameters of one entry apply to the run's C (k - j) columns at once; per-feature ones
        // make one term per feature, over its C columns.
        PriorTerm run = make_prior_term(features_view, prior_of(config, key), owner, owner_first, owner_size, j,
                                        k - j, m.layout_, depends);
        const bool scalar = std::all_of(run.hypers.begin(), run.hypers.end(), [](const HyperTerm& h) {
          return h.is_expression() ? std::all_of(h.sizes.begin(), h.sizes.end(), [](Index n) { return n == 1; })
                                   : h.constant.size() == 1;
        });
        if (scalar) {
          run.offset = block.offset + j * C;
          run.size = (k - j) * C;
          m.priors_.push_back(std::move(run));
        } else {
          for (Index f = j; f < k; ++f) {
            PriorTerm one = make_prior_term(features_view, prior_of(config, key), owner, owner_first, owner_size, f,
                                            1, m.layout_, depends);
            one.offset = block.offset + f * C;
            one.size = C;
            m.priors_.push_back(std::move(one));
          }
        }
      }
      j = k;
    }
    // beta's own prior must fit beta even when term priors cover every column.
    if (block.size == 0 ||
        std::all_of(beta_src.begin(), beta_src.end(), [](const std::string& s) { return s != "beta"; }))
      if (config.priors.count("beta"))
        make_prior_term(features_view, config.priors.at("beta"), "beta", 0, D, 0, 0, m.layout_, depends);
  }
  for (const auto& g : shape.groups) {
    // One independent prior per category (categorical_logit), each over its own run of columns.
    const Index K = g.effects_count(), G = g.groups();
    const auto cor = config.priors.find("cor_" + g.ident);
    if (!g.has_correlations() && cor != config.priors.end())
      throw config_error(cor->second.pointer,
                         "the group term of '" + g.label + "' has " +
                             (g.correlated ? "a single effect per group" : "uncorrelated effects") +
                             ": no correlations to give a prior");
    for (Index c = 0; c < C; ++c) {
      GroupPrior gp;
      gp.r_offset = m.layout_.find("r_" + g.ident)->offset + c * G * K;
      gp.sd_offset = m.layout_.find("sd_" + g.ident)->offset + c * K;
      gp.groups = G;
      gp.effects = K;
      if (g.has_correlations()) {
        gp.L_offset = m.layout_.find("L_" + g.ident)->offset + c * ad::corr::free_entries(K);
        gp.eta = prior_of(config, "cor_" + g.ident).hypers.at("eta").values.at(0);
      }
      m.group_priors_.push_back(gp);
    }
  }
  m.column_means_ = shape.column_means.size() == static_cast<Index>(feature_names.size())
                        ? shape.column_means
                        : Eigen::VectorXd::Zero(static_cast<Index>(feature_names.size()));
  // A centered intercept prior is on alpha + beta M: M = the column means (D x 1), or for the C
  // linear predictors of categorical_logit M[j C + c, c] = mean_j, so column c is category c's.
  // Centered cutpoints (one linear predictor, no intercept: P(y <= k) = F(c_k - x . beta)) are
  // c_k - means . beta: every column of M is -means.
  if (alpha_term != SIZE_MAX && m.beta_size_ > 0) {
    PriorTerm& t = m.priors_[alpha_term];
    t.centered = true;
    t.centered_matrix = Eigen::MatrixXd::Zero(C * D, C);
    for (Index j = 0; j < D; ++j)
      for (Index c = 0; c < C; ++c) t.centered_matrix(j * C + c, c) = m.column_means_[j];
  }
  if (cutpoints_term != SIZE_MAX && m.beta_size_ > 0) {
    PriorTerm& t = m.priors_[cutpoints_term];
    t.centered = true;
    t.centered_matrix = -m.column_means_.replicate(1, t.size);
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

void Model::start_group_scales(Eigen::VectorXd& mean) const {
  const Index scale = likelihood_->scale_column();
  if (scale < 0 || !likelihood_->scale_on_eta()) return;
  for (const GroupPrior& g : group_priors_)
    for (Index k = 0; k < g.effects; ++k) mean[g.sd_offset + k] = mean[scale];
}

std::vector<Index> Model::group_scale_columns() const {
  std::vector<Index> out(static_cast<std::size_t>(dim()), -1);
  for (const GroupPrior& g : group_priors_)
    for (Index j = 0; j < g.groups * g.effects; ++j)
      out[static_cast<std::size_t>(g.r_offset + j)] = g.sd_offset + j % g.effects;
  return out;
}

Eigen::VectorXd Model::max_mean_step() const {
  Eigen::VectorXd out = Eigen::VectorXd::Constant(dim(), std::numeric_limits<double>::infinity());
  const auto transforms = layout_.column_transforms();
  for (std::size_t j = 0; j < transforms.size(); ++j) {
    const ad::ColumnTransform& t = transforms[j];
    // An ordered block's first entry is the first cutpoint itself, not a log gap.
    const bool linear = t.bound == ad::Bound::none || (t.bound == ad::Bound::ordered && t.block_index == 0);
    if (!linear) out[static_cast<Index>(j)] = 1.0;
  }
  return out;
}

ad::Var Model::constrain(const ad::Var& theta, ad::Var* log_jacobian) const {
  if (std::all_of(transforms_.begin(), transforms_.end(),
                  [](const ad::ColumnTransform& t) { return t.bound == ad::Bound::none; }))
    return theta;
  ad::Constrained c = ad::constrain(theta, transforms_);
  if (log_jacobian) *log_jacobian = c.log_jacobian;
  return c.x;
}

Eigen::MatrixXd Model::constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& theta) const {
  Eigen::MatrixXd x(theta.rows(), theta.cols());
  ad::constrain_values(theta, transforms_, x);
  return x;
}

void Model::constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::MatrixXd& out) const {
  out.resize(theta.rows(), theta.cols());
  ad::constrain_values(theta, transforms_, out);
}

bool Model::has_correlations() const {
  return std::any_of(group_priors_.begin(), group_priors_.end(),
                     [](const GroupPrior& g) { return g.L_offset >= 0; });
}

Eigen::MatrixXd Model::output_values(const Eigen::Ref<const Eigen::MatrixXd>& theta) const {
  Eigen::MatrixXd x = constrain_values(theta);
  to_output(x);
  return x;
}

Eigen::MatrixXd Model::output_values(const Eigen::Ref<const Eigen::MatrixXd>& theta, Index first, Index n) const {
  if (first < 0 || n < 0 || first + n > theta.cols())
    throw std::invalid_argument("output_values: columns out of range");
  return output_columns(theta.middleCols(first, n), first);
}

Eigen::MatrixXd Model::output_columns(const Eigen::Ref<const Eigen::MatrixXd>& columns, Index first) const {
  const Index n = columns.cols();
  if (first < 0 || first + n > static_cast<Index>(transforms_.size()))
    throw std::invalid_argument("output_columns: columns out of range");
  const auto t0 = transforms_.begin() + first;
  Eigen::MatrixXd x(columns.rows(), n);
  ad::constrain_values(columns, std::vector<ad::ColumnTransform>(t0, t0 + n), x);
  to_output(x, first);
  return x;
}

void Model::to_output(Eigen::Ref<Eigen::MatrixXd> x) const { to_output(x, 0); }

void Model::to_output(Eigen::Ref<Eigen::MatrixXd> x, Index first) const {
  const Index S = x.rows();
  for (const GroupPrior& g : group_priors_) {
    if (g.L_offset < 0) continue;
    const Index n = ad::corr::free_entries(g.effects), at = g.L_offset - first;
    if (at < 0 || at + n > x.cols()) continue;  // a block outside the columns held
    Eigen::MatrixXd omega(S, n);
    for (Index s = 0; s < S; ++s)
      correlations_from_factor(x.data() + at * S + s, S, g.effects, omega.data() + s);
    x.middleCols(at, n) = omega;
  }
}

Eigen::MatrixXd Model::from_output(const Eigen::Ref<const Eigen::MatrixXd>& points,
                                   const std::function<std::string(Index)>& where) const {
  Eigen::MatrixXd x = points;
  const Index S = x.rows();
  for (const GroupPrior& g : group_priors_) {
    if (g.L_offset < 0) continue;
    const Index n = ad::corr::free_entries(g.effects);
    Eigen::MatrixXd w(S, n);
    for (Index s = 0; s < S; ++s)
      if (!factor_from_correlations(points.data() + g.L_offset * S + s, S, g.effects, w.data() + s))
        throw data_error(where(s),
                         "the correlations " + layout_.column_names()[static_cast<std::size_t>(g.L_offset)] +
                             " ... make no correlation matrix (it must be positive definite, every entry in "
                             "(-1, 1))");
    x.middleCols(g.L_offset, n) = w;
  }
  return x;
}

void Model::gradient_to_output(const Eigen::Ref<const Eigen::MatrixXd>& internal,
                               Eigen::Ref<Eigen::MatrixXd> grad) const {
  const Index S = grad.rows();
  for (const GroupPrior& g : group_priors_) {
    if (g.L_offset < 0) continue;
    const Index n = ad::corr::free_entries(g.effects);
    Eigen::MatrixXd go(S, n);
    const Eigen::MatrixXd w = internal.middleCols(g.L_offset, n), gw = grad.middleCols(g.L_offset, n);
    for (Index s = 0; s < S; ++s)
      gradient_to_correlations(w.data() + s, gw.data() + s, S, g.effects, go.data() + s);
    grad.middleCols(g.L_offset, n) = go;
  }
}

Index Model::sparse_probes() const {
  Index probes = dim();
  for (const GroupPrior& g : group_priors_) probes -= g.groups * g.effects - g.effects;
  return probes;
}

std::vector<std::size_t> Model::block_prior_terms() const {
  std::vector<std::size_t> out;
  const auto& tr = layout_.column_transforms();
  for (std::size_t i = 0; i < priors_.size(); ++i)
    for (Index j = 0; j < priors_[i].size; ++j)
      if (ad::is_block_transform(tr[static_cast<std::size_t>(priors_[i].offset + j)])) {
        out.push_back(i);
        break;
      }
  return out;
}

ad::Var Model::log_prior_terms(const ad::Var& params, const std::vector<std::size_t>& terms) const {
  ad::Var total;
  bool first = true;
  for (std::size_t i : terms) {
    const ad::Var lp = prior_term_density(params, priors_[i]);
    total = first ? lp : ad::add(total, lp);
    first = false;
  }
  if (first) return params.tape().constant(Eigen::VectorXd::Zero(params.rows()));
  return total;
}

ad::Var Model::prior_term_density(const ad::Var& params, const PriorTerm& term) const {
  ad::Tape& tape = params.tape();
  std::array<ad::Var, kMaxHyperparameters> hypers;
  for (std::size_t k = 0; k < term.hypers.size(); ++k) {
    const HyperTerm& h = term.hypers[k];
    if (!h.is_expression()) {
      hypers[k] = tape.constant(h.constant.data(), 1, h.constant.size());
      continue;
    }
    ad::Var v = params.cols(h.offsets[0], h.sizes[0]);
    for (std::size_t i = 1; i < h.offsets.size(); ++i)
      v = ad::multiply(v, params.cols(h.offsets[i], h.sizes[i]));
    if (h.factor != 1.0) v = ad::multiply(v, tape.constant(h.factor));
    hypers[k] = v;
  }
  ad::Var x = params.cols(term.offset, term.size);
  if (term.centered)  // at the column means: alpha + beta . means, c_k - beta . means
    x = ad::add(x, ad::matmul(params.cols(beta_offset_, beta_size_),
                              tape.constant(term.centered_matrix.data(), beta_size_, term.centered_matrix.cols())));
  return ad::row_sums(term.family->log_density(x, hypers.data()));
}

ad::Var Model::log_prior(const ad::Var& params) const {
  ad::Tape& tape = params.tape();
  ad::Var total;
  bool first = true;
  for (const auto& term : priors_) {
    ad::Var lp = prior_term_density(params, term);
    total = first ? lp : ad::add(total, lp);
    first = false;
  }
  for (const GroupPrior& g : group_priors_) {
    const ad::Var r = params.cols(g.r_offset, g.groups * g.effects), sd = params.cols(g.sd_offset, g.effects);
    ad::Var lp;
    if (g.L_offset < 0) {
      lp = ad::grouped_normal_lpdf(r, sd);
    } else {
      const ad::Var L = params.cols(g.L_offset, ad::corr::free_entries(g.effects));
      lp = ad::add(ad::grouped_multi_normal_lpdf(r, sd, L), ad::lkj_corr_cholesky_lpdf(L, g.eta, g.effects));
    }
    total = first ? lp : ad::add(total, lp);
    first = false;
  }
  if (first) return tape.constant(Eigen::VectorXd::Zero(params.rows()));
  return total;
}

}  // namespace bvi::models
