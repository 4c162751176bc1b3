#!/usr/bin/env bash
# Issue 9's kill test: a training run killed with SIGKILL at a random moment, then resumed with
# `hetps train --resume`, must end with the same log.jsonl and timeline.csv, byte for byte, as
# the same run never interrupted (the simulator is deterministic), and the same summary except
# its wall-clock seconds. With `--set engine=threads` or `--set engine=mpi`, where real time
# does not repeat, the resumed run must instead continue the interrupted one: the same stop
# reason as the uninterrupted run, the same samples where the budget fixes them (bsp and asp;
# a delta protocol's workers race to it, so its runs end a varying number of local steps past
# it even uninterrupted), and a log whose evaluations never go back in time, samples or updates
# across the seam.
# On mpi every run is an `mpiexec` job of a rank per server shard and per worker; the kill hits
# one rank, chosen at random, which ends the whole job (OpenMPI has no fault tolerance), and
# the job is started again with --resume, as docs/mpi.md tells users to.
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

engine=sim
protocol=bsp
workers=4
servers=1
for setting in "${settings[@]}"; do
  case $setting in
    engine=*) engine=${setting#engine=} ;;
    protocol.name=*) protocol=${setting#protocol.name=} ;;
    cluster.workers=*) workers=${setting#cluster.workers=} ;;
    cluster.servers=*) servers=${setting#cluster.servers=} ;;
  esac
done
# What starts hetps: on mpi, an mpiexec job (a prefix, not a function, so that `$!` is the pid
# of what it starts and not of a subshell).
launcher=()
[[ $engine == mpi ]] && launcher=(mpiexec --oversubscribe --allow-run-as-root -np $((servers + workers)))
# The process of the run in $1 to kill: on mpi one of its ranks, at random (mpiexec's command
# line, which holds the same arguments, does not start with the binary); else $2.
victim() {
  if [[ $engine == mpi ]]; then
    pgrep -f -- "^$hetps train --quiet --out $1 " | shuf -n 1
  else
    echo "$2"
  fi
}

# The whole command's seconds, start-up included (on mpi, seconds of it before training).
reference_started=$(date +%s.%N)
"${launcher[@]}" "$hetps" train --quiet --out "$work/reference" "${settings[@]}" > "$work/reference.out"
reference_wall=$(awk -v started="$reference_started" -v now="$(date +%s.%N)" \
  'BEGIN { printf "%.3f", now - started }')

without_wall() { grep -v '"wall_seconds"' "$1"; }
summary_field() { sed -n "s/^ *\"$1\": *\([^,]*\),\{0,1\}$/\1/p" "$2"; }
# The first evaluation that goes back in time, samples or updates; nothing when none does.
evaluations_going_back() {
  grep '"type":"eval"' "$1" | sed 's/.*"samples":\([0-9]*\).*"time":\([0-9.e+-]*\).*"updates":\([0-9]*\).*/\1 \2 \3/' |
    awk 'NR > 1 && ($1 < s || $2 <= t || $3 < u) { print "evaluation " NR ": " $0 " after " s " " t " " u; exit }
         { s = $1; t = $2; u = $3 }'
}

failures=0
retries=0
for ((trial = 1; trial <= trials; trial++)); do
  run="$work/trial-$trial"
  started=$(date +%s.%N)
  "${launcher[@]}" "$hetps" train --quiet --out "$run" "${settings[@]}" > "$run.out" 2>&1 &
  pid=$!
  while [[ ! -d $run/checkpoints ]] && kill -0 "$pid" 2> /dev/null; do sleep 0.01; done
  # A random moment between the first checkpoint and the reference run's end.
  delay=$(awk -v seed="$RANDOM" -v total="$reference_wall" -v started="$started" \
    -v now="$(date +%s.%N)" 'BEGIN { srand(seed); left = total - (now - started);
      if (left < 0) left = 0; printf "%.3f", rand() * left }')
  sleep "$delay"
  killed=true
  target=$(victim "$run" "$pid") || true  # none when the run just ended
  what=""
  if [[ $engine == mpi && -n $target ]]; then
    rank=$({ tr '\0' '\n' < "/proc/$target/environ"; } 2> /dev/null |
      sed -n 's/^OMPI_COMM_WORLD_RANK=//p') || true
    what=" rank ${rank:-?}"
  fi
  [[ -n $target ]] && kill -KILL "$target" 2> /dev/null || killed=false
  status=0
  wait "$pid" 2> /dev/null || status=$?
  # A run that wrote its summary had finished its work, even when the kill caught it on its
  # way out; one that exited with an error, or by itself without a summary, failed. A killed
  # process exits 137; mpiexec, whose rank was killed, reports it with a status of its own.
  if { ! $killed && { ((status != 0)) || [[ ! -f $run/summary.json ]]; }; } ||
    { $killed && [[ $engine != mpi ]] && ((status != 0 && status != 137)); }; then
    echo "trial $trial: the run failed before it could be killed (exit $status):"
    cat "$run.out"
    exit 1
  fi
  if [[ -f $run/summary.json ]]; then
    # The reference may have run on a busier machine than this run did (in CI, beside other
    # tests): the next delay is drawn within the quickest run seen, as long as this one took.
    reference_wall=$(awk -v started="$started" -v ended="$(date -r "$run/summary.json" +%s.%N)" \
      -v was="$reference_wall" 'BEGIN { took = ended - started; printf "%.3f", took < was ? took : was }')
    retries=$((retries + 1))
    if ((retries > trials)); then
      echo "kill-and-resume: the runs keep finishing before the kill; make them longer"
      exit 1
    fi
    echo "trial $trial: the run finished before the kill (delay ${delay} s): not a resume;" \
      "again, within ${reference_wall} s"
    rm -rf "$run"
    trial=$((trial - 1))
    continue
  fi
  checkpoints=$(ls "$run/checkpoints" | tr '\n' ' ')
  if ! "${launcher[@]}" "$hetps" train --quiet --resume "$run" >> "$run.out" 2>&1; then
    echo "trial $trial: FAILED to resume after a kill at +${delay} s (checkpoints: $checkpoints):"
    cat "$run.out"
    failures=$((failures + 1))
    continue
  fi
  different=()
  if [[ $engine == sim ]]; then
    cmp -s "$work/reference/log.jsonl" "$run/log.jsonl" || different+=(log.jsonl)
    cmp -s "$work/reference/timeline.csv" "$run/timeline.csv" || different+=(timeline.csv)
    [[ $(without_wall "$work/reference/summary.json") == "$(without_wall "$run/summary.json")" ]] ||
      different+=(summary.json)
  else
    [[ $(summary_field stop_reason "$work/reference/summary.json") == \
      "$(summary_field stop_reason "$run/summary.json")" ]] || different+=("summary.json's stop_reason")
    if [[ $protocol == bsp || $protocol == asp ]]; then
      [[ $(summary_field samples "$work/reference/summary.json") == \
        "$(summary_field samples "$run/summary.json")" ]] || different+=("summary.json's samples")
    fi
    going_back=$(evaluations_going_back "$run/log.jsonl")
    [[ -z $going_back ]] || different+=("log.jsonl ($going_back)")
  fi
  if ((${#different[@]} > 0)); then
    echo "trial $trial: resumed, but ${different[*]} differ from the uninterrupted run's" \
      "(killed at +${delay} s after the first checkpoint; checkpoints: $checkpoints)"
    failures=$((failures + 1))
  else
    echo "trial $trial: killed${what} at +${delay} s after the first checkpoint (checkpoints then:" \
      "$checkpoints); resumed; $([[ $engine == sim ]] && echo "log.jsonl, timeline.csv and" \
      "summary.json match" || echo "it continued the run")"
  fi
done
if ((failures > 0)); then
  echo "kill-and-resume: $failures of $trials trials failed"
  exit 1
fi
echo "kill-and-resume: all $trials trials resumed and matched the uninterrupted run"
