#!/usr/bin/env bash
# Issue 6's experiment for ASHL: regenerates the results section of docs/protocols/ashl.md
# (between its `experiment-ashl` markers). On the simulator, so the numbers are the same on any
# machine; Fashion-MNIST must be in data/ (`hetps data fetch fashion-mnist`).
#   scripts/experiment-ashl.sh [OUT_DIR]     (default: runs/experiment-ashl)
#   HETPS=path/to/hetps scripts/experiment-ashl.sh    (default: build/hetps)
# On hetero-network and hetero-compute, 8 and 16 workers, seeds 1, 2, 3, with each scenario's
# frozen defaults: ashl with and without compression first; then bsp, asp, ssp, local_sgd, and
# local_sgd with ASHL's mean local steps per commit (rounded; the issue's "same mean number of
# local steps"). A comparison whose summary.csv exists is not run again: delete OUT_DIR after
# changing hetps. From scratch: 84 runs, two settings at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/experiment-lib.sh
out_dir_or_usage runs/experiment-ashl "$@"
hetps=${HETPS:-build/hetps}

# ASHL's local steps per commit over a comparison's ashl runs (one apply per commit): samples
# over batch size and applied updates, averaged over the seeds and rounded.
mean_local_steps() {  # COMPARISON_DIR
  python3 - "$1" <<'PY'
import csv, sys, tomllib
from pathlib import Path
directory = Path(sys.argv[1])
steps = []
for row in csv.DictReader(open(directory / "summary.csv")):
    if row["run_name"] != "ashl":
        continue
    batch = tomllib.load(open(directory / row["directory"] / "config.toml", "rb"))["data"]["batch_size"]
    steps.append(int(row["samples"]) / batch / int(row["updates"]))
print(max(1, round(sum(steps) / len(steps))))
PY
}

run_setting() {  # SCENARIO WORKERS
  local name="$1-${2}w" steps protocols
  local setting=(--seeds 3 --set seed=1 --set cluster.scenario="$1" --set cluster.workers="$2")
  compare_once "$name-ashl" ashl,ashl:compression=off "${setting[@]}"
  steps=$(mean_local_steps "$out/$name-ashl")
  protocols=bsp,asp,ssp,local_sgd
  # local SGD's own H is 8: the same mean would repeat it.
  ((steps == 8)) || protocols+=",local_sgd:local_steps=$steps"
  compare_once "$name-baselines" "$protocols" "${setting[@]}"
}

start=$(date +%s)
for scenario in hetero-network hetero-compute; do
  run_setting "$scenario" 8 &
  eight=$!
  run_setting "$scenario" 16 &
  sixteen=$!
  wait_all "$eight" "$sixteen" || exit $?
done

python3 scripts/ashl_report.py "$out" docs/protocols/ashl.md
echo "results written into docs/protocols/ashl.md; wall time $(($(date +%s) - start)) s"
