#!/usr/bin/env bash
# Issue 7's experiment for SaPus: regenerates the results section of docs/protocols/sapus.md
# (between its `experiment-sapus` markers). On the simulator, so the numbers are the same on any
# machine; Fashion-MNIST must be in data/ (`hetps data fetch fashion-mnist`).
#   scripts/experiment-sapus.sh [OUT_DIR]     (default: runs/experiment-sapus)
#   HETPS=path/to/hetps scripts/experiment-sapus.sh    (default: build/hetps)
# asp, ssp, local_sgd and sapus with each scenario's frozen defaults, on hetero-compute and
# hetero-network, 8 and 16 workers, with and without random stragglers; seeds 1, 2, 3. A
# comparison whose summary.csv exists is not run again: delete OUT_DIR after changing hetps.
# From scratch: 96 runs, two comparisons at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/experiment-lib.sh
out_dir_or_usage runs/experiment-sapus "$@"
hetps=${HETPS:-build/hetps}
protocols=asp,ssp,local_sgd,sapus
# Every worker enters an episode 0.5 times a minute on average, lasting 10 s on average and
# slowing it 2-5x (the Sync-Switch experiment's stragglers).
stragglers=(--set cluster.random_stragglers.rate_per_min=0.5
  --set cluster.random_stragglers.mean_duration=10
  --set cluster.random_stragglers.slowdown_min=2 --set cluster.random_stragglers.slowdown_max=5)

start=$(date +%s)
for scenario in hetero-compute hetero-network; do
  for workers in 8 16; do
    setting=(--seeds 3 --set seed=1 --set cluster.scenario="$scenario"
      --set cluster.workers="$workers")
    compare_once "$scenario-${workers}w" "$protocols" "${setting[@]}" &
    plain=$!
    compare_once "$scenario-${workers}w-stragglers" "$protocols" "${setting[@]}" \
      "${stragglers[@]}" &
    straggling=$!
    wait_all "$plain" "$straggling" || exit $?
  done
done

python3 scripts/sapus_report.py "$out" docs/protocols/sapus.md
echo "results written into docs/protocols/sapus.md; wall time $(($(date +%s) - start)) s"
