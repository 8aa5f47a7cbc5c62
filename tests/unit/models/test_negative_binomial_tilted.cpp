// negative_binomial_log's expectation through the exponential tilt (two softplus expectations per
// row, a rule in u per count) against an independent 2-D Gauss-Hermite quadrature of the log mass
// written out here (eta first, u given eta: the other factorization from the code's), with every
// partial by central differences of that quadrature: counts on both sides of the per-call table
// (63, 64), rows sharing a count in one call, correlated and meanfield q, s = 0, and a q wider in u
// than softplus's tiers (the rule over u the likelihood falls back to there).
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

#include "inference/quadrature/gauss_hermite.hpp"
#include "models/likelihoods/likelihood.hpp"

namespace test_negative_binomial_tilted {

using namespace bvi;

namespace {

struct Moments {
  double m, v, c, u_mean, u_var;
};

// E log NB2(y | e^eta, e^u) over (eta, u) ~ N((m, u_mean), [[v, c], [c, u_var]]), n x n points.
double reference(double y, const Moments& q, int n = 96) {
  const auto& rule = quadrature::gauss_hermite(n);
  const double sv = std::sqrt(q.v), b = q.v > 0.0 ? q.c / q.v : 0.0;
  const double cond = std::sqrt(std::max(0.0, q.u_var - b * q.c));
  double log_fact = 0.0;
  for (double j = 2.0; j <= y; j += 1.0) log_fact += std::log(j);
  double total = 0.0;
  for (int i = 0; i < rule.size(); ++i) {
    const double eta = q.m + sv * rule.nodes[i];
    for (int k = 0; k < rule.size(); ++k) {
      const double u = q.u_mean + b * sv * rule.nodes[i] + cond * rule.nodes[k], phi = std::exp(u);
      // log(phi + mu), mu = e^eta
      const double lse = std::max(u, eta) + std::log1p(std::exp(-std::abs(u - eta)));
      double rising = 0.0;
      if (y <= 16.0)
        for (double j = 0.0; j < y; j += 1.0) rising += std::log(phi + j);
      else
        rising = std::lgamma(y + phi) - std::lgamma(phi);
      total += rule.weights[i] * rule.weights[k] * (rising - log_fact + phi * (u - lse) + y * (eta - lse));
    }
  }
  return total;
}

struct Got {
  double value, dm, dv, dc, du_mean, du_var;
};

std::vector<Got> evaluate(const models::Likelihood& lik, const std::vector<double>& y,
                          const std::vector<Moments>& q, bool correlated,
                          quadrature::ExpectationScratch* kept = nullptr) {
  const Eigen::Index n = static_cast<Eigen::Index>(y.size());
  Eigen::ArrayXd m(n), v(n), c(n), value(n), dm(n), dv(n), dc(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    m[i] = q[i].m;
    v[i] = q[i].v;
    c[i] = q[i].c;
  }
  models::EtaMoments eta{m.data(), v.data(), n, q[0].u_mean, q[0].u_var, correlated ? c.data() : nullptr};
  ad::GlmRows rows;
  rows.y = y.data();
  rows.rows = n;
  models::RowExpectations out{value.data(), dm.data(), dv.data(), dc.data()};
  quadrature::ExpectationScratch fresh;
  lik.expected_log_lik(eta, rows, out, kept ? *kept : fresh);
  std::vector<Got> got;
  for (Eigen::Index i = 0; i < n; ++i) got.push_back({value[i], dm[i], dv[i], dc[i], out.d_u_mean, out.d_u_var});
  return got;
}

std::unique_ptr<models::Likelihood> make() {
  models::ParameterLayout layout;
  layout.add({"beta", 0, 1, true, {}});
  layout.add({"phi", 0, 1, false, {}});
  return models::make_likelihood("negative_binomial_log", layout, {true});
}

}  // namespace

TEST_CASE("negative_binomial_log: the tilted expectation and its partials match a 2-D quadrature") {
  const auto lik = make();
  const double ys[] = {0.0, 1.0, 4.0, 63.0, 64.0, 150.0};
  const Moments qs[] = {{0.3, 0.01, 0.0, 1.6, 1e-4},   {1.2, 0.04, 0.003, 1.0, 0.0009}, {-0.5, 0.3, -0.05, 0.4, 0.09},
                        {3.5, 0.02, 0.0, 2.0, 0.0},    {4.2, 0.5, 0.2, 2.5, 0.25},      {0.0, 0.0, 0.0, 0.7, 0.01},
                        {2.0, 1.0, 0.5, -0.5, 2.25}};
  for (const Moments& q : qs)
    for (double y : ys) {
      for (bool correlated : {true, false}) {
        if (!correlated && q.c != 0.0) continue;
        INFO("y=" << y << " m=" << q.m << " v=" << q.v << " c=" << q.c << " u_mean=" << q.u_mean
                  << " u_var=" << q.u_var << " correlated=" << correlated);
        const Got got = evaluate(*lik, {y}, {q}, correlated)[0];
        const double want = reference(y, q);
        CHECK(std::abs(got.value - want) <= 1e-11 * std::max(1.0, std::abs(want)));
        // Central differences of the reference in each moment (h small against the moments,
        // large against the quadrature's 1e-14).
        const double h = 1e-4;
        auto diff = [&](double Moments::*field) {
          Moments lo = q, hi = q;
          lo.*field -= h;
          hi.*field += h;
          return (reference(y, hi) - reference(y, lo)) / (2.0 * h);
        };
        auto close = [](double a, double b) { return std::abs(a - b) <= 2e-6 * std::max(1.0, std::abs(b)); };
        CHECK(close(got.dm, diff(&Moments::m)));
        CHECK(close(got.du_mean, diff(&Moments::u_mean)));
        if (q.v > h) CHECK(close(got.dv, diff(&Moments::v)));
        if (q.v > h && q.u_var > 1e-3) CHECK(close(got.dc, diff(&Moments::c)));
        if (q.u_var > h) CHECK(close(got.du_var, diff(&Moments::u_var)));
      }
    }
}

TEST_CASE("negative_binomial_log: a q wider in u than softplus's tiers (the rule over u) matches a 2-D quadrature") {
  const auto lik = make();
  const Moments q{0.5, 0.2, 0.1, -1.0, 10.0};  // sd(u) 3.16
  for (double y : {0.0, 2.0, 9.0}) {
    INFO("y=" << y);
    const Got got = evaluate(*lik, {y}, {q}, true)[0];
    const double want = reference(y, q, 200);
    CHECK(std::abs(got.value - want) <= 1e-7 * std::max(1.0, std::abs(want)));
  }
}

TEST_CASE("negative_binomial_log: rows with repeated counts in one call are each row's own") {
  const auto lik = make();
  const std::vector<double> y{3.0, 0.0, 3.0, 70.0, 1.0, 3.0, 70.0, 0.0};
  std::vector<Moments> q;
  for (int i = 0; i < 8; ++i) q.push_back({-1.0 + 0.4 * i, 0.02 + 0.01 * i, 0.001 * i, 1.1, 0.0004});
  const std::vector<Got> all = evaluate(*lik, y, q, true);
  double du_mean = 0.0, du_var = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const Got one = evaluate(*lik, {y[i]}, {q[i]}, true)[0];
    CHECK(one.value == doctest::Approx(all[i].value).epsilon(1e-12));
    CHECK(one.dm == doctest::Approx(all[i].dm).epsilon(1e-12));
    CHECK(one.dv == doctest::Approx(all[i].dv).epsilon(1e-12));
    CHECK(one.dc == doctest::Approx(all[i].dc).epsilon(1e-12));
    du_mean += one.du_mean;
    du_var += one.du_var;
  }
  CHECK(du_mean == doctest::Approx(all[0].du_mean).epsilon(1e-12));
  CHECK(du_var == doctest::Approx(all[0].du_var).epsilon(1e-12));
}

