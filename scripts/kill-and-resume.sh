#!/usr/bin/env bash
# Issue 9's kill test: a training run killed with SIGKILL at a random moment, then resumed with
# `hetps train --resume`, must end with the same log.jsonl and timeline.csv, byte for byte, as
# the same run never interrupted (the simulator is deterministic), and the same summary except
# its wall-clock seconds.
#
#   scripts/kill-and-resume.sh HETPS_BINARY WORK_DIR [TRIALS] [--set KEY=VALUE ...]
#
# Each trial kills the run at a random moment after its first checkpoint and before its end
# (the delay is printed), resumes it, and compares. Exit 0 only when every trial resumed and
# matched. Extra --set arguments change the run (protocol, workers, failures, ...).
set -euo pipefail

hetps=$(realpath "$1")
work=$2
trials=${3:-10}
shift 3 || shift $#
rm -rf "$work"
mkdir -p "$work"

# About three seconds of wall time here: long enough to kill in the middle.
settings=(--set data.name=synthetic --set data.synthetic_train=2048 --set data.synthetic_test=256
  --set train.max_samples=60000 --set train.eval_interval=0.5 --set cluster.workers=4
  --set 'cluster.speeds=[1,1,0.5,0.25]' --set run.checkpoint_interval=0.25 "$@")

"$hetps" train --quiet --out "$work/reference" "${settings[@]}" > "$work/reference.out"
reference_wall=$(sed -n 's/.*"wall_seconds": *\([0-9.e+-]*\).*/\1/p' "$work/reference/summary.json")

without_wall() { grep -v '"wall_seconds"' "$1"; }

failures=0
retries=0
for ((trial = 1; trial <= trials; trial++)); do
  run="$work/trial-$trial"
  started=$(date +%s.%N)
  "$hetps" train --quiet --out "$run" "${settings[@]}" > "$run.out" 2>&1 &
  pid=$!
  while [[ ! -d $run/checkpoints ]] && kill -0 "$pid" 2> /dev/null; do sleep 0.01; done
  # A random moment between the first checkpoint and the reference run's end.
  delay=$(awk -v seed="$RANDOM" -v total="$reference_wall" -v started="$started" \
    -v now="$(date +%s.%N)" 'BEGIN { srand(seed); left = total - (now - started);
      if (left < 0) left = 0; printf "%.3f", rand() * left }')
  sleep "$delay"
  if ! kill -KILL "$pid" 2> /dev/null || [[ -f $run/summary.json ]]; then
    if ! wait "$pid"; then
      echo "trial $trial: the run failed before it could be killed:"
      cat "$run.out"
      exit 1
    fi
    retries=$((retries + 1))
    if ((retries > trials)); then
      echo "kill-and-resume: the runs keep finishing before the kill; make them longer"
      exit 1
    fi
    echo "trial $trial: the run finished before the kill (delay ${delay} s): not a resume; again"
    rm -rf "$run"
    trial=$((trial - 1))
    continue
  fi
  wait "$pid" 2> /dev/null || true
  checkpoints=$(ls "$run/checkpoints" | tr '\n' ' ')
  if ! "$hetps" train --quiet --resume "$run" >> "$run.out" 2>&1; then
    echo "trial $trial: FAILED to resume after a kill at +${delay} s (checkpoints: $checkpoints):"
    cat "$run.out"
    failures=$((failures + 1))
    continue
  fi
  different=()
  cmp -s "$work/reference/log.jsonl" "$run/log.jsonl" || different+=(log.jsonl)
  cmp -s "$work/reference/timeline.csv" "$run/timeline.csv" || different+=(timeline.csv)
  [[ $(without_wall "$work/reference/summary.json") == "$(without_wall "$run/summary.json")" ]] ||
    different+=(summary.json)
  if ((${#different[@]} > 0)); then
    echo "trial $trial: resumed, but ${different[*]} differ from the uninterrupted run's" \
      "(killed at +${delay} s after the first checkpoint; checkpoints: $checkpoints)"
    failures=$((failures + 1))
  else
    echo "trial $trial: killed at +${delay} s after the first checkpoint (checkpoints then:" \
      "$checkpoints); resumed; log.jsonl, timeline.csv and summary.json match"
  fi
done
if ((failures > 0)); then
  echo "kill-and-resume: $failures of $trials trials failed"
  exit 1
fi
echo "kill-and-resume: all $trials trials resumed and matched the uninterrupted run"
