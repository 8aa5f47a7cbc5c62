// bayes-vi simulate's generator: the text is a function of the spec alone (not of the thread
// count), numbers read back to exactly the float32 values generated, the features are standard
// normal, and y follows sigmoid(x . beta) computed here from the parsed text.
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "inference/rng/uniform_stream.hpp"
#include "models/data/parse_number.hpp"
#include "models/data/simulate.hpp"
#include "models/data/simulated_csv.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_simulate {

using namespace bvi::data;

namespace {

std::string csv_text(const SimulationSpec& spec, int threads) {
  std::string out;
  write_simulated_csv(spec, threads, [&](std::string_view t) { out.append(t); });
  return out;
}

// The CSV parsed back independently of the writer: every field read as a float (from_chars)
// and, as the float32 loader reads it, as a double rounded to float; they must agree.
struct ParsedCsv {
  std::string header;
  std::vector<std::vector<float>> x;
  std::vector<int> y;
};

ParsedCsv parse_csv(const std::string& text, int features) {
  ParsedCsv p;
  std::size_t pos = text.find('\n');
  REQUIRE(pos != std::string::npos);
  p.header = text.substr(0, pos + 1);
  ++pos;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    REQUIRE(eol != std::string::npos);
    std::vector<float> row;
    std::size_t start = pos;
    for (int j = 0; j <= features; ++j) {
      const std::size_t stop = j < features ? text.find(',', start) : eol;
      REQUIRE(stop <= eol);
      const std::string_view field(text.data() + start, stop - start);
      if (j < features) {
        float f = 0;
        const auto r = std::from_chars(field.data(), field.data() + field.size(), f);
        REQUIRE((r.ec == std::errc() && r.ptr == field.data() + field.size()));
        double d = 0;
        REQUIRE(parse_number(field, d) == NumberStatus::ok);
        CHECK(static_cast<float>(d) == f);
        row.push_back(f);
      } else {
        REQUIRE((field == "0" || field == "1"));
        p.y.push_back(field == "1");
      }
      start = stop + 1;
    }
    p.x.push_back(std::move(row));
    pos = eol + 1;
  }
  return p;
}

double sigmoid(double eta) {
  return 1.0 / (1.0 + std::exp(-eta));
}

}  // namespace

TEST_CASE("the same spec gives the same bytes; another seed, other data") {
  const SimulationSpec spec{500, 4, 42};
  const std::string a = csv_text(spec, 1);
  CHECK(a == csv_text(spec, 1));
  CHECK(a.rfind("x1,x2,x3,x4,y\n", 0) == 0);
  SimulationSpec other = spec;
  other.seed = 43;
  const std::string b = csv_text(other, 1);
  CHECK(a != b);
  const ParsedCsv pa = parse_csv(a, 4), pb = parse_csv(b, 4);
  REQUIRE(pa.x.size() == 500);
  int same = 0;
  for (std::size_t n = 0; n < pa.x.size(); ++n)
    for (int j = 0; j < 4; ++j) same += pa.x[n][j] == pb.x[n][j];
  CHECK(same == 0);
  CHECK(simulated_coefficients(42, 4) != simulated_coefficients(43, 4));
}

TEST_CASE("the text does not depend on the thread count") {
  // 200 features: blocks of 163 rows, so 1000 rows are 7 blocks, the last one short.
  for (const SimulationSpec& spec :
       {SimulationSpec{1000, 200, 7}, SimulationSpec{25000, 3, 8}, SimulationSpec{1, 1, 9}}) {
    CAPTURE(spec.features);
    const std::string one = csv_text(spec, 1);
    for (int threads : {2, 3, 8}) CHECK(csv_text(spec, threads) == one);
  }
}

