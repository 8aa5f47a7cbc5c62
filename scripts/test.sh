#!/usr/bin/env bash
# Installs what the tests need (if missing), builds bayes-vi and runs every test: doctest unit tests, the same under AddressSanitizer +
# UBSan, and the end-to-end tests of the binary (MPI runs included), through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --test  # what the build and the reference computations need, if missing

# Ninja when it is there: one build graph, so the CLI's files compile beside the library's where make
# builds one target at a time (README, "Build time"). A tree configured before keeps its generator.
generator=()
[[ -f build/CMakeCache.txt ]] || ! command -v ninja > /dev/null || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
