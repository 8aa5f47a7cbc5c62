#!/usr/bin/env bash
# Installs what the tests need (if missing), builds bayes-vi and runs every test: doctest unit tests, the same under AddressSanitizer +
# UBSan, and the end-to-end tests of the binary (MPI runs included), through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --test  # what the build and the reference computations need, if missing

scripts/configure.sh  # build/, Release (Ninja when installed)
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