TEST_CASE("a smaller dataset is a prefix of a larger one") {
  const std::string small = csv_text({300, 5, 11}, 2);
  const std::string large = csv_text({3000, 5, 11}, 2);
  CHECK(large.compare(0, small.size(), small) == 0);
  // Fewer features: the same coefficients and feature columns (y differs: its logit does).
  const std::vector<float> b3 = simulated_coefficients(11, 3), b8 = simulated_coefficients(11, 8);
  CHECK(std::vector<float>(b8.begin(), b8.begin() + 3) == b3);
  SimulatedBlock x3, x8;
  simulate_block({50, 3, 11}, b3, 10, 40, x3);
  simulate_block({50, 8, 11}, b8, 10, 40, x8);
  CHECK(x8.x.leftCols(3) == x3.x);
  // Any block is the same rows of the whole.
  SimulatedBlock all;
  simulate_block({50, 8, 11}, b8, 0, 50, all);
  CHECK(all.x.bottomRows(40) == x8.x);
  CHECK(std::vector<double>(all.y.begin() + 10, all.y.end()) == x8.y);
}

TEST_CASE("the text reads back to exactly the float32 values generated") {
  const SimulationSpec spec{400, 6, 3};
  const std::vector<float> beta = simulated_coefficients(spec.seed, spec.features);
  SimulatedBlock block;
  simulate_block(spec, beta, 0, spec.rows, block);
  const ParsedCsv p = parse_csv(csv_text(spec, 2), spec.features);
  CHECK(p.header == "x1,x2,x3,x4,x5,x6,y\n");
  REQUIRE(p.x.size() == static_cast<std::size_t>(spec.rows));
  int mismatches = 0;
  for (Eigen::Index n = 0; n < spec.rows; ++n) {
    for (int j = 0; j < spec.features; ++j) mismatches += p.x[n][j] != block.x(n, j);
    mismatches += p.y[n] != block.y[n];
  }
  CHECK(mismatches == 0);
  // Short: the shortest round-trip text of a float is at most 9 significant digits.
  CHECK(csv_text(spec, 1).size() < static_cast<std::size_t>(spec.rows * (spec.features * 12 + 2)));

  // The truth file, in data/seed_true_beta.csv's layout, reads back to beta.
  const std::string truth = true_values_csv(spec, beta);
  CHECK(truth.rfind("name,true_value\nbeta.1,", 0) == 0);
  std::size_t pos = truth.find('\n') + 1;
  for (int j = 0; j < spec.features; ++j) {
    const std::string name = "beta." + std::to_string(j + 1) + ",";
    REQUIRE(truth.compare(pos, name.size(), name) == 0);
    pos += name.size();
    const std::size_t eol = truth.find('\n', pos);
    float f = 0;
    std::from_chars(truth.data() + pos, truth.data() + eol, f);
    CHECK(f == beta[j]);
    pos = eol + 1;
  }
  CHECK(pos == truth.size());
  CHECK(true_values_csv(SimulationSpec{1, 2, 0}, {0.5f, -1.25f}) ==
        "name,true_value\nbeta.1,0.5\nbeta.2,-1.25\n");
}

