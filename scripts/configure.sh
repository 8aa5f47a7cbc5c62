#!/usr/bin/env bash
# Configures the Release tree build/ that scripts/setup.sh and scripts/test.sh share. Ninja when it
# is there: one build graph, so the CLI's files compile beside the library's where make builds one
# target at a time (README, "Build time"). A tree configured before keeps its generator.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
[[ -f build/CMakeCache.txt ]] || ! command -v ninja > /dev/null || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
