#!/usr/bin/env bash
# Checks the simulator against reality: the same small heterogeneous scenario (2 workers at
# speeds 1 and 0.5, Fashion-MNIST, MLP) on the threads engine, then on the simulator with its
# compute rate calibrated from the threads run's measured step (its "calibration" log record).
# Prints throughput and time to target for both, and their ratios (the goal: within 15%).
# Usage: bench/sim_vs_threads.sh [PROTOCOL...]   (default: bsp asp; needs build/hetps and the
# fetched data set: build/hetps data fetch fashion-mnist)
set -euo pipefail
cd "$(dirname "$0")/.."
hetps=${HETPS:-build/hetps}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
protocols=("$@")
((${#protocols[@]})) || protocols=(bsp asp)

# The target is one the runs cross decisively mid-way: near the final accuracy, the first
# evaluation above it is a matter of noise, not of speed.
common=(--quiet --force --set cluster.workers=2 --set 'cluster.speeds=[1.0, 0.5]'
        --set train.max_samples=150000 --set train.eval_interval=0.1
        --set train.target_accuracy=0.8)

printf '%-5s %-8s %12s %14s %10s\n' protocol engine samples/s time_to_target accuracy
for protocol in "${protocols[@]}"; do
  "$hetps" train "${common[@]}" --set protocol.name="$protocol" --set engine=threads \
    --out "$out/threads-$protocol" >/dev/null
  gflops=$(python3 - "$out/threads-$protocol/log.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record.get("type") == "calibration":
        print(record["flops_per_step"] / record["step_seconds"] / 1e9)
        break
PY
)
  # One BLAS and one intra-op thread, as the threads engine's workers compute: BSP then follows
  # the same trajectory, bit for bit, and only the clocks differ.
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
    "$hetps" train "${common[@]}" --set protocol.name="$protocol" --set engine=sim \
      --set cluster.worker_gflops="$gflops" --out "$out/sim-$protocol" >/dev/null
  python3 - "$protocol" "$out/threads-$protocol/summary.json" "$out/sim-$protocol/summary.json" <<'PY'
import json, sys
protocol, real_path, sim_path = sys.argv[1:]
rows = {}
for engine, path in (("threads", real_path), ("sim", sim_path)):
    s = json.load(open(path))
    rate = s["samples"] / s["total_time"]
    ttt = s.get("time_to_target")
    rows[engine] = (rate, ttt)
    print(f"{protocol:<5} {engine:<8} {rate:12.0f} {ttt if ttt is not None else float('nan'):14.2f}"
          f" {s['final_accuracy']:10.4f}")
(rate_real, ttt_real), (rate_sim, ttt_sim) = rows["threads"], rows["sim"]
line = f"{protocol:<5} sim/threads: throughput {rate_sim / rate_real:.3f}"
if ttt_real and ttt_sim:
    line += f", time to target {ttt_sim / ttt_real:.3f}"
print(line)
PY
done