TEST_CASE("features and coefficients are standard normal") {
  const SimulationSpec spec{20000, 5, 21};
  const ParsedCsv p = parse_csv(csv_text(spec, 2), spec.features);
  double n = 0, sum = 0, sum2 = 0, cross = 0;
  for (const auto& row : p.x) {
    for (float v : row) {
      n += 1;
      sum += v;
      sum2 += double(v) * v;
    }
    cross += double(row[0]) * row[1];
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // n = 1e5: standard errors 0.0032 (mean) and 0.0045 (variance); 5 of them.
  CHECK(std::abs(mean) < 0.016);
  CHECK(std::abs(var - 1) < 0.023);
  // Columns are independent: E[x1 x2] = 0 with sd 1/sqrt(rows).
  CHECK(std::abs(cross / p.x.size()) < 5 / std::sqrt(double(p.x.size())));

  const std::vector<float> beta = simulated_coefficients(5, 4000);
  double bs = 0, bs2 = 0;
  for (float b : beta) bs += b, bs2 += double(b) * b;
  const double bmean = bs / beta.size(), bvar = bs2 / beta.size() - bmean * bmean;
  // n = 4000: standard errors 0.016 and 0.022.
  CHECK(std::abs(bmean) < 0.08);
  CHECK(std::abs(bvar - 1) < 0.11);
}

TEST_CASE("y is Bernoulli(sigmoid(x . beta)) given the true coefficients") {
  const SimulationSpec spec{40000, 4, 99};
  const std::vector<float> beta = simulated_coefficients(spec.seed, spec.features);
  const ParsedCsv p = parse_csv(csv_text(spec, 2), spec.features);
  // Overall, and within bins of p (which y ignoring x, or shifted by a row, would fail): the
  // number of ones against sum p, with variance sum p (1 - p).
  const int kBins = 5;
  std::vector<double> ones(kBins), expected(kBins), variance(kBins);
  for (std::size_t n = 0; n < p.x.size(); ++n) {
    double eta = 0;
    for (int j = 0; j < spec.features; ++j) eta += double(p.x[n][j]) * beta[j];
    const double prob = sigmoid(eta);
    const int bin = std::min(kBins - 1, static_cast<int>(prob * kBins));
    ones[bin] += p.y[n];
    expected[bin] += prob;
    variance[bin] += prob * (1 - prob);
  }
  double all_ones = 0, all_expected = 0, all_variance = 0;
  for (int b = 0; b < kBins; ++b) {
    CAPTURE(b);
    CHECK(std::abs(ones[b] - expected[b]) < 4 * std::sqrt(variance[b]));
    all_ones += ones[b], all_expected += expected[b], all_variance += variance[b];
  }
  const double rows = static_cast<double>(p.x.size());
  CHECK(std::abs(all_ones / rows - all_expected / rows) < 4 * std::sqrt(all_variance) / rows);
}

namespace {

// Every field of the CSV as a double, and the header.
struct Table {
  std::string header;
  std::vector<std::vector<double>> rows;
};

Table parse_table(const std::string& text) {
  Table t;
  std::size_t pos = text.find('\n');
  t.header = text.substr(0, pos);
  ++pos;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    std::vector<double> row;
    std::size_t start = pos;
    for (;;) {
      const std::size_t comma = text.find(',', start);
      const std::size_t stop = comma < eol ? comma : eol;
      double v = 0;
      REQUIRE(parse_number(std::string_view(text.data() + start, stop - start), v) == NumberStatus::ok);
      row.push_back(v);
      if (stop == eol) break;
      start = stop + 1;
    }
    t.rows.push_back(row);
    pos = eol + 1;
  }
  return t;
}

double probit(double eta) {
  return 0.5 * std::erfc(-eta / std::sqrt(2.0));
}

// E[y | eta] and Var[y | eta] of each family, written out from its definition (simulate.hpp).
std::pair<double, double> conditional_moments(const SimulationSpec& s, double eta) {
  const double th = s.parameter;
  const std::string& f = s.likelihood;
  if (f == "bernoulli_logit") return {sigmoid(eta), sigmoid(eta) * (1 - sigmoid(eta))};
  if (f == "bernoulli_probit") return {probit(eta), probit(eta) * (1 - probit(eta))};
  if (f == "binomial_logit") {
    const double n = static_cast<double>(s.trials), p = sigmoid(eta);
    return {n * p, n * p * (1 - p)};
  }
  const double mu = std::exp(eta);
  if (f == "poisson_log") return {mu, mu};
  if (f == "negative_binomial_log") return {mu, mu + mu * mu / th};
  if (f == "normal") return {eta, th * th};
  if (f == "student_t") return {eta, th * th * s.nu / (s.nu - 2)};
  if (f == "lognormal")
    return {std::exp(eta + th * th / 2), std::expm1(th * th) * std::exp(2 * eta + th * th)};
  if (f == "gamma_log") return {mu, mu * mu / th};
  if (f == "ordinal_logit" || f == "ordinal_probit") {
    // E[y] and Var[y] over the categories, P(y <= k) = F(c_k - eta), with c_k = F^-1(k / K)
    // checked against its definition in "the ordinal likelihoods' cutpoints" below.
    const std::vector<float> c = simulated_cutpoints(s);
    double e1 = 0, e2 = 0, below = 0;
    for (int k = 1; k <= s.levels; ++k) {
      const double z = k < s.levels ? static_cast<double>(c[static_cast<std::size_t>(k - 1)]) - eta : 1e300;
      const double cdf = k < s.levels ? (f == "ordinal_logit" ? sigmoid(z) : probit(z)) : 1.0;
      e1 += k * (cdf - below);
      e2 += double(k) * k * (cdf - below);
      below = cdf;
    }
    return {e1, e2 - e1 * e1};
  }
  const double m = sigmoid(eta);  // beta_logit
  return {m, m * (1 - m) / (1 + th)};
}

// categorical_logit's E[y] and Var[y] over the categories 1 ... K of one row (features row[0 ..
// D - 1], as written): softmax(0, eta_2, ..., eta_K) with eta_k = alpha + x . beta_k, beta
// feature-major (beta[j (K - 1) + k - 2]), written out here.
std::pair<double, double> categorical_moments(const SimulationSpec& s, const std::vector<float>& beta,
                                              const std::vector<double>& row) {
  const int C = s.levels - 1;
  std::vector<double> w(static_cast<std::size_t>(s.levels), 1.0);  // exp(eta_k), eta_1 = 0
  double total = 1.0;
  for (int c = 0; c < C; ++c) {
    double eta = s.intercept ? static_cast<double>(s.alpha) : 0.0;
    for (int j = 0; j < s.features; ++j)
      eta += static_cast<double>(static_cast<float>(row[static_cast<std::size_t>(j)])) *
             static_cast<double>(beta[static_cast<std::size_t>(j * C + c)]);
    w[static_cast<std::size_t>(c + 1)] = std::exp(eta);
    total += std::exp(eta);
  }
  double e1 = 0, e2 = 0;
  for (int k = 1; k <= s.levels; ++k) {
    const double p = w[static_cast<std::size_t>(k - 1)] / total;
    e1 += k * p;
    e2 += double(k) * k * p;
  }
  return {e1, e2 - e1 * e1};
}

SimulationSpec spec_for(const std::string& likelihood) {
  SimulationSpec s{20000, 3, 5};
  s.likelihood = likelihood;
  s.intercept = true;
  s.alpha = 0.25f;
  s.parameter = default_simulated_parameter(likelihood);
  s.trials = likelihood == "binomial_logit" ? 7 : 0;
  s.nu = likelihood == "student_t" ? 12.0f : 0.0f;  // an eighth moment, for the mean-square test's error
  s.levels = likelihood.rfind("ordinal", 0) == 0 ? 4 : likelihood == "categorical_logit" ? 3 : 0;
  return s;
}

}  // namespace

