// Row weights (/data/weights) through every likelihood's Likelihood object: a block whose rows
// carry integer weights gives the value and gradient of the same block with each row repeated
// w times (a weight 0 drops it), fused and composed; with fractional weights the gradient
// matches central differences of the weighted value and fused matches composed; under the exact
// method the weighted row expectations (weight_row_expectations and the likelihood's own summed
// u derivatives) match the repeated rows'. The reference is the unweighted code on repeated
// rows, which the other likelihood tests check against scipy: never the weighted code itself.
// Every likelihood of likelihood_names() is covered, so a new one is checked when it is added
// (categorical_logit with K = 3: two intercepts and coefficient vectors).
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "inference/ad/ad.hpp"
#include "models/likelihoods/likelihood.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_row_weights {

using namespace bvi;
using models::DataBlock;

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The ordinal likelihoods have no intercept and K - 1 cutpoints (3 here: categories 1 ... 4).
bool ordinal(const std::string& name) { return name.rfind("ordinal", 0) == 0; }
constexpr Eigen::Index kOrdinalCutpoints = 3;

// beta (D), alpha (none for the ordinal likelihoods), then the likelihood's own parameters, each
// element positive and increasing (valid for scales, shapes and ordered cutpoints alike).
models::ParameterLayout weights_layout(const std::string& name, Eigen::Index D) {
  models::ParameterLayout layout;
  if (name == "categorical_logit") {
    // K = 3 categories, the first the reference: alpha.2, alpha.3 and 2 D coefficients.
    layout.set_categories(3, 1);
    layout.add({"beta", 0, 2 * D, true, {}});
    layout.add({"alpha", 0, 2, true, {}});
    return layout;
  }
  layout.add({"beta", 0, D, true, {}});
  if (!ordinal(name)) layout.add({"alpha", 0, 1, false, {}});
  for (const auto& p : models::likelihood_parameters(name)) {
    const Eigen::Index size = p.name == "cutpoints" ? kOrdinalCutpoints : static_cast<Eigen::Index>(p.size);
    layout.add({p.name, 0, size, size > 1, {}, models::Support::positive, {}});
  }
  return layout;
}

struct Rows {
  RowMat x;
  Eigen::VectorXd y, trials, offset, weight;
};

// m rows of valid responses for `lik` (candidates filtered by its own checks, and for an ordinal
// likelihood by its K), 6 trials each.
Rows random_rows(const models::Likelihood& lik, Eigen::Index m, Eigen::Index D, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> valid;
  const double top = ordinal(lik.name()) ? double(kOrdinalCutpoints + 1) : HUGE_VAL;
  for (double y : {0.0, 1.0, 2.0, 3.0, 5.0, 0.3, 0.7, 1.7, -0.4, 4.2, 4.0})
    if (y <= top && lik.check_response(y).empty() && lik.check_response(y, 6.0).empty()) valid.push_back(y);
  REQUIRE(!valid.empty());
  Rows r{RowMat(m, D), Eigen::VectorXd(m), Eigen::VectorXd::Constant(m, 6.0), Eigen::VectorXd(m),
         Eigen::VectorXd(m)};
  for (Eigen::Index i = 0; i < r.x.size(); ++i) r.x.data()[i] = 0.5 * normal(rng);
  for (Eigen::Index n = 0; n < m; ++n) {
    r.y[n] = valid[rng() % valid.size()];
    r.offset[n] = 0.2 * normal(rng);
    r.weight[n] = double(rng() % 4);  // 0 .. 3
  }
  return r;
}

// The rows repeated weight[n] times each, in order (weight 0: left out).
Rows repeated(const Rows& r) {
  const auto total = static_cast<Eigen::Index>(r.weight.sum());
  Rows d{RowMat(total, r.x.cols()), Eigen::VectorXd(total), Eigen::VectorXd(total), Eigen::VectorXd(total),
         Eigen::VectorXd()};
  Eigen::Index k = 0;
  for (Eigen::Index n = 0; n < r.y.size(); ++n)
    for (int c = 0; c < static_cast<int>(r.weight[n]); ++c, ++k) {
      d.x.row(k) = r.x.row(n);
      d.y[k] = r.y[n];
      d.trials[k] = r.trials[n];
      d.offset[k] = r.offset[n];
    }
  return d;
}

DataBlock<double> block_of(const Rows& r, const models::LikelihoodNeeds& needs, bool weighted) {
  DataBlock<double> b{r.x.data(), r.y.data(), r.x.rows(), r.x.cols()};
  if (needs.trials) b.trials = r.trials.data();
  if (needs.offset) b.offset = r.offset.data();
  if (weighted) b.weight = r.weight.data();
  return b;
}

