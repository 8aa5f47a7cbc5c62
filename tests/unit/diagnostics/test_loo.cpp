// PSIS-LOO against R's loo 2.5.1 (tests/reference/loo_reference.R wrote the fixture; nothing here
// computes a reference with our own code), and the estimator's edge cases against closed forms.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "inference/diagnostics/loo.hpp"
#include "inference/diagnostics/psis_loo.hpp"
#include "loo_reference_inputs.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_loo {

using namespace bvi::diagnostics;
using loo_reference::close_relative;

TEST_CASE("loo: the reference inputs are rebuilt exactly as R built them") {
  const auto fx = loo_reference::fixture();
  CHECK(fx["loo_version"] == "2.5.1");
  for (const std::string name : {"a", "b", "c"}) {
    const auto m = loo_reference::named_model(name);
    const auto& r = fx["loo"][name];
    CHECK(close_relative(m.log_lik.sum(), r["checksum_log_lik"].get<double>(), 1e-12));
    CHECK(close_relative(m.log_p.sum(), r["checksum_log_p"].get<double>(), 1e-12));
    CHECK(close_relative(m.log_g.sum(), r["checksum_log_g"].get<double>(), 1e-12));
  }
}

TEST_CASE("loo: elpd_loo, p_loo, looic, their se and every Pareto k equal R loo's to 1e-8") {
  const auto fx = loo_reference::fixture();
  for (const std::string name : {"a", "b", "c", "a_posterior"}) {
    CAPTURE(name);
    const auto& r = fx["loo"][name];
    const auto m = loo_reference::named_model(name);
    const Eigen::VectorXd correction =
        r["correction"].get<bool>() ? Eigen::VectorXd(m.log_p - m.log_g) : Eigen::VectorXd();
    LooAccumulator acc;
    for (Eigen::Index i = 0; i < m.log_lik.cols(); ++i) {
      const LooPoint p = loo_point(m.log_lik.col(i), correction);
      CAPTURE(i);
      CHECK(p.status == ParetoStatus::fitted);
      CHECK(close_relative(p.pareto_k, r["pareto_k"][static_cast<std::size_t>(i)].get<double>(), 1e-8));
      CHECK(close_relative(p.elpd_loo, r["elpd_loo_i"][static_cast<std::size_t>(i)].get<double>(), 1e-8));
      CHECK(close_relative(p.p_loo, r["p_loo_i"][static_cast<std::size_t>(i)].get<double>(), 1e-8));
      acc.add(p);
    }
    const LooTotals t = acc.totals();
    CHECK(t.rows == 40);
    CHECK(close_relative(t.elpd_loo.estimate, r["elpd_loo"].get<double>(), 1e-8));
    CHECK(close_relative(t.elpd_loo.se, r["se_elpd_loo"].get<double>(), 1e-8));
    CHECK(close_relative(t.p_loo.estimate, r["p_loo"].get<double>(), 1e-8));
    CHECK(close_relative(t.p_loo.se, r["se_p_loo"].get<double>(), 1e-8));
    CHECK(close_relative(t.looic.estimate, r["looic"].get<double>(), 1e-8));
    CHECK(close_relative(t.looic.se, r["se_looic"].get<double>(), 1e-8));
    // The bands, counted from R's k.
    std::int64_t good = 0, bad = 0, very_bad = 0;
    for (const auto& k : r["pareto_k"]) {
      const double v = k.get<double>();
      (v <= 0.7 ? good : v <= 1 ? bad : very_bad) += 1;
    }
    CHECK(t.good == good);
    CHECK(t.bad == bad);
    CHECK(t.very_bad == very_bad);
  }
}