TEST_CASE("every likelihood: y given eta has its family's mean and variance, in its domain") {
  for (const std::string& lik : simulated_likelihoods()) {
    CAPTURE(lik);
    const SimulationSpec spec = spec_for(lik);
    const std::vector<float> beta = simulated_coefficients(spec.seed, simulated_coefficient_count(spec));
    const bool categories = lik.rfind("ordinal", 0) == 0 || lik == "categorical_logit";
    const std::string text = csv_text(spec, 3);
    CHECK(text == csv_text(spec, 1));
    const Table t = parse_table(text);
    const bool trials = lik == "binomial_logit";
    CHECK(t.header == std::string("x1,x2,x3,") + (trials ? "trials," : "") + "y");
    REQUIRE(t.rows.size() == static_cast<std::size_t>(spec.rows));
    // Standardized residuals z = (y - E[y | eta]) / sd(y | eta): mean 0 and mean square 1 if
    // the family and its parameterization are right (a rate for a scale, phi in the wrong
    // place, a missing intercept all fail), within 5 standard errors estimated from z itself.
    double sz = 0, sz2 = 0, sz4 = 0, n = 0;
    for (const auto& row : t.rows) {
      double eta = spec.alpha;
      for (int j = 0; j < spec.features; ++j)
        eta += static_cast<double>(static_cast<float>(row[j])) * beta[j];
      const double y = row.back();
      if (trials) CHECK(row[spec.features] == 7);
      if (simulated_response_is_integer(lik)) {
        CHECK(y == std::floor(y));
        CHECK(y >= 0);
        if (trials) CHECK(y <= 7);
        if (lik.rfind("bernoulli", 0) == 0) CHECK(y <= 1);
      }
      if (lik == "lognormal" || lik == "gamma_log") CHECK(y > 0);
      if (lik == "beta_logit") CHECK((y > 0 && y < 1));
      if (categories) CHECK((y >= 1 && y <= spec.levels));
      const auto [m, v] =
          lik == "categorical_logit" ? categorical_moments(spec, beta, row) : conditional_moments(spec, eta);
      // Where p (1 - p) is tiny, z^2 is too heavy-tailed for the mean-square test (one
      // success at p = 1e-6 adds 1e6): those rows are left out of it.
      if (((lik.rfind("bernoulli", 0) == 0 || categories) && v < 0.01) ||
          (trials && v < 0.01 * spec.trials))
        continue;
      const double z = (y - m) / std::sqrt(v);
      sz += z, sz2 += z * z, sz4 += z * z * z * z, n += 1;
    }
    const double mean2 = sz2 / n;
    CAPTURE(sz / n);
    CAPTURE(mean2);
    CHECK(std::abs(sz / n) < 5 / std::sqrt(n));
    CHECK(std::abs(mean2 - 1) < 5 * std::sqrt((sz4 / n - mean2 * mean2) / n));
  }
}