Eigen::ArrayXd log_lik(const models::Likelihood& lik, const Eigen::ArrayXXd& params, const DataBlock<double>& block,
                       Eigen::ArrayXXd* grad) {
  ad::Tape tape(8 << 20);
  if (grad) grad->setZero(params.rows(), params.cols());
  const ad::Var p = grad ? tape.leaf(params.data(), grad->data(), params.rows(), params.cols())
                         : tape.constant(params.data(), params.rows(), params.cols());
  const ad::Var out = lik.log_lik(p, block);
  if (grad) tape.backward(out);
  return out.val().col(0);
}

// S draws near the origin: small coefficients (and alpha, or an ordinal model's first cutpoint;
// every column of a categorical model), the positive parameters from 0.8 up.
Eigen::ArrayXXd random_params(const models::ParameterLayout& layout, Eigen::Index S, Eigen::Index D, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::ArrayXXd p(S, layout.dim());
  if (layout.categories() > 0) D = layout.dim() - 1;
  for (Eigen::Index s = 0; s < S; ++s) {
    for (Eigen::Index j = 0; j <= D; ++j) p(s, j) = 0.3 * normal(rng);
    for (Eigen::Index j = D + 1; j < layout.dim(); ++j) p(s, j) = 0.8 + 0.4 * double(j - D) + 0.1 * std::abs(normal(rng));
  }
  return p;
}

double rel_err(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }

}  // namespace

TEST_CASE("row weights: integer weights equal repeated rows, every likelihood, fused and composed") {
  const Eigen::Index m = 40, D = 3, S = 5;
  for (const std::string& name : models::likelihood_names()) {
    const models::ParameterLayout layout = weights_layout(name, D);
    const models::LikelihoodNeeds& needs = models::likelihood_needs(name);
    const Eigen::ArrayXXd params = random_params(layout, S, D, 7);
    for (bool fused : {true, false}) {
      const auto lik = models::make_likelihood(name, layout, {fused});
      const Rows rows = random_rows(*lik, m, D, 11);
      const Rows dup = repeated(rows);
      Eigen::ArrayXXd gw, gd;
      const Eigen::ArrayXd vw = log_lik(*lik, params, block_of(rows, needs, true), &gw);
      const Eigen::ArrayXd vd = log_lik(*lik, params, block_of(dup, needs, false), &gd);
      for (Eigen::Index s = 0; s < S; ++s) {
        INFO(name << (fused ? " fused" : " composed") << " draw " << s);
        CHECK(rel_err(vw[s], vd[s]) < 1e-12);
        for (Eigen::Index j = 0; j < layout.dim(); ++j) CHECK(rel_err(gw(s, j), gd(s, j)) < 1e-11);
      }
    }
  }
}

TEST_CASE("row weights: fractional weights, gradient against central differences, fused against composed") {
  const Eigen::Index m = 30, D = 2, S = 3;
  for (const std::string& name : models::likelihood_names()) {
    const models::ParameterLayout layout = weights_layout(name, D);
    const models::LikelihoodNeeds& needs = models::likelihood_needs(name);
    const Eigen::ArrayXXd params = random_params(layout, S, D, 3);
    const auto fused = models::make_likelihood(name, layout, {true});
    const auto composed = models::make_likelihood(name, layout, {false});
    Rows rows = random_rows(*fused, m, D, 5);
    for (Eigen::Index n = 0; n < m; ++n) rows.weight[n] = 0.37 * double(n % 7);  // 0, 0.37, ... 2.22
    const DataBlock<double> block = block_of(rows, needs, true);
    Eigen::ArrayXXd gf, gc;
    const Eigen::ArrayXd vf = log_lik(*fused, params, block, &gf);
    const Eigen::ArrayXd vc = log_lik(*composed, params, block, &gc);
    const double h = 1e-6;
    for (Eigen::Index s = 0; s < S; ++s) {
      INFO(name << " draw " << s);
      CHECK(rel_err(vf[s], vc[s]) < 1e-12);
      for (Eigen::Index j = 0; j < layout.dim(); ++j) {
        CHECK(rel_err(gf(s, j), gc(s, j)) < 1e-11);
        Eigen::ArrayXXd up = params, down = params;
        up(s, j) += h;
        down(s, j) -= h;
        const double fd = (log_lik(*fused, up, block, nullptr)[s] - log_lik(*fused, down, block, nullptr)[s]) / (2 * h);
        INFO("parameter column " << j << ": AD " << gf(s, j) << ", central difference " << fd);
        CHECK(std::abs(gf(s, j) - fd) < 1e-6 * std::max(1.0, std::abs(fd)));
      }
    }
  }
}

