# Configures, builds and runs the unit tests under AddressSanitizer + UBSan in ${BIN}.
# Invoked by the ctest entry unit_tests_sanitized (tests/CMakeLists.txt).
set(flags "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_COMPILER=${CXX}
          "-DCMAKE_CXX_FLAGS_SANITIZE=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
          -DBVI_IS_SANITIZER_BUILD=ON -DBVI_SANITIZERS=OFF -DBVI_NATIVE=OFF
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
