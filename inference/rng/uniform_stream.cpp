#include "inference/rng/uniform_stream.hpp"

#include <Random123/philox.h>

#include <algorithm>

#include "inference/rng/open_unit.hpp"

namespace bvi::rng {

void standard_uniform(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                      std::uint64_t first_draw, Eigen::Ref<Eigen::MatrixXd> out) {
  using Philox = r123::Philox4x64;
  const Philox gen;
  const Philox::key_type key = {{seed, static_cast<std::uint64_t>(purpose)}};
  const Eigen::Index S = out.rows(), P = out.cols();
  // One Philox block gives four 64-bit words, one uniform each, for four consecutive
  // coordinates of one draw; the counter layout is normal_stream's, so a (purpose, step) pair
  // must be used for uniforms or for normals, never both.
  for (Eigen::Index s = 0; s < S; ++s) {
    const std::uint64_t draw = first_draw + static_cast<std::uint64_t>(s);
    for (Eigen::Index j0 = 0; j0 < P; j0 += 4) {
      const Philox::ctr_type ctr = {{draw, static_cast<std::uint64_t>(j0 / 4), step, attempt}};
      const Philox::ctr_type r = gen(ctr, key);
      const Eigen::Index n = std::min<Eigen::Index>(4, P - j0);
      for (Eigen::Index k = 0; k < n; ++k) out(s, j0 + k) = open_unit(r.v[k]);
    }
  }
}

}  // namespace bvi::rng
