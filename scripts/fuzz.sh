#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan, in build-fuzz/) and runs each for
# SECONDS, seeded from fuzz/corpus/<target>/ (new inputs go to build-fuzz/corpus/<target>/, never
# into the repository). Prints executions, coverage (cov: edges, ft: features) and crashes per
# target; a crash leaves its input in build-fuzz/artifacts/<target>/ and makes the exit status 1.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#   scripts/fuzz.sh 15                                   # the CI smoke run
#   scripts/fuzz.sh 1800 csv                             # half an hour on the CSV reader
#
# Needs clang and libFuzzer: scripts/install-deps.sh --fuzz. Environment: BVI_FUZZ_CXX (the
# compiler, default clang++-14 or clang++), BVI_FUZZ_BUILD (the build folder), BVI_FUZZ_JOBS,
# BVI_FUZZ_CONFIGURED, BVI_FUZZ_BUILT (see below).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[[ $# -gt 0 ]] && shift
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]" >&2
  exit 64
fi
# The targets are the bvi_add_fuzzer lines of fuzz/CMakeLists.txt.
mapfile -t all < <(sed -n 's/^bvi_add_fuzzer(\([a-z_0-9]*\)).*/\1/p' fuzz/CMakeLists.txt)
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (targets: ${all[*]})" >&2; exit 64; }
done

cxx=${BVI_FUZZ_CXX:-}
if [[ -z "$cxx" ]]; then
  for c in clang++-14 clang++; do command -v "$c" >/dev/null && { cxx=$c; break; }; done
fi
build=${BVI_FUZZ_BUILD:-build-fuzz}
jobs=${BVI_FUZZ_JOBS:-$(nproc)}

# BVI_FUZZ_CONFIGURED=1: the folder is a tree configured with BVI_FUZZ already (ctest's sanitizer
# build, which fuzz_smoke_* reuse); only the targets are built.
if [[ "${BVI_FUZZ_CONFIGURED:-0}" != 1 ]]; then
  [[ -n "$cxx" ]] || { echo "fuzz: no clang++ (scripts/install-deps.sh --fuzz installs it)" >&2; exit 69; }
  cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DBVI_FUZZ=ON -DBVI_TESTS=OFF -DBVI_SANITIZERS=OFF \
        -DBVI_NATIVE=OFF -DCMAKE_BUILD_TYPE=Fuzz "-DCMAKE_CXX_FLAGS_FUZZ=-O1" >/dev/null
fi
# BVI_FUZZ_BUILT=1: the targets are built already (ctest's sanitizer build, whose fuzz_smoke_*
# entries run side by side and must not build the same tree at once).
if [[ "${BVI_FUZZ_BUILT:-0}" != 1 ]]; then
  cmake --build "$build" -j"$jobs" --target "${targets[@]/#/fuzz_}" >/dev/null
fi

# Errors end the run (abort_on_error makes libFuzzer keep the input); leaks count as crashes.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
printf '%-12s %8s %14s %8s %8s %8s\n' target seconds executions cov ft crashes
for t in "${targets[@]}"; do
  work="$build/corpus/$t" artifacts="$build/artifacts/$t" log="$build/logs/$t.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  dict=()
  [[ -f "fuzz/dict/$t.dict" ]] && dict=("-dict=fuzz/dict/$t.dict")
  set +e
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dict[@]}" "$work" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-12s %8s %14s %8s %8s %8s\n' "$t" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$crashes"
  if [[ $rc -ne 0 || $crashes -ne 0 ]]; then
    status=1
    echo "fuzz: $t failed (exit $rc); its log is $log, the inputs are in $artifacts/:" >&2
    grep -m 5 -E 'ERROR|not a bvi::Error|runtime error|differ|changed|abort' "$log" >&2 || tail -5 "$log" >&2
  fi
done
exit $status
