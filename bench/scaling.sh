#!/usr/bin/env bash
# Thread and rank scaling of one gradient step: 10^6 rows x 100 features, 64 draws,
# 1 vs 2 threads and 1 vs 2 MPI ranks, median of REPEATS runs of STEPS steps each.
#
#   bench/scaling.sh [BUILD_DIR] [ROWS] [FEATURES] [DRAWS]
#
# Prints a Markdown table: seconds per step, speed-up and parallel efficiency against one thread
# on one rank, and the share of a step spent on the fixed-order (bit-reproducible) combination.
set -euo pipefail
build=${1:-build}
rows=${2:-1000000}
features=${3:-100}
draws=${4:-64}
steps=${STEPS:-7}
repeats=${REPEATS:-3}
bin="$build/bench/step_scaling"
cmake --build "$build" --target step_scaling >/dev/null  # not in the default build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe --bind-to none)

measure() {  # ranks threads -> median sec_per_step and combine share over the repeats
  local ranks=$1 threads=$2 out
  for ((r = 0; r < repeats; ++r)); do
    if [[ $ranks -eq 1 ]]; then
      out=$("$bin" "$rows" "$features" "$draws" "$steps" "$threads")
    else
      out=$("${mpirun[@]}" -n "$ranks" "$bin" "$rows" "$features" "$draws" "$steps" "$threads")
    fi
    echo "$out"
  done | python3 -c '
import json, sys
runs = [json.loads(l) for l in sys.stdin if l.strip()]
t = sorted(r["sec_per_step"] for r in runs); c = sorted(r["combine_share"] for r in runs)
checks = {r["check"] for r in runs}
print(t[len(t) // 2], c[len(c) // 2], len(checks), runs[0]["check"])'
}

echo "one gradient step, $rows rows x $features features, $draws draws ($repeats runs x $steps steps, median)"
echo
echo "| ranks x threads | s / step | speed-up | efficiency | combine share | result |"
echo "|---|---|---|---|---|---|"
read -r base base_share _ base_check < <(measure 1 1)
for cfg in "1 1" "1 2" "2 1"; do
  read -r ranks threads <<<"$cfg"
  read -r t share distinct check < <(measure "$ranks" "$threads")
  same=$([[ "$check" == "$base_check" && "$distinct" == 1 ]] && echo "same bits" || echo "DIFFERENT")
  python3 -c "
t, base, n = $t, $base, $ranks * $threads
print('| %d x %d | %.3f | %.2f | %.2f | %.2f %% | %s |' % ($ranks, $threads, t, base / t, base / t / n, 100 * $share, '$same'))"
done