TEST_CASE("the ordinal likelihoods' cutpoints: F^-1(k / K), in the truth file") {
  SimulationSpec s{10, 1, 0};
  s.likelihood = "ordinal_logit";
  s.levels = 4;
  const std::vector<float> logit = simulated_cutpoints(s);
  REQUIRE(logit.size() == 3);
  for (int k = 1; k <= 3; ++k)  // log(p / (1 - p)) at p = k / 4
    CHECK(logit[static_cast<std::size_t>(k - 1)] == static_cast<float>(std::log(k / (4.0 - k))));
  s.likelihood = "ordinal_probit";
  const std::vector<float> probits = simulated_cutpoints(s);
  for (int k = 1; k <= 3; ++k) CHECK(probit(probits[static_cast<std::size_t>(k - 1)]) == doctest::Approx(k / 4.0).epsilon(1e-6));
  CHECK(probits[1] == 0.0f);
  const std::string truth = true_values_csv(s, {0.5f});
  CHECK(truth.rfind("name,true_value\nbeta.1,0.5\ncutpoints.1,-0.674489", 0) == 0);
  CHECK(truth.find("\ncutpoints.2,0\ncutpoints.3,0.674489") != std::string::npos);
  s.likelihood = "poisson_log";
  CHECK(simulated_cutpoints(s).empty());
}

