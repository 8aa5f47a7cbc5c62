#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages bayes-vi builds against. With --test, also what the test
# suite uses beyond the build: SciPy (reference computations), R's rstan (reading draws.csv the
# way R users do) and util-linux's prlimit (memory and file-size limits). With --fuzz, clang with
# libFuzzer and its OpenMP runtime, for scripts/fuzz.sh and ctest's fuzz_smoke_* entries. Needs root, or sudo.
set -euo pipefail

packages=(cmake g++ make ninja-build pkg-config
          libeigen3-dev libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev
          libopenmpi-dev openmpi-bin librandom123-dev
          python3 python3-numpy python3-matplotlib)
for option in "$@"; do
  case "$option" in
    --test) packages+=(python3-scipy r-base-core r-cran-rstan util-linux) ;;
    --fuzz) packages+=(clang-14 libclang-rt-14-dev libfuzzer-14-dev libomp-14-dev) ;;
    *) echo "usage: scripts/install-deps.sh [--test] [--fuzz]" >&2; exit 64 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: everything is installed"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
