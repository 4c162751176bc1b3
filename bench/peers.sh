#!/usr/bin/env bash
# Peers side by side (issue 3, "Benchmarks"): PyTorch DDP, PyTorch's RPC parameter server and
# hetps's real engines, one after the other on this machine, all training the MLP 784-256-128-10
# at batch 32 on random data with 2 workers. Prints each system's samples/s and the ratios the
# issue sets goals for. Usage and variables: bench/README.md.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
peers_dir=${HETPS_PEERS_DIR:-$repo/../shared/peers}
hetps=${HETPS_BIN:-$repo/build/hetps}
# Debian's interpreter, the one with python3-torch; it also reads summary.json (jq is not
# installed by default on Debian).
python=${HETPS_PYTHON:-/usr/bin/python3}
samples=${HETPS_BENCH_SAMPLES:-200000}
ddp_steps=${HETPS_BENCH_DDP_STEPS:-1500}
rpc_window_s=${HETPS_BENCH_RPC_WINDOW_S:-8}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

is_number() { [[ $1 =~ ^[0-9]+(\.[0-9]*)?$ ]]; }

# Each measurement prints a rate, "n/a" (a hetps engine this build does not have) or "failed"
# (its output then goes to stderr), so one failure never stops the other measurements.
report_failure() {
  local log=$1
  if grep -q "not available" "$log"; then
    echo "n/a"
  else
    cat "$log" >&2
    echo "failed"
  fi
}

# Prints the number that the group in the sed `pattern` captures from `log`.
rate_from() {
  local pattern=$1 log=$2 rate
  rate=$(sed -n "s/$pattern/\1/p" "$log")
  if is_number "$rate"; then echo "$rate"; else report_failure "$log"; fi
}

ddp_rate() {
  local log=$work/ddp.log
  if "$python" "$peers_dir/ddp_mlp.py" 2 "$ddp_steps" >"$log" 2>&1; then
    rate_from '^world=2 samples\/s=\([0-9.]*\)$' "$log"
  else
    report_failure "$log"
  fi
}

# One server and two trainers, each its own process, as the peer's header runs them.
rpc_asp_rate() {
  local pids=() rank status=0
  for rank in 0 1 2; do
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 TP_SOCKET_IFNAME=lo \
      "$python" "$peers_dir/ps_rpc_peer.py" --rank "$rank" --world 3 --mode asp --warm 2 \
      --window "$rpc_window_s" >"$work/rpc$rank.log" 2>&1 &
    pids+=($!)
  done
  for rank in 0 1 2; do wait "${pids[$rank]}" || status=1; done
  if ((status == 0)); then
    rate_from '^PS: .* TOTAL samples_per_s=\([0-9.]*\) .*' "$work/rpc0.log"
  else
    cat "$work"/rpc{1,2}.log >&2
    report_failure "$work/rpc0.log"
  fi
}

common_settings=(
  --set data.name=synthetic --set data.batch_size=32 --set model.name=mlp
  --set cluster.workers=2 --set cluster.servers=1 --set 'cluster.speeds=[1.0]'
  --set 'cluster.link_gbps=[inf]'
  --set 'cluster.link_latency_ms=[0]' --set cluster.server_gbps=inf
  --set cluster.server_latency_ms=0 --set "train.max_samples=$samples"
  --set train.eval_interval=1e9 --quiet
)

# Samples per second of training time (wall seconds on the real engines), from summary.json.
# Arguments: a name for the run's directory, the protocol, the engine, then the command line
# that comes before `train`.
hetps_rate() {
  local name=$1 protocol=$2 engine=$3
  shift 3
  local log=$work/$name.log
  if "$@" train --set "engine=$engine" --set "protocol.name=$protocol" "${common_settings[@]}" \
    --out "$work/$name" >"$log" 2>&1 &&
    "$python" -c 'import json, sys
summary = json.load(open(sys.argv[1]))
print("samples_per_s=%s" % (summary["samples"] / summary["total_time"]))' \
      "$work/$name/summary.json" >>"$log" 2>&1; then
    rate_from '^samples_per_s=\([0-9.]*\)$' "$log"
  else
    report_failure "$log"
  fi
}

mpi=(mpirun --oversubscribe --allow-run-as-root -np 3 "$hetps")

ddp=$(ddp_rate)
rpc_asp=$(rpc_asp_rate)
threads_bsp=$(hetps_rate threads-bsp bsp threads "$hetps")
mpi_bsp=$(hetps_rate mpi-bsp bsp mpi "${mpi[@]}")
mpi_asp=$(hetps_rate mpi-asp asp mpi "${mpi[@]}")

print_rate() {
  if is_number "$2"; then
    printf '%-36s %10.0f\n' "$1" "$2"
  else
    printf '%-36s %10s\n' "$1" "$2"
  fi
}

# Arguments: label, numerator, denominator, goal.
print_ratio() {
  if is_number "$2" && is_number "$3"; then
    awk -v label="$1" -v a="$2" -v b="$3" -v goal="$4" 'BEGIN {
      printf "%-36s %10.2f %8s %6s\n", label, a / b, ">= " goal, (a / b >= goal ? "yes" : "no")
    }'
  else
    printf '%-36s %10s %8s %6s\n' "$1" "n/a" ">= $4" "-"
  fi
}

printf '%-36s %10s\n' "system" "samples/s"
print_rate "PyTorch DDP (2 processes)" "$ddp"
print_rate "PyTorch RPC PS, ASP (1 + 2 trainers)" "$rpc_asp"
print_rate "hetps threads BSP (2 workers)" "$threads_bsp"
print_rate "hetps mpi BSP (1 server + 2 workers)" "$mpi_bsp"
print_rate "hetps mpi ASP (1 server + 2 workers)" "$mpi_asp"
echo
printf '%-36s %10s %8s %6s\n' "ratio" "value" "goal" "met"
print_ratio "hetps threads BSP / DDP" "$threads_bsp" "$ddp" 2
print_ratio "hetps mpi BSP / DDP" "$mpi_bsp" "$ddp" 1.5
print_ratio "hetps mpi ASP / RPC PS ASP" "$mpi_asp" "$rpc_asp" 2
[[ "$ddp $rpc_asp $threads_bsp $mpi_bsp $mpi_asp" != *failed* ]]