TEST_CASE("row weights: the tiled bernoulli_logit kernel over many tiles, double and float") {
  // Enough rows for several of the kernel's cache tiles, so each tile's weights must start at
  // its own first row.
  const Eigen::Index m = 9000, D = 3, S = 6;
  const models::ParameterLayout layout = weights_layout("bernoulli_logit", D);
  const auto lik = models::make_likelihood("bernoulli_logit", layout, {true});
  const Rows rows = random_rows(*lik, m, D, 21);
  const Rows dup = repeated(rows);
  const Eigen::ArrayXXd params = random_params(layout, S, D, 4);
  const models::LikelihoodNeeds needs;
  Eigen::ArrayXXd gw, gd;
  const Eigen::ArrayXd vw = log_lik(*lik, params, block_of(rows, needs, true), &gw);
  const Eigen::ArrayXd vd = log_lik(*lik, params, block_of(dup, needs, false), &gd);
  for (Eigen::Index s = 0; s < S; ++s) {
    CHECK(rel_err(vw[s], vd[s]) < 1e-11);
    for (Eigen::Index j = 0; j < layout.dim(); ++j) CHECK(rel_err(gw(s, j), gd(s, j)) < 1e-10);
  }
  // float features: the same sums in single-precision tiles, so to float's digits.
  const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> xw = rows.x.cast<float>(),
                                                                           xd = dup.x.cast<float>();
  DataBlock<float> bw{xw.data(), rows.y.data(), m, D};
  bw.weight = rows.weight.data();
  const DataBlock<float> bd{xd.data(), dup.y.data(), xd.rows(), D};
  ad::Tape tape(8 << 20);
  const ad::Var p = tape.constant(params.data(), S, layout.dim());
  const Eigen::ArrayXd fw = lik->log_lik(p, bw).val().col(0);
  const Eigen::ArrayXd fd = lik->log_lik(p, bd).val().col(0);
  for (Eigen::Index s = 0; s < S; ++s) CHECK(rel_err(fw[s], fd[s]) < 1e-5);
}

TEST_CASE("row weights under the exact method: weighted row expectations equal repeated rows'") {
  const Eigen::Index m = 24;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal;
  for (const std::string& name : models::likelihood_names()) {
    if (!models::exact_method_refusal(name).empty()) continue;  // Monte Carlo only: no expectation
    const models::ParameterLayout layout = weights_layout(name, 1);
    const auto lik = models::make_likelihood(name, layout, {true});
    Rows rows = random_rows(*lik, m, 1, 13);
    const Rows dup = repeated(rows);
    // Each row's eta moments; repeated rows repeat them.
    Eigen::ArrayXd mean(m), var(m), cov(m);
    for (Eigen::Index n = 0; n < m; ++n) {
      mean[n] = 0.3 * normal(rng);
      var[n] = 0.05 + 0.1 * std::abs(normal(rng));
      cov[n] = 0.02 * normal(rng);
    }
    const Eigen::Index k = dup.y.size();
    Eigen::ArrayXd dmean(k), dvar(k), dcov(k);
    for (Eigen::Index n = 0, j = 0; n < m; ++n)
      for (int c = 0; c < static_cast<int>(rows.weight[n]); ++c, ++j) {
        dmean[j] = mean[n];
        dvar[j] = var[n];
        dcov[j] = cov[n];
      }
    for (bool correlated : {false, true}) {
      INFO(name << (correlated ? " correlated" : " independent"));
      auto run = [&](const Rows& r, const Eigen::ArrayXd& mu, const Eigen::ArrayXd& v, const Eigen::ArrayXd& c,
                     bool weighted, Eigen::ArrayXXd& per_row) {
        const Eigen::Index n = r.y.size();
        per_row.setZero(n, 4);
        models::EtaMoments eta{mu.data(), v.data(), n, 0.1, 0.04, correlated ? c.data() : nullptr};
        ad::GlmRows g;
        g.y = r.y.data();
        g.trials = r.trials.data();
        g.weight = weighted ? r.weight.data() : nullptr;
        g.rows = n;
        models::RowExpectations out{per_row.col(0).data(), per_row.col(1).data(), per_row.col(2).data(),
                                    per_row.col(3).data()};
        quadrature::ExpectationScratch scratch;
        lik->expected_log_lik(eta, g, out, scratch);
        models::weight_row_expectations(g, out);
        return std::pair<double, double>(out.d_u_mean, out.d_u_var);
      };
      Eigen::ArrayXXd pw, pd;
      const auto uw = run(rows, mean, var, cov, true, pw);
      const auto ud = run(dup, dmean, dvar, dcov, false, pd);
      // Per row: the weighted row against the sum of its copies; and the summed u derivatives.
      for (Eigen::Index n = 0, j = 0; n < m; ++n) {
        Eigen::Array4d copies = Eigen::Array4d::Zero();
        for (int c = 0; c < static_cast<int>(rows.weight[n]); ++c, ++j) copies += pd.row(j).transpose();
        for (int q = 0; q < 4; ++q) CHECK(rel_err(pw(n, q), copies[q]) < 1e-12);
      }
      CHECK(rel_err(uw.first, ud.first) < 1e-11);
      CHECK(rel_err(uw.second, ud.second) < 1e-11);
    }
  }
}

}  // namespace test_row_weights
