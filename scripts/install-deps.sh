#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages bayes-vi builds against. With --test, also what the test
# suite uses beyond the build: SciPy (reference computations) and R's rstan (reading draws.csv
# the way R users do). Needs root, or sudo.
set -euo pipefail

packages=(cmake g++ make pkg-config
          libeigen3-dev libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev
          libopenmpi-dev openmpi-bin librandom123-dev
          python3 python3-numpy python3-matplotlib)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(python3-scipy r-base-core r-cran-rstan)
fi

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
