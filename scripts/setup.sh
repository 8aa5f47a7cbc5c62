#!/usr/bin/env bash
# One command from a fresh clone to a fitted model: installs what is missing, builds bayes-vi
# (Release), fits the bundled seed dataset and draws its figure into out/seed/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/configure.sh  # build/, Release (Ninja when installed)
cmake --build build -j"$(nproc)" --target bayes-vi  # the tool only; scripts/test.sh builds the rest in the same tree

mkdir -p out/seed
build/bayes-vi fit configs/seed_logistic.json --output out/seed > out/seed/stdout.json
python=/usr/bin/python3; [[ -x $python ]] || python=python3  # the system one has matplotlib
"$python" scripts/plot_posterior.py out/seed/summary.json \
  --truth data/seed_true_beta.csv --elbo out/seed/elbo.csv -o out/seed/posterior.png
echo "setup: fitted configs/seed_logistic.json -> out/seed/ (summary.json, draws.csv, elbo.csv, posterior.png)"
