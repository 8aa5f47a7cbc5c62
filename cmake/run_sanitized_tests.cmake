# The unit tests under AddressSanitizer + UBSan in ${BIN}, in two steps for ctest
# (tests/CMakeLists.txt): STEP=build configures and builds the tree (the ctest fixture
# sanitized_build), with FUZZ=ON (CXX is clang) also the fuzz targets TARGETS of fuzz/ (BVI_FUZZ),
# which the fuzz_smoke_* entries run; STEP=run runs the unit tests with doctest's arguments ARGS
# (the entries unit_tests_sanitized_exact and _rest each run a share of the test files, side by side).
if(STEP STREQUAL "run")
  # detect_leaks: also LeakSanitizer; halt_on_error: the first report fails the test.
  set(ENV{ASAN_OPTIONS} "detect_leaks=1:halt_on_error=1:abort_on_error=0")
  # libomp keeps thread structures of its "hot teams" for reuse where LeakSanitizer finds no pointer
  # to them at exit, and reports them as leaks (test_simulate's 2, 3 and 8 threads). Without hot
  # teams libomp's own allocations are not reported, so every leak reported is ours.
  set(ENV{KMP_HOT_TEAMS_MAX_LEVEL} 0)
  set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
  execute_process(COMMAND ${BIN}/tests/unit_tests --no-version ${ARGS} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "unit tests failed under AddressSanitizer + UBSan")
  endif()
  return()
endif()
set(flags "-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all")
if(NOT FUZZ)
  set(FUZZ OFF)
endif()
# A tree configured with another compiler or generator is configured afresh. The generator is the
# parent tree's (GENERATOR): with Ninja, the tests' and fuzz targets' files compile beside the library's.
if(EXISTS ${BIN}/CMakeCache.txt)
  file(STRINGS ${BIN}/CMakeCache.txt cached REGEX "^CMAKE_CXX_COMPILER:")
  file(STRINGS ${BIN}/CMakeCache.txt cached_generator REGEX "^CMAKE_GENERATOR:")
  if((NOT cached STREQUAL "CMAKE_CXX_COMPILER:FILEPATH=${CXX}" AND NOT cached STREQUAL "CMAKE_CXX_COMPILER:STRING=${CXX}")
     OR (GENERATOR AND NOT cached_generator STREQUAL "CMAKE_GENERATOR:INTERNAL=${GENERATOR}"))
    file(REMOVE_RECURSE ${BIN}/CMakeCache.txt ${BIN}/CMakeFiles ${BIN}/build.ninja ${BIN}/Makefile)
  endif()
endif()
set(generator_option "")
if(GENERATOR)
  set(generator_option "-G${GENERATOR}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} ${generator_option} -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_COMPILER=${CXX}
          "-DCMAKE_CXX_FLAGS_SANITIZE=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
          -DBVI_IS_SANITIZER_BUILD=ON -DBVI_SANITIZERS=OFF -DBVI_NATIVE=OFF -DBVI_FUZZ=${FUZZ}
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the sanitizer build failed")
endif()
include(ProcessorCount)
ProcessorCount(jobs)
set(targets unit_tests)
if(FUZZ)
  string(REPLACE "," ";" fuzz_targets "${TARGETS}")  # comma-separated: one command-line word
  list(APPEND targets ${fuzz_targets})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} --target ${targets} -j ${jobs} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the sanitizer build failed")
endif()
