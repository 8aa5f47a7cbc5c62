# Configures, builds and runs the unit tests under AddressSanitizer + UBSan in ${BIN}.
# Invoked by the ctest entry unit_tests_sanitized (tests/CMakeLists.txt). With FUZZ=ON (CXX is
# clang) the tree also has the fuzz targets (BVI_FUZZ), which the ctest entry fuzz_smoke runs.
set(flags "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all")
if(NOT FUZZ)
  set(FUZZ OFF)
endif()
# A tree configured with another compiler is configured afresh.
if(EXISTS ${BIN}/CMakeCache.txt)
  file(STRINGS ${BIN}/CMakeCache.txt cached REGEX "^CMAKE_CXX_COMPILER:")
  if(NOT cached STREQUAL "CMAKE_CXX_COMPILER:FILEPATH=${CXX}" AND NOT cached STREQUAL "CMAKE_CXX_COMPILER:STRING=${CXX}")
    file(REMOVE_RECURSE ${BIN}/CMakeCache.txt ${BIN}/CMakeFiles)
  endif()
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_COMPILER=${CXX}
          "-DCMAKE_CXX_FLAGS_SANITIZE=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
          -DBVI_IS_SANITIZER_BUILD=ON -DBVI_SANITIZERS=OFF -DBVI_NATIVE=OFF -DBVI_FUZZ=${FUZZ}
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the sanitizer build failed")
endif()
include(ProcessorCount)
ProcessorCount(jobs)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} --target unit_tests -j ${jobs} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the sanitizer build failed")
endif()
# detect_leaks: also LeakSanitizer; halt_on_error: the first report fails the test.
set(ENV{ASAN_OPTIONS} "detect_leaks=1:halt_on_error=1:abort_on_error=0")
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
execute_process(COMMAND ${BIN}/tests/unit_tests --no-version RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "unit tests failed under AddressSanitizer + UBSan")
endif()
