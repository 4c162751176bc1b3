#!/usr/bin/env bash
# The sweep that chose each scenario's frozen per-protocol defaults (docs/defaults.md).
# For every scenario, protocol family and (learning rate, momentum) of the grid, one run of
# the scenario's budget; it prints one table row per run, and the chosen defaults are the
# rows with the best final accuracy (ties: the earlier time to target).
#   scripts/sweep-defaults.sh [OUT_DIR] [SEEDS]     (default: runs/sweep, 1 seed)
#   FAMILIES="delta" scripts/sweep-defaults.sh ...  (default: all four families below)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/experiment-lib.sh
out_dir_or_usage runs/sweep "$@"
seeds=${2:-1}
hetps=${HETPS:-build/hetps}

# Averaging protocols take server (BSP) or local (local SGD) momentum; asynchronous ones apply
# every stale gradient on its own, so their grid explores smaller steps and less momentum.
averaging_protocols=bsp,local_sgd
averaging_grid="0.02:0.9 0.05:0.9 0.1:0.9 0.05:0.5 0.1:0.5"
asynchronous_protocols=asp,ssp
asynchronous_grid="0.005:0 0.01:0 0.02:0 0.05:0 0.01:0.5 0.02:0.5"
# Petrel averages inside a community and applies communities' rounds asynchronously: both grids.
community_protocols=petrel
community_grid="$averaging_grid $asynchronous_grid"
# SaPus and ASHL: each worker takes local steps with its own optimizer, as in local SGD, and the
# server merges their deltas as they arrive, stale ones too, as ASP applies gradients: both grids.
delta_protocols=sapus,ashl
delta_grid="$averaging_grid $asynchronous_grid"
families=${FAMILIES:-averaging asynchronous community delta}

run_grid() {  # scenario protocols grid
  local scenario=$1 protocols=$2 grid=$3
  for point in $grid; do
    local lr=${point%:*} momentum=${point#*:}
    local dir="$out/$scenario/lr-$lr-m-$momentum-$protocols"
    "$hetps" compare --quiet --force --protocols "$protocols" --seeds "$seeds" \
      --set cluster.scenario="$scenario" --set train.lr="$lr" --set train.momentum="$momentum" \
      --set train.eval_interval=4.0 --out "$dir" >/dev/null
    # summary.csv columns: run_name,protocol,seed,directory,final_accuracy,best_accuracy,
    # target_accuracy,time_to_target,...
    tail -n +2 "$dir/summary.csv" | awk -F, -v s="$scenario" -v lr="$lr" -v m="$momentum" \
      '{ printf "| %s | %s | %s | %s | %s | %.4f | %.4f | %s |\n", s, $2, $3, lr, m, $5, $6, ($8 == "" ? "—" : sprintf("%.1f", $8)) }'
  done
}

echo "| scenario | protocol | seed | lr | momentum | final accuracy | best accuracy | time to target (s) |"
echo "|---|---|---|---|---|---|---|---|"
for scenario in hetero-compute hetero-network; do
  for family in $families; do
    protocols=${family}_protocols grid=${family}_grid
    run_grid "$scenario" "${!protocols}" "${!grid}"
  done
done
