// eval's --params file on arbitrary bytes, for a model with a scalar, a vector and a positive
// parameter (alpha, beta.1 ... beta.3, sigma): the columns are found by name in the header.
#include <cmath>
#include <cstdint>

#include "fuzz_support.hpp"
#include "models/params_file.hpp"

namespace {

bvi::models::ParameterLayout layout() {
  bvi::models::ParameterLayout l;
  l.add({"alpha", 0, 1, false, {}, {}, {}});
  l.add({"beta", 0, 3, true, {"x1", "x2", "x3"}, {}, {}});
  l.add({"sigma", 0, 1, false, {}, bvi::models::Support::positive, {}});
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bvi::models::ParameterLayout kLayout = layout();
  const bvi::fuzz::MemoryFile file(data, size);
  bvi::fuzz::only_user_errors([&] {
    const bvi::models::ParamsFile p = bvi::models::read_params_file(file.path(), kLayout);
    if (p.values.cols() != kLayout.dim() || p.values.rows() < 1) {
      std::fprintf(stderr, "a params file read with the wrong shape\n");
      std::abort();
    }
    for (Eigen::Index i = 0; i < p.values.size(); ++i)
      if (!std::isfinite(p.values.data()[i])) {
        std::fprintf(stderr, "a non-finite parameter value was accepted\n");
        std::abort();
      }
  });
  return 0;
}