TEST_CASE("the truth file lists alpha, beta and the likelihood's own parameter") {
  SimulationSpec s{10, 2, 0};
  s.likelihood = "gamma_log";
  s.parameter = 2.5f;
  s.intercept = true;
  s.alpha = -0.5f;
  CHECK(true_values_csv(s, {0.5f, -1.25f}) ==
        "name,true_value\nalpha,-0.5\nbeta.1,0.5\nbeta.2,-1.25\nshape,2.5\n");
  s.likelihood = "normal";
  s.intercept = false;
  CHECK(true_values_csv(s, {0.5f}) == "name,true_value\nbeta.1,0.5\nsigma,2.5\n");
  s.likelihood = "poisson_log";
  CHECK(true_values_csv(s, {0.5f}) == "name,true_value\nbeta.1,0.5\n");
  CHECK(simulated_parameter_name("negative_binomial_log") == "phi");
  CHECK(simulated_parameter_name("beta_logit") == "phi");
  CHECK(simulated_parameter_name("lognormal") == "sigma");
  s.likelihood = "student_t";
  s.nu = 3.5f;
  CHECK(true_values_csv(s, {0.5f}) == "name,true_value\nbeta.1,0.5\nsigma,2.5\nnu,3.5\n");
  CHECK_THROWS_AS(simulated_parameter_name("cauchy"), std::invalid_argument);
  // categorical_logit: every category's intercept, then the coefficients feature-major.
  s.likelihood = "categorical_logit";
  s.levels = 3;
  s.intercept = true;
  CHECK(simulated_coefficient_count(s) == 4);
  CHECK(true_values_csv(s, {0.5f, -1.25f, 1.0f, 2.0f}) ==
        "name,true_value\nalpha.2,-0.5\nalpha.3,-0.5\nbeta.2.1,0.5\nbeta.3.1,-1.25\nbeta.2.2,1\nbeta.3.2,2\n");
}

TEST_CASE("a smaller dataset is a prefix of a larger one, for every likelihood") {
  for (const std::string& lik : simulated_likelihoods()) {
    CAPTURE(lik);
    SimulationSpec small = spec_for(lik), large = spec_for(lik);
    small.rows = 200;
    large.rows = 700;
    const std::string a = csv_text(small, 2), b = csv_text(large, 2);
    CHECK(b.compare(0, a.size(), a) == 0);
  }
}

TEST_CASE("the logistic data are drawn as before --likelihood existed") {
  // The recipe before the other likelihoods, written out: the row's uniform from one (rows x 1)
  // request of step 2, y = 1 when it is below sigmoid(x . beta).
  const SimulationSpec spec{700, 5, 31};
  const std::vector<float> beta = simulated_coefficients(spec.seed, spec.features);
  SimulatedBlock block;
  simulate_block(spec, beta, 100, 600, block);
  Eigen::MatrixXd u(600, 1);
  bvi::rng::standard_uniform(spec.seed, bvi::rng::Purpose::simulation, 2, 0, 100, u);
  int mismatches = 0;
  for (Eigen::Index n = 0; n < 600; ++n) {
    double eta = 0.0;
    for (int j = 0; j < spec.features; ++j)
      eta += static_cast<double>(block.x(n, j)) * static_cast<double>(beta[j]);
    mismatches +=
        block.y[static_cast<std::size_t>(n)] != (u(n, 0) < 1.0 / (1.0 + std::exp(-eta)) ? 1.0 : 0.0);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("a failing sink stops the writing and its error comes out") {
  const SimulationSpec spec{20000, 10, 1};
  int calls = 0;
  auto failing = [&](std::string_view) {
    if (++calls == 3) throw std::runtime_error("disk full");
  };
  CHECK_THROWS_WITH_AS(write_simulated_csv(spec, 2, failing), "disk full", std::runtime_error);
  CHECK(calls == 3);
}

TEST_CASE("rows outside the dataset are a programming error") {
  SimulatedBlock block;
  const std::vector<float> beta = simulated_coefficients(1, 2);
  CHECK_THROWS_AS(simulate_block({10, 2, 1}, beta, 5, 6, block), std::invalid_argument);
  CHECK_THROWS_AS(simulate_block({10, 3, 1}, beta, 0, 1, block), std::invalid_argument);
  CHECK_THROWS_AS(write_simulated_csv({0, 2, 1}, 1, [](std::string_view) {}), std::invalid_argument);
}

}  // namespace test_simulate
