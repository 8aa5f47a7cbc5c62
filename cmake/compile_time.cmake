# What a build spends its time on, and the two levers kept because they measurably help (README,
# "Building by hand", has the figures).
#
# Precompiled headers: nearly every translation unit parses Eigen (2 s of g++ time each), the larger
# ones nlohmann/json (2 s) and the CLI's CLI11 (8 s); each target parses them once into a precompiled
# header instead. The list holds only third-party and standard headers, so touching a project header
# never rebuilds it. -DBVI_PCH=OFF builds without (e.g. to check that every file includes what it uses).
#
# Unity builds: the sources of a target are compiled a batch at a time, so the Eigen kernels a batch
# instantiates are compiled once, not once per file. -DBVI_UNITY=OFF compiles file by file.
option(BVI_PCH "Precompile the third-party headers every translation unit parses" ON)
option(BVI_UNITY "Compile each target's sources in batches (unity build)" ON)
set(BVI_UNITY_BATCH 8 CACHE STRING "Sources per unity batch")

# common/eigen_kernels.hpp is the one project header here: it declares Eigen's GEMM, GEMV and
# triangular kernels as compiled once in the library (common/eigen_kernels.cpp), so the files that
# multiply matrices stop compiling them for themselves. It changes only when the project starts
# using another kernel specialization. Without precompiled headers each file compiles its kernels.
set(BVI_PCH_HEADERS <Eigen/Core> <Eigen/Cholesky> <nlohmann/json.hpp> <algorithm> <cmath> <limits>
                    <memory> <optional> <stdexcept> <string> <vector>
                    ${PROJECT_SOURCE_DIR}/common/eigen_kernels.hpp)

# bvi_compile_fast(TARGET [EXTRA_HEADER ...]): TARGET's sources see BVI_PCH_HEADERS and the extra
# ones (the CLI's CLI11, the tests' doctest) precompiled, and are compiled in unity batches.
function(bvi_compile_fast target)
  if(BVI_PCH)
    target_precompile_headers(${target} PRIVATE ${BVI_PCH_HEADERS} ${ARGN})
  endif()
  if(BVI_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${BVI_UNITY_BATCH})
    # GCC warns when a type of a .cpp file's anonymous namespace is used by a template instantiated
    # in a file the batch includes: meant for headers, and every source is "included" in a batch.
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
  endif()
endfunction()
