#pragma once
// A synthetic regression dataset, by default the seed notebook's logistic recipe:
//   beta_j ~ N(0, 1),  x_nj ~ N(0, 1),  eta_n = alpha + x_n . beta,  y_n ~ Bernoulli(sigmoid(eta_n)),
// with beta, x (and alpha and the likelihood's parameter) rounded to float32 (so the text
// written, and a float32 load, hold exactly the values y was drawn from) and eta summed in
// double, j = 1..D in order. Other likelihoods draw y from their own family at eta with the
// exact samplers of random_variates.hpp:
//   bernoulli_probit  y ~ Bernoulli(Phi(eta))
//   binomial_logit    y ~ Binomial(trials, sigmoid(eta))          (a `trials` column)
//   poisson_log       y ~ Poisson(exp(eta))
//   negative_binomial_log  y ~ NB2(mean exp(eta), phi)           Var = mu + mu^2 / phi
//   normal            y ~ N(eta, sigma)
//   lognormal         log y ~ N(eta, sigma)
//   gamma_log         y ~ Gamma(shape, rate shape / exp(eta))     mean exp(eta)
//   beta_logit        y ~ Beta(mu phi, (1 - mu) phi), mu = sigmoid(eta)
//   student_t         y ~ eta + sigma T_nu                          (Student t, nu degrees of freedom)
//   ordinal_logit     y in 1 ... K, P(y <= k) = sigmoid(c_k - eta)   (no intercept; K - 1 cutpoints)
//   ordinal_probit    y in 1 ... K, P(y <= k) = Phi(c_k - eta)
//   categorical_logit y in 1 ... K, P(y = k) = softmax_k(0, eta_2, ..., eta_K) (category 1 the
//                     reference), eta_k = alpha + x . beta_k: (K - 1) D coefficients, feature-major
//                     (beta[j (K - 1) + k - 2] is beta.k.j), every category's intercept `alpha`
//
// Every number is a pure function of (seed, row, column) through the Philox stream of
// rng::Purpose::simulation, so any block of rows can be made by any thread, and a smaller
// dataset is a prefix of a larger one: the first N rows do not depend on the row count, and the
// first D coefficients and feature columns do not depend on the feature count.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "models/data/row_matrix.hpp"

namespace bvi::data {

struct SimulationSpec {
  std::int64_t rows = 0;
  int features = 0;
  std::uint64_t seed = 0;
  std::string likelihood = "bernoulli_logit";
  bool intercept = false;
  float alpha = 0;          // the true intercept, when `intercept`
  float parameter = 0;      // the likelihood's own parameter (sigma, phi or shape), when it has one
  float nu = 0;             // student_t's degrees of freedom (its second parameter)
  std::int64_t trials = 0;  // binomial_logit's trials per row
  int levels = 0;           // the ordinal likelihoods' and categorical_logit's K (simulated_cutpoints
                            // gives the ordinal ones' cutpoints)
};

// The ordinal likelihoods' true cutpoints for K levels: c_k = F^-1(k / K), k = 1 ... K - 1, the
// quantiles that make the K categories equally likely at eta = 0 (F = sigmoid or Phi), rounded
// to float32. Empty for the other likelihoods.
std::vector<float> simulated_cutpoints(const SimulationSpec& spec);

// The likelihoods simulate can draw from, in the order `--likelihood` lists them.
const std::vector<std::string>& simulated_likelihoods();

// The name of the likelihood's own parameter as the model calls it (`sigma`, `phi`, `shape`),
// or "" when it has none; its default true value (1 for sigma, 2 for the negative binomial's phi,
// 10 for the beta's phi, 2 for the gamma's shape). Throw std::invalid_argument for an unknown
// likelihood.
std::string simulated_parameter_name(const std::string& likelihood);
float default_simulated_parameter(const std::string& likelihood);

// The true coefficients beta_1..beta_D (or any count of them: the first n of the stream).
std::vector<float> simulated_coefficients(std::uint64_t seed, int features);
// How many coefficients the spec's likelihood has: D, or (K - 1) D for categorical_logit.
int simulated_coefficient_count(const SimulationSpec& spec);

// Rows [first_row, first_row + x.rows()) of a dataset: the features and the responses (0 or 1,
// counts, or reals), with the scratch space that making them needs, reused from one block to
// the next.
struct SimulatedBlock {
  RowMatrix<float> x;
  std::vector<double> y;
  Eigen::MatrixXd normals;  // scratch
};

// Fills `block` with `rows` rows starting at `first_row` of the dataset with these coefficients
// (simulated_coefficients(spec.seed, simulated_coefficient_count(spec))). Throws std::invalid_argument when the rows
// fall outside [0, spec.rows), beta has the wrong size or the spec is invalid, and a usage error
// when a response cannot be represented (a count mean past 1e15, a lognormal past the doubles).
void simulate_block(const SimulationSpec& spec, const std::vector<float>& beta, std::int64_t first_row,
                    Eigen::Index rows, SimulatedBlock& block);

// Whether the likelihood's response is written as an integer (0/1 or a count).
bool simulated_response_is_integer(const std::string& likelihood);

}  // namespace bvi::data
