#include "inference/rng/normal_stream.hpp"

#include <Random123/philox.h>

#include <cmath>

#include "inference/rng/open_unit.hpp"

namespace bvi::rng {

void standard_normal(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                     std::uint64_t first_draw, Eigen::Ref<Eigen::MatrixXd> out) {
  using Philox = r123::Philox4x64;
  const Philox gen;
  const Philox::key_type key = {{seed, static_cast<std::uint64_t>(purpose)}};
  const Eigen::Index S = out.rows(), P = out.cols();
  // One Philox block gives four 64-bit words = two Box-Muller pairs = four normals, for four
  // consecutive coordinates of one draw.
  for (Eigen::Index s = 0; s < S; ++s) {
    const std::uint64_t draw = first_draw + static_cast<std::uint64_t>(s);
    for (Eigen::Index j0 = 0; j0 < P; j0 += 4) {
      const Philox::ctr_type ctr = {{draw, static_cast<std::uint64_t>(j0 / 4), step, attempt}};
      const Philox::ctr_type r = gen(ctr, key);
      double z[4];
      for (int pair = 0; pair < 2; ++pair) {
        // Box-Muller: sqrt(-2 log u1) (cos 2 pi u2, sin 2 pi u2)
        const double radius = std::sqrt(-2.0 * std::log(open_unit(r.v[2 * pair])));
        const double angle = 2.0 * M_PI * open_unit(r.v[2 * pair + 1]);
        z[2 * pair] = radius * std::cos(angle);
        z[2 * pair + 1] = radius * std::sin(angle);
      }
      const Eigen::Index n = std::min<Eigen::Index>(4, P - j0);
      for (Eigen::Index k = 0; k < n; ++k) out(s, j0 + k) = z[k];
    }
  }
}

void standard_normal(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                     Eigen::Ref<Eigen::MatrixXd> out) {
  standard_normal(seed, purpose, step, attempt, 0, out);
}

}  // namespace bvi::rng
