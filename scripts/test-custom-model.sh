#!/usr/bin/env bash
# The custom-model example run as its README tells a user to: the Learner example's loss falls
# (it exits 1 otherwise), and `hetps_with_tinycnn` trains the registered model end to end, where
# plain `hetps` refuses the name.
#
#   scripts/test-custom-model.sh EXAMPLE HETPS_WITH_TINYCNN HETPS WORK_DIR
set -euo pipefail

example=$1
with_tinycnn=$2
hetps=$3
work=$4
rm -rf "$work"
mkdir -p "$work"

"$example"

settings=(--set model.name=tinycnn --set data.name=synthetic --set data.synthetic_train=1024
  --set data.synthetic_test=128 --set train.max_samples=4096 --set cluster.workers=2)
"$with_tinycnn" train --quiet --out "$work/run" "${settings[@]}"
grep -q '"final_accuracy"' "$work/run/summary.json"
grep -q '^name = "tinycnn"' "$work/run/config.toml"

if "$hetps" train --quiet --out "$work/plain" "${settings[@]}" >"$work/plain.txt" 2>&1; then
  echo "plain hetps trained a model it does not link: $(cat "$work/plain.txt")" >&2
  exit 1
fi
grep -q "model.name must be one of" "$work/plain.txt" || { cat "$work/plain.txt" >&2; exit 1; }
echo "custom model example: ok"