TEST_CASE("loo: the correction is taken up to a constant") {
  const auto m = loo_reference::named_model("b");
  const Eigen::VectorXd c = m.log_p - m.log_g;
  // Log ratios near 12345 are rounded to ~2e-12: the agreement is to that, not to the last bit.
  const Eigen::VectorXd shifted = c.array() - 12345.0;
  for (Eigen::Index i : {0, 7, 22}) {
    const LooPoint a = loo_point(m.log_lik.col(i), c), b = loo_point(m.log_lik.col(i), shifted);
    CHECK(a.elpd_loo == doctest::Approx(b.elpd_loo).epsilon(1e-9));
    CHECK(a.pareto_k == doctest::Approx(b.pareto_k).epsilon(1e-9));
  }
}

TEST_CASE("loo: a constant likelihood leaves nothing to leave out") {
  // p(y_i | theta) = 0.25 at every draw: elpd_loo_i = lpd_i = log 0.25, p_loo_i = 0, whatever the
  // weights (flat ratios: k = -inf, psis.hpp's flat tail).
  const Eigen::VectorXd ll = Eigen::VectorXd::Constant(200, std::log(0.25));
  const LooPoint p = loo_point(ll, Eigen::VectorXd());
  CHECK(p.elpd_loo == doctest::Approx(std::log(0.25)).epsilon(1e-14));
  CHECK(std::abs(p.p_loo) < 1e-14);
  CHECK(p.looic == doctest::Approx(-2 * std::log(0.25)).epsilon(1e-14));
  CHECK(pareto_band(p.pareto_k) == ParetoBand::good);
}

TEST_CASE("loo: an impossible or broken draw is reported, not averaged away") {
  Eigen::VectorXd ll = Eigen::VectorXd::Constant(100, -0.5);
  ll[3] = -std::numeric_limits<double>::infinity();
  LooPoint p = loo_point(ll, Eigen::VectorXd());
  CHECK(p.status == ParetoStatus::non_finite_ratio);
  CHECK(std::isnan(p.elpd_loo));
  CHECK(pareto_band(p.pareto_k) == ParetoBand::very_bad);
  ll[3] = std::numeric_limits<double>::quiet_NaN();
  p = loo_point(ll, Eigen::VectorXd());
  CHECK(std::isnan(p.elpd_loo));
  CHECK_THROWS_AS(loo_point(Eigen::VectorXd(), Eigen::VectorXd()), std::invalid_argument);
  CHECK_THROWS_AS(loo_point(Eigen::VectorXd::Zero(5), Eigen::VectorXd::Zero(4)), std::invalid_argument);
}

TEST_CASE("loo: Pareto k bands as loo prints them") {
  CHECK(pareto_band(-std::numeric_limits<double>::infinity()) == ParetoBand::good);
  CHECK(pareto_band(0.7) == ParetoBand::good);
  CHECK(pareto_band(0.7000001) == ParetoBand::bad);
  CHECK(pareto_band(1.0) == ParetoBand::bad);
  CHECK(pareto_band(1.0000001) == ParetoBand::very_bad);
  CHECK(pareto_band(std::numeric_limits<double>::infinity()) == ParetoBand::very_bad);
  CHECK(pareto_band(std::numeric_limits<double>::quiet_NaN()) == ParetoBand::very_bad);
}

TEST_CASE("loo: the accumulator's se is sqrt(N) times the sample sd (closed form)") {
  // elpd_i = -1, -2, -3, -4: sum -10, sample variance 5/3, se sqrt(4 * 5/3).
  LooAccumulator acc;
  for (int i = 1; i <= 4; ++i) {
    LooPoint p;
    p.elpd_loo = -i;
    p.p_loo = 0.5;
    p.pareto_k = i * 0.3;  // 0.3 0.6 | 0.9 | 1.2
    acc.add(p);
  }
  const LooTotals t = acc.totals();
  CHECK(t.elpd_loo.estimate == doctest::Approx(-10.0).epsilon(1e-15));
  CHECK(t.elpd_loo.se == doctest::Approx(std::sqrt(4.0 * 5.0 / 3.0)).epsilon(1e-15));
  CHECK(t.p_loo.estimate == doctest::Approx(2.0).epsilon(1e-15));
  CHECK(std::abs(t.p_loo.se) < 1e-15);
  CHECK(t.looic.estimate == doctest::Approx(20.0).epsilon(1e-15));
  CHECK(t.looic.se == doctest::Approx(2 * std::sqrt(4.0 * 5.0 / 3.0)).epsilon(1e-15));
  CHECK(t.good == 2);
  CHECK(t.bad == 1);
  CHECK(t.very_bad == 1);
}


