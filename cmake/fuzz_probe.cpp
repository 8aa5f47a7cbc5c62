// Compiled by tests/CMakeLists.txt to learn whether clang can build the fuzz targets here:
// libFuzzer, the sanitizers and OpenMP all present.
#include <omp.h>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) {
  return omp_get_max_threads() > 0 ? 0 : 1;
}
