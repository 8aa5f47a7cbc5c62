#include "models/data/simulate.hpp"

#include <cmath>
#include <stdexcept>

#include "inference/rng/normal_stream.hpp"
#include "inference/rng/uniform_stream.hpp"

namespace bvi::data {

namespace {

// The steps of rng::Purpose::simulation: one stream per kind of number, so adding rows or
// features never shifts the others. Within a step the draw is the row (0 for beta) and the
// coordinate the column.
constexpr std::uint64_t kCoefficientStep = 0;
constexpr std::uint64_t kFeatureStep = 1;
constexpr std::uint64_t kResponseStep = 2;

}  // namespace

std::vector<float> simulated_coefficients(std::uint64_t seed, int features) {
  if (features < 1) throw std::invalid_argument("simulated_coefficients: features must be >= 1");
  Eigen::MatrixXd z(1, features);
  rng::standard_normal(seed, rng::Purpose::simulation, kCoefficientStep, 0, 0, z);
  std::vector<float> beta(static_cast<std::size_t>(features));
  for (int j = 0; j < features; ++j) beta[j] = static_cast<float>(z(0, j));
  return beta;
}

void simulate_block(const SimulationSpec& spec, const std::vector<float>& beta, std::int64_t first_row,
                    Eigen::Index rows, SimulatedBlock& block) {
  const Eigen::Index D = spec.features;
  if (D < 1 || static_cast<Eigen::Index>(beta.size()) != D)
    throw std::invalid_argument("simulate_block: beta must have one entry per feature");
  if (first_row < 0 || rows < 0 || rows > spec.rows - first_row)
    throw std::invalid_argument("simulate_block: rows outside the dataset");

  block.normals.resize(rows, D);
  block.uniforms.resize(rows, 1);
  const auto first = static_cast<std::uint64_t>(first_row);
  rng::standard_normal(spec.seed, rng::Purpose::simulation, kFeatureStep, 0, first, block.normals);
  rng::standard_uniform(spec.seed, rng::Purpose::simulation, kResponseStep, 0, first, block.uniforms);
  block.x = block.normals.cast<float>();
  block.y.resize(static_cast<std::size_t>(rows));
  for (Eigen::Index n = 0; n < rows; ++n) {
    // A plain loop, not Eigen's dot: its vectorized sum may split the terms differently with
    // the data's alignment, and y must not depend on where a block happens to sit in memory.
    const float* xn = block.x.row(n).data();
    double eta = 0.0;
    for (Eigen::Index j = 0; j < D; ++j) eta += static_cast<double>(xn[j]) * static_cast<double>(beta[j]);
    // P(y = 1) = P(u < sigmoid(eta)) = sigmoid(eta) for u uniform on (0, 1].
    const double p = 1.0 / (1.0 + std::exp(-eta));
    block.y[static_cast<std::size_t>(n)] = block.uniforms(n, 0) < p ? 1 : 0;
  }
}

}  // namespace bvi::data