// Subsampling LOO against R's loo_subsample() (tests/reference/loo_subsample_reference.R wrote
// fixtures/loo_subsample_reference.json): R's plpd approximations of every row and our PSIS-LOO of
// the subsampled rows give R's estimates, se and subsampling se to 1e-8.
nlohmann::json subsample_fixture() {
  std::ifstream in(std::string(BVI_SOURCE_DIR) + "/tests/reference/fixtures/loo_subsample_reference.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// The accumulator fed as loo --subsample feeds it: every row's approximation in row order, the
// sampled rows' values as they come.
LooSubsampleTotals subsample_totals(const Eigen::VectorXd& approx, const std::vector<int>& idx,
                                    const std::vector<LooPoint>& sampled) {
  LooSubsampleAccumulator acc;
  std::size_t j = 0;
  for (Eigen::Index i = 0; i < approx.size(); ++i) {
    acc.add_approximation(approx[i]);
    if (j < idx.size() && idx[j] == i + 1) acc.add_sampled(approx[i], sampled[j++]);
  }
  return acc.totals();
}

TEST_CASE("loo subsample: the difference estimator equals R's loo_subsample to 1e-8") {
  const auto fx = subsample_fixture();
  CHECK(fx["loo_version"] == "2.5.1");
  for (const std::string name : {"a", "b"}) {
    CAPTURE(name);
    const auto& r = fx["loo_subsample"][name];
    const auto m = loo_reference::named_model(name);
    CHECK(close_relative(m.log_lik.sum(), r["checksum_log_lik"].get<double>(), 1e-12));
    const auto idx = r["idx"].get<std::vector<int>>();
    const auto approx_v = r["elpd_loo_approx"].get<std::vector<double>>();
    const Eigen::VectorXd approx = Eigen::Map<const Eigen::VectorXd>(approx_v.data(), 40);
    const Eigen::VectorXd correction = m.log_p - m.log_g;
    std::vector<LooPoint> sampled;
    for (std::size_t j = 0; j < idx.size(); ++j) {
      sampled.push_back(loo_point(m.log_lik.col(idx[j] - 1), correction));
      CHECK(close_relative(sampled.back().elpd_loo, r["elpd_loo_i"][j].get<double>(), 1e-8));
      CHECK(close_relative(sampled.back().pareto_k, r["pareto_k"][j].get<double>(), 1e-8));
    }
    const LooSubsampleTotals t = subsample_totals(approx, idx, sampled);
    CHECK(t.rows == 40);
    CHECK(t.sampled == 10);
    const std::pair<const char*, const LooSubsampleEstimate*> quantities[] = {
        {"elpd_loo", &t.elpd_loo}, {"p_loo", &t.p_loo}, {"looic", &t.looic}};
    for (const auto& q : quantities) {
      const std::string key = q.first;
      CAPTURE(key);
      CHECK(close_relative(q.second->estimate, r[key].get<double>(), 1e-8));
      CHECK(close_relative(q.second->se, r["se_" + key].get<double>(), 1e-8));
      CHECK(close_relative(q.second->subsampling_se, r["subsampling_se_" + key].get<double>(), 1e-8));
    }
  }
}

TEST_CASE("loo subsample: compare's difference estimator equals R's loo_compare of subsampled loos") {
  // loo_compare_ss_diff: the difference estimator on approx_a - approx_b with the sampled rows'
  // elpd differences. R 2.5.1 reports this one with the sign of best minus other (+1.59); ours is
  // loo_compare's other minus best, so the estimate is negated, the se are the same.
  const auto fx = subsample_fixture();
  const auto& ra = fx["loo_subsample"]["a"];
  const auto& rb = fx["loo_subsample"]["b"];
  const auto ma = loo_reference::named_model("a"), mb = loo_reference::named_model("b");
  const auto idx = ra["idx"].get<std::vector<int>>();
  Eigen::VectorXd diff(40);
  for (std::size_t i = 0; i < 40; ++i)
    diff[static_cast<Eigen::Index>(i)] =
        rb["elpd_loo_approx"][i].get<double>() - ra["elpd_loo_approx"][i].get<double>();
  std::vector<LooPoint> sampled;
  for (int i : idx) {
    LooPoint p;
    p.elpd_loo = loo_point(mb.log_lik.col(i - 1), Eigen::VectorXd(mb.log_p - mb.log_g)).elpd_loo -
                 loo_point(ma.log_lik.col(i - 1), Eigen::VectorXd(ma.log_p - ma.log_g)).elpd_loo;
    sampled.push_back(p);
  }
  const LooSubsampleTotals t = subsample_totals(diff, idx, sampled);
  const auto& c = fx["compare"];
  CHECK(close_relative(-t.elpd_loo.estimate, c["elpd_diff"][1].get<double>(), 1e-8));
  CHECK(close_relative(t.elpd_loo.se, c["se_diff"][1].get<double>(), 1e-8));
  CHECK(close_relative(t.elpd_loo.subsampling_se, c["subsampling_se_diff"][1].get<double>(), 1e-8));
}

TEST_CASE("loo subsample: every row sampled is the full estimate, with no subsampling error") {
  // m = N: fpc = 0, e_j known everywhere, so elpd is sum_i y_i exactly and sigma2 = sum (y - ybar)^2
  // (N var with divisor N, not N - 1: the estimator's own normalization). Closed form on 4 rows.
  const double a[4] = {-1.0, -0.5, -2.0, -0.25}, y[4] = {-1.25, -0.5, -3.0, -0.25};
  LooSubsampleAccumulator acc;
  for (int i = 0; i < 4; ++i) {
    LooPoint p;
    p.elpd_loo = y[i];
    p.p_loo = 0.1 * (i + 1);
    p.pareto_k = 0.2 * i;
    acc.add_approximation(a[i]);
    acc.add_sampled(a[i], p);
  }
  const LooSubsampleTotals t = acc.totals();
  CHECK(t.elpd_loo.estimate == doctest::Approx(-5.0).epsilon(1e-15));
  // ybar = -1.25; squared deviations 0, 0.5625, 3.0625, 1: sum 4.625.
  CHECK(t.elpd_loo.se == doctest::Approx(std::sqrt(4.625)).epsilon(1e-14));
  CHECK(t.elpd_loo.subsampling_se == 0.0);
  CHECK(t.p_loo.estimate == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(t.p_loo.subsampling_se == 0.0);
  CHECK(t.looic.se == doctest::Approx(2 * std::sqrt(4.625)).epsilon(1e-14));
  CHECK(t.good == 4);
  LooSubsampleAccumulator one;
  one.add_approximation(1.0);
  one.add_sampled(1.0, LooPoint{});
  one.add_approximation(2.0);
  CHECK_THROWS_AS(one.totals(), std::invalid_argument);  // m = 1: no variance
}

// loo_point's fused sums (psis_loo.hpp) against the weights psis_log_weights forms (checked against
// R above), summed directly: rows of several shapes, ties in the tail and at the threshold, S on
// both sides of the selection's rank-count limit.
double direct_log_sum_exp(const Eigen::ArrayXd& v) {
  const double m = v.maxCoeff();
  return m + std::log((v - m).exp().sum());
}

TEST_CASE("loo: the fused per-row sums equal psis_log_weights' weights summed") {
  std::mt19937_64 rng(20);
  std::normal_distribution<double> normal;
  std::student_t_distribution<double> heavy(2.0);
  int checked = 0;
  for (const Eigen::Index S : {100, 1000, 4000, 20000}) {
    for (int shape = 0; shape < 6; ++shape) {
      for (int rep = 0; rep < 6; ++rep) {
        Eigen::VectorXd ll(S), c(S);
        for (Eigen::Index s = 0; s < S; ++s) {
          const double e = shape == 1 ? heavy(rng) : normal(rng);
          ll[s] = shape == 4 ? -std::abs(2.0 * e) : -0.7 + 0.4 * e;  // 4: log p far from 0
          c[s] = shape == 2 ? 3.0 * normal(rng) : 0.2 * normal(rng);  // 2: a poor q
        }
        if (shape == 3)  // ties: rounded to a coarse grid, many equal ratios in the tail
          for (Eigen::Index s = 0; s < S; ++s) ll[s] = std::round(ll[s] * 20.0) / 20.0, c[s] = 0.0;
        if (shape == 5) c = Eigen::VectorXd();  // posterior draws: no correction
        CAPTURE(S);
        CAPTURE(shape);
        PsisLooSums sums;
        const bool fused = psis_loo_sums(ll, c, &sums);
        REQUIRE(fused);
        Eigen::VectorXd lr = -ll;
        if (c.size() != 0) lr += c;
        ParetoFit fit{};
        const Eigen::VectorXd lw = psis_log_weights(lr, &fit);
        CHECK(sums.fit.k == fit.k);  // the same selection and fit: the same bits
        CHECK(sums.fit.tail_length == fit.tail_length);
        const double elpd = direct_log_sum_exp(lw.array() + ll.array());
        const double lpd = direct_log_sum_exp(ll.array()) - std::log(static_cast<double>(S));
        CHECK(sums.elpd_loo == doctest::Approx(elpd).epsilon(1e-13));
        CHECK(sums.lpd == doctest::Approx(lpd).epsilon(1e-14));
        const LooPoint p = loo_point(ll, c);
        CHECK(p.elpd_loo == sums.elpd_loo);
        CHECK(p.pareto_k == fit.k);
        ++checked;
      }
    }
  }
  CHECK(checked == 4 * 6 * 6);
}

TEST_CASE("loo: the tail PSIS selects is the one a full sort by (ratio, draw) gives") {
  // k from pareto_k_hat against the GPD fitted to the exceedances over the (M+1)-th largest of a
  // full std::sort, with ties: a wrong draw in the selection changes the exceedances.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (const Eigen::Index S : {60, 1000, 3000, 50000}) {
    for (int rep = 0; rep < 20; ++rep) {
      Eigen::VectorXd lr(S);
      for (Eigen::Index s = 0; s < S; ++s) lr[s] = rep % 2 && S >= 1000 ? std::round(normal(rng) * 8.0) / 8.0 : normal(rng);
      std::vector<double> sorted(lr.data(), lr.data() + S);
      std::sort(sorted.begin(), sorted.end());
      const Eigen::Index M = psis_tail_length(S);
      const double u = sorted[static_cast<std::size_t>(S - M - 1)], top = sorted.back();
      std::vector<double> x;
      for (Eigen::Index j = S - M; j < S; ++j)
        if (sorted[static_cast<std::size_t>(j)] > u)
          x.push_back(std::exp(sorted[static_cast<std::size_t>(j)] - top) * -std::expm1(u - sorted[static_cast<std::size_t>(j)]));
      CAPTURE(S);
      CAPTURE(rep);
      const ParetoFit fit = pareto_k_hat(lr);
      REQUIRE(fit.status == ParetoStatus::fitted);
      CHECK(fit.tail_length == static_cast<Eigen::Index>(x.size()));
      const Eigen::VectorXd xv = Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
      CHECK(fit.k == doctest::Approx(fit_generalized_pareto(xv).k).epsilon(1e-12));
    }
  }
}

}  // namespace test_loo
