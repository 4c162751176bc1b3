#!/usr/bin/env bash
# Issue 4's experiment for Sync-Switch: regenerates the results section of
# docs/protocols/sync-switch.md (between its `experiment-sync-switch` markers). On the
# simulator, so the numbers are the same on any machine; Fashion-MNIST must be in data/
# (`hetps data fetch fashion-mnist`).
#   scripts/experiment-sync-switch.sh [OUT_DIR]     (default: runs/experiment-sync-switch)
#   HETPS=path/to/hetps scripts/experiment-sync-switch.sh    (default: build/hetps)
# Steps already done are reused: tune's runs are cached by config hash, and a comparison whose
# summary.csv exists is not run again. Delete OUT_DIR after changing hetps (the cache does not
# cover the code). From scratch: 129 runs, about 45 minutes on two cores; a rerun, a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/experiment-lib.sh
out_dir_or_usage runs/experiment-sync-switch "$@"
hetps=${HETPS:-build/hetps}
scenario=(--set cluster.scenario=hetero-compute)
# Issue 4 judges x on seeds other than the searched one: search on 101, judge on 1, 2, 3.
search_seed=101
judged=(--seeds 3 --set seed=1)
# The straggler variant: every worker enters an episode 0.5 times a minute on average, lasting
# 10 s on average and slowing it 2-5x, so BSP rounds wait on some straggler for a good part of
# a ~90 s run. Up to 5x so that an episode on a fast worker (speed 1, 4x the slowest) is
# sometimes hidden behind the slowest worker and sometimes not: Elastic tells the two apart,
# Greedy does not.
stragglers=(--set cluster.random_stragglers.rate_per_min=0.5
  --set cluster.random_stragglers.mean_duration=10
  --set cluster.random_stragglers.slowdown_min=2 --set cluster.random_stragglers.slowdown_max=5)
momentum_rules=(ramped scaled zero multistep keep)

tune() {  # NAME WORKERS [--set KEY=VALUE]...
  local name=$1 workers=$2
  shift 2
  echo "== tune sync-switch: $name (seed $search_seed)"
  nice -n 19 stdbuf -oL "$hetps" tune sync-switch "${scenario[@]}" \
    --set cluster.workers="$workers" --set seed="$search_seed" "$@" --runs "$out/$name" |
    progress_lines
}

compare() {  # NAME PROTOCOLS [--set KEY=VALUE]...
  local name=$1 protocols=$2
  shift 2
  compare_once "$name" "$protocols" "${judged[@]}" "${scenario[@]}" "$@"
}

# One sync_switch entry per momentum rule: PREFIX:momentum_rule=RULE, comma-separated.
momentum_entries() {  # PREFIX
  local IFS=,
  local entries=("${momentum_rules[@]/#/$1:momentum_rule=}")
  echo "${entries[*]}"
}

chosen_x() {  # POLICY_FILE
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["chosen"])' "$1"
}

# A momentum-rule table at the x a policy file chose; none when that x is 1 (no switch: every
# rule trains as BSP) or 0.5 (the x = 0.5 table already shows it).
compare_momentum_rules_at_policy() {  # NAME POLICY_FILE [--set KEY=VALUE]...
  local name=$1 policy=$2
  shift 2
  local x
  x=$(chosen_x "$policy")
  if [[ $x == 1.0 || $x == 0.5 ]]; then
    echo "== $name: skipped, the searched x is $x"
    return
  fi
  compare "$name" "$(momentum_entries sync_switch)" --set protocol.policy_file="$policy" "$@"
}

start=$(date +%s)
for workers in 8 16; do
  tune "tune-ramped-${workers}w" "$workers"
done

for workers in 8 16; do
  compare "hetero-compute-${workers}w" bsp,asp,ssp,sync_switch --set cluster.workers="$workers" \
    --set protocol.policy_file="$out/tune-ramped-${workers}w/policy.json"
done

# x as searched on the scenario without stragglers: episodes are transient, so no offline
# search sees them; the online policies are what react to them.
compare stragglers-8w \
  bsp,asp,ssp,sync_switch,sync_switch:online=greedy,sync_switch:online=elastic \
  --set cluster.workers=8 --set protocol.policy_file="$out/tune-ramped-8w/policy.json" \
  "${stragglers[@]}"

# The momentum rules at the switch: at x = 0.5 and at the x searched under `scaled`.
for workers in 8 16; do
  tune "tune-scaled-${workers}w" "$workers" --set protocol.momentum_rule=scaled
done
# The online policies again, every ASP phase with `scaled` (the rule that keeps BSP's accuracy
# where `ramped` loses it) and x as searched under it.
compare stragglers-scaled-8w \
  bsp,sync_switch:momentum_rule=scaled,sync_switch:online=greedy:momentum_rule=scaled,sync_switch:online=elastic:momentum_rule=scaled \
  --set cluster.workers=8 --set protocol.policy_file="$out/tune-scaled-8w/policy.json" \
  "${stragglers[@]}"
for workers in 8 16; do
  compare "momentum-${workers}w-x0.5" "$(momentum_entries sync_switch:bsp_fraction=0.5)" \
    --set cluster.workers="$workers"
  compare_momentum_rules_at_policy "momentum-${workers}w-searched" \
    "$out/tune-scaled-${workers}w/policy.json" --set cluster.workers="$workers"
done

# Acceptance 3: each 16-worker policy file, used by train, reproduces the run it chose.
for rule in ramped scaled; do
  policy="$out/tune-$rule-16w/policy.json"
  if [[ -f $out/reproduce-$rule-16w/summary.json ]]; then continue; fi
  echo "== train with $policy (seed $search_seed): its chosen run again?"
  nice -n 19 "$hetps" train --force --quiet "${scenario[@]}" --set cluster.workers=16 \
    --set seed="$search_seed" --set protocol.name=sync_switch \
    --set protocol.momentum_rule="$rule" --set protocol.policy_file="$policy" \
    --out "$out/reproduce-$rule-16w"
done

python3 scripts/sync_switch_report.py "$out" docs/protocols/sync-switch.md
echo "results written into docs/protocols/sync-switch.md; wall time $(($(date +%s) - start)) s"
