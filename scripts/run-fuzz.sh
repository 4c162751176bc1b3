#!/usr/bin/env bash
# Runs each libFuzzer target of fuzz/ for SECONDS on a fresh copy of its committed seed corpus
# (fuzz/corpus/<target>/, never written to), two at a time, and prints per target how many
# inputs it ran and whether it found anything. A finding (a crash, a sanitizer report, an input
# that ran past 10 s or 2 GB) fails the script, and its input stays in the build directory with
# its path printed; replay it with `BUILD/fuzz/fuzz_<target> INPUT`.
#   scripts/run-fuzz.sh BUILD SECONDS TARGET...
set -euo pipefail
build=$1
seconds=$2
shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="$build/fuzz-runs"

run_one() {
  local target=$1 dir="$runs/$1"
  rm -rf "$dir"
  mkdir -p "$dir/findings"
  cp -r "$root/fuzz/corpus/$target" "$dir/corpus"
  local status=0
  UBSAN_OPTIONS=print_stacktrace=1 "$build/fuzz/fuzz_$target" "$dir/corpus" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$dir/findings/" >"$dir/log" 2>&1 || status=$?
  echo "$status" >"$dir/status"
}
export -f run_one
export build seconds root runs

printf '%s\n' "$@" | xargs -P 2 -I{} bash -c 'run_one {}'

found=0
for target in "$@"; do
  dir="$runs/$target"
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
  finding=$(find "$dir/findings" -type f | head -n 1)
  if [[ $(cat "$dir/status") == 0 && -z $finding ]]; then
    echo "fuzz_$target: $executions executions in $seconds s, nothing found"
  else
    found=1
    echo "fuzz_$target: FOUND SOMETHING (exit $(cat "$dir/status")) after ${executions:-?}" \
      "executions: ${finding:-no input saved}"
    echo "  log: $dir/log"
    grep -m 3 -E 'ERROR|runtime error|deadly signal' "$dir/log" | sed 's/^/  /' || true
  fi
done
exit $found