TEST_CASE("negative_binomial_log: a thread's scratch kept across calls gives each call's own bits") {
  // The per-count terms of u are kept in the scratch while u's moments are the same: calls that
  // change u_mean, u_var (by an ulp too) or only the counts must equal calls on a fresh scratch.
  const auto lik = make();
  quadrature::ExpectationScratch kept;
  const double ulp = std::nextafter(1.1, 2.0);
  const std::vector<std::pair<double, double>> u{{1.1, 0.0004}, {1.1, 0.0004}, {ulp, 0.0004}, {ulp, 0.0009},
                                                 {0.3, 0.0009}, {0.3, 0.0},    {1.1, 0.0004}};
  for (std::size_t call = 0; call < u.size(); ++call) {
    // The same counts in every call (below and at the table's end), and one that changes.
    std::vector<double> y{1.0, 3.0, 7.0, 20.0, 63.0, static_cast<double>(call * 5 % 60)};
    std::vector<Moments> q;
    for (int i = 0; i < 6; ++i) q.push_back({-1.0 + 0.5 * i, 0.03, 0.001 * i, u[call].first, u[call].second});
    const std::vector<Got> a = evaluate(*lik, y, q, true, &kept), b = evaluate(*lik, y, q, true);
    for (std::size_t i = 0; i < y.size(); ++i) {
      INFO("call " << call << " row " << i);
      CHECK(a[i].value == b[i].value);
      CHECK(a[i].dm == b[i].dm);
    }
    CHECK(a[0].du_mean == b[0].du_mean);
    CHECK(a[0].du_var == b[0].du_var);
  }
}

}  // namespace test_negative_binomial_tilted
