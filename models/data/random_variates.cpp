#include "models/data/random_variates.hpp"

#include <Eigen/Core>

#include "inference/rng/uniform_stream.hpp"

namespace bvi::data {

double RowUniforms::operator()() {
  const std::uint64_t k = next_++ % 4;
  if (k == 0) {
    Eigen::Map<Eigen::MatrixXd> quad(quad_, 1, 4);
    rng::standard_uniform(seed_, purpose_, step_, first_attempt_ + (next_ - 1) / 4, row_, quad);
  }
  return quad_[k];
}

}  // namespace bvi::data
