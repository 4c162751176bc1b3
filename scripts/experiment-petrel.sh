#!/usr/bin/env bash
# Issue 5's experiment for Petrel: regenerates the results section of docs/protocols/petrel.md
# (between its `experiment-petrel` markers). On the simulator, so the numbers are the same on any
# machine; Fashion-MNIST must be in data/ (`hetps data fetch fashion-mnist`).
#   scripts/experiment-petrel.sh [OUT_DIR]     (default: runs/experiment-petrel)
#   HETPS=path/to/hetps scripts/experiment-petrel.sh    (default: build/hetps)
# bsp, asp, ssp and petrel with the heuristic and the learned agent, each scenario's frozen
# defaults, seeds 1, 2, 3, at 8 and 16 workers on hetero-compute and on three speed tiers whose
# slowest tier also has slow links. The learned agent is OUT_DIR/agent.pt, trained first by
# `hetps tune petrel` (the command docs/protocols/petrel.md documents) unless it exists. A
# comparison whose summary.csv exists is not run again: delete its directory after changing
# hetps (the baselines and petrel are apart, so that a change to petrel reruns only petrel's).
# From scratch: one training (about 5 minutes) and 60 runs, two settings at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/experiment-lib.sh
out_dir_or_usage runs/experiment-petrel "$@"
hetps=${HETPS:-build/hetps}
agent=$out/agent.pt
# hetero-compute's tiers (1, 0.5, 0.25), the slowest on hetero-network's slow links.
slow_links=(--set cluster.link_gbps=[10,10,10,10,10,10,0.5,0.5]
  --set cluster.link_latency_ms=[0.05,0.05,0.05,0.05,0.05,0.05,2.0,2.0])

start=$(date +%s)
mkdir -p "$out"
if [[ ! -f $agent ]]; then
  echo "== tune petrel: $agent"
  nice -n 19 "$hetps" tune petrel --episodes 500 --threads 2 --quiet --out "$agent"
fi
run_setting() {  # NAME [hetps compare options]...
  local name=$1
  shift
  compare_once "$name-baselines" bsp,asp,ssp "$@"
  compare_once "$name-petrel" "petrel,petrel:agent=learned:agent_file=$agent" "$@"
}

for workers in 8 16; do
  setting=(--seeds 3 --set seed=1 --set cluster.scenario=hetero-compute
    --set cluster.workers="$workers")
  run_setting "hetero-compute-${workers}w" "${setting[@]}" &
  compute=$!
  run_setting "tiers-slow-links-${workers}w" "${setting[@]}" "${slow_links[@]}" &
  tiers=$!
  wait_all "$compute" "$tiers" || exit $?
done

python3 scripts/petrel_report.py "$out" docs/protocols/petrel.md
echo "results written into docs/protocols/petrel.md; wall time $(($(date +%s) - start)) s"
