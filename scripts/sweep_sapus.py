#!/usr/bin/env python3
"""The sweep that chose SaPus' defaults (spec/sapus.md, "Defaults"; issue 7).

On the simulator, on a cluster that is neither of the scenarios SaPus is judged on: 8 workers of
mixed speeds *and* mixed links (SWEEP_CLUSTER below). One parameter at a time, in the order of
SWEEP, each holding the values already chosen; per parameter the rule picks, among the values
whose mean final accuracy is within one point of that line's best, the earliest mean time to
target, then the fewest mean bytes sent to the server until the target; means over seeds 1 and
2. The band is a point wide because one seed's final accuracy moves by about that much between
neighbouring settings: a narrower band would pick noise.

    scripts/sweep_sapus.py [OUT_DIR]        (default runs/sweep-sapus; HETPS=build/hetps)

Writes OUT_DIR/sweep.md (the table and the chosen values) and prints it. Runs already in
OUT_DIR are reused; delete it after changing hetps. Two runs at a time (two cores).
"""
import concurrent.futures
import json
import os
import subprocess
import sys

HETPS = os.environ.get("HETPS", "build/hetps")
OUT = sys.argv[1] if len(sys.argv) > 1 else "runs/sweep-sapus"

# hetero-compute's model, data, budget and compute, with other speeds and links: three speed
# classes and four link classes, so that both the performance model and the threshold matter.
SWEEP_CLUSTER = [
    "cluster.scenario=hetero-compute",
    "cluster.speeds=[1, 1, 1, 0.7, 0.7, 0.5, 0.5, 0.3]",
    "cluster.link_gbps=[10, 10, 10, 5, 5, 2, 1, 1]",
    "cluster.link_latency_ms=[0.05, 0.05, 0.05, 0.2, 0.2, 0.5, 1, 1]",
    "protocol.name=sapus",
]
SEEDS = [1, 2]

# The starting point, then each parameter's candidates, in the order they are swept.
START = {
    "rho": 1, "tau_cap": 64, "alpha": 1, "perf_window": 5, "theta_max": 1e-2,
    "theta_min": 1e-6, "theta": 1e-4, "window": 16, "fast_drop": 0.05, "slow_drop": 0.01,
    "theta_up": 2, "theta_down": 0.5,
}
SWEEP = [
    ("rho", [1, 10, 20, 50, 100]),
    ("tau_cap", [16, 64, 256]),
    ("alpha", [0.5, 1]),
    ("perf_window", [5, 10]),
    ("theta_max", [1e-2, 1e-1]),
    ("theta_min", [1e-6, 1e-4]),
    ("theta", [1e-4, 1e-3, 1e-2]),
    ("window", [16, 64]),
    ("fast_drop", [0.02, 0.05]),
    ("slow_drop", [-1, 0.01]),
    ("theta_up", [2, 4]),
    ("theta_down", [0.5, 0.8]),
]
ACCURACY_BAND = 0.01


def run_name(params):
    return "_".join(f"{key}={params[key]:g}" for key in sorted(params))


def run(params, seed):
    """Trains once (or reuses the run); returns its metrics, or the reason hetps refused it."""
    directory = os.path.join(OUT, f"{run_name(params)}_seed={seed}")
    if not os.path.exists(os.path.join(directory, "summary.json")):
        command = ["nice", "-n", "19", HETPS, "train", "--quiet", "--force", "--out", directory]
        settings = [f"protocol.{k}={v}" for k, v in params.items()] + [f"seed={seed}"]
        for setting in SWEEP_CLUSTER + settings:
            command += ["--set", setting]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            said = result.stderr.strip().splitlines()
            return {"refused": said[-1] if said else f"hetps exited with {result.returncode}"}
    summary = json.load(open(os.path.join(directory, "summary.json")))
    target = summary["target_accuracy"]
    bytes_to_target = None
    steps = pushes = 0
    with open(os.path.join(directory, "log.jsonl")) as log:
        for line in log:
            record = json.loads(line)
            if record["type"] == "eval" and bytes_to_target is None and \
                    record["test_accuracy"] >= target:
                bytes_to_target = record["bytes_to_server"]
            elif record["type"] == "push":
                steps += record["steps"]
                pushes += 1
    return {
        "final": summary["final_accuracy"],
        "time_to_target": summary.get("time_to_target"),
        "bytes_to_target": bytes_to_target,
        "steps_per_push": steps / pushes if pushes else 0,
    }


def mean_over_seeds(results):
    """One setting's runs (one per seed) averaged; a time or byte count that one seed never
    reached stays None."""
    refused = [r for r in results if "refused" in r]
    if refused:
        return refused[0]
    def mean(key):
        values = [r[key] for r in results]
        return None if None in values else sum(values) / len(values)
    return {key: mean(key) for key in results[0]}


def pick(line):
    """The rule: within ACCURACY_BAND of the best final, earliest to target, then fewest bytes."""
    ran = [(value, metrics) for value, metrics in line if "final" in metrics]
    if not ran:
        sys.exit("every value of a line was refused: " + "; ".join(m["refused"] for _, m in line))
    best_final = max(metrics["final"] for _, metrics in ran)
    eligible = [(value, metrics) for value, metrics in ran
                if metrics["final"] >= best_final - ACCURACY_BAND]
    never = float("inf")
    return min(eligible, key=lambda entry: (
        entry[1]["time_to_target"] if entry[1]["time_to_target"] is not None else never,
        entry[1]["bytes_to_target"] if entry[1]["bytes_to_target"] is not None else never))[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    chosen = dict(START)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for key, values in SWEEP:
            candidates = [dict(chosen, **{key: value}) for value in values]
            runs = list(pool.map(lambda job: run(*job),
                                 [(candidate, seed) for candidate in candidates for seed in SEEDS]))
            results = [mean_over_seeds(runs[i:i + len(SEEDS)])
                       for i in range(0, len(runs), len(SEEDS))]
            line = list(zip(values, results))
            chosen[key] = pick(line)
            for value, metrics in line:
                rows.append((key, value, metrics, value == chosen[key]))
            print(f"{key}: chose {chosen[key]:g}", file=sys.stderr, flush=True)

    def cell(value, digits):
        return "—" if value is None else f"{value:.{digits}f}"

    lines = ["| parameter | value | final accuracy | time to target (s) | GB to server until target "
             "| local steps per push | chosen |", "|---|---|---|---|---|---|---|"]
    for key, value, metrics, picked in rows:
        if "refused" in metrics:
            lines.append(f"| {key} | {value:g} | refused: {metrics['refused']} | | | | |")
            continue
        gigabytes = None if metrics["bytes_to_target"] is None else metrics["bytes_to_target"] / 1e9
        lines.append(f"| {key} | {value:g} | {metrics['final']:.4f} | "
                     f"{cell(metrics['time_to_target'], 1)} | {cell(gigabytes, 2)} | "
                     f"{metrics['steps_per_push']:.2f} | {'**yes**' if picked else ''} |")
    lines.append("")
    lines.append("Chosen: " + ", ".join(f"`{key} = {chosen[key]:g}`" for key, _ in SWEEP))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "sweep.md"), "w") as out:
        out.write(text)
    print(text)


if __name__ == "__main__":
    main()
