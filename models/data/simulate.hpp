#pragma once
// A synthetic logistic-regression dataset by the seed notebook's recipe:
//   beta_j ~ N(0, 1),  x_nj ~ N(0, 1),  y_n ~ Bernoulli(sigmoid(x_n . beta)),  no intercept,
// with beta and x rounded to float32 (so the text written, and a float32 load, hold exactly the
// values y was drawn from) and x_n . beta summed in double, j = 1..D in order.
//
// Every number is a pure function of (seed, row, column) through the Philox stream of
// rng::Purpose::simulation, so any block of rows can be made by any thread, and a smaller
// dataset is a prefix of a larger one: the first N rows do not depend on the row count, and the
// first D coefficients and feature columns do not depend on the feature count.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "models/data/row_matrix.hpp"

namespace bvi::data {

struct SimulationSpec {
  std::int64_t rows = 0;
  int features = 0;
  std::uint64_t seed = 0;
};

// The true coefficients beta_1..beta_D.
std::vector<float> simulated_coefficients(std::uint64_t seed, int features);

// Rows [first_row, first_row + x.rows()) of a dataset: the features and the responses (0 or 1),
// with the scratch space that making them needs, reused from one block to the next.
struct SimulatedBlock {
  RowMatrix<float> x;
  std::vector<std::uint8_t> y;
  Eigen::MatrixXd normals, uniforms;  // scratch
};

// Fills `block` with `rows` rows starting at `first_row` of the dataset with these coefficients
// (simulated_coefficients(spec.seed, spec.features)). Throws std::invalid_argument when the rows
// fall outside [0, spec.rows) or beta has the wrong size.
void simulate_block(const SimulationSpec& spec, const std::vector<float>& beta, std::int64_t first_row,
                    Eigen::Index rows, SimulatedBlock& block);

}  // namespace bvi::data
