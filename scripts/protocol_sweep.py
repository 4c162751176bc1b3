"""One protocol's parameters swept one at a time on the simulator (shared by scripts/sweep_*.py).

Each parameter's candidates are run with the values already chosen for the others, over the
given seeds; the rule picks, among the values whose mean final accuracy is within ACCURACY_BAND
of that line's best, the earliest mean time to target, then the fewest mean bytes sent to the
server until the target. The band is a point wide because one seed's final accuracy moves by
about that much between neighbouring settings: a narrower band would pick noise. Runs already in
the output directory are reused; delete it after changing hetps. Two runs at a time (two cores).
"""
import concurrent.futures
import json
import os
import subprocess
import sys

HETPS = os.environ.get("HETPS", "build/hetps")
ACCURACY_BAND = 0.01


def run_name(params):
    return "_".join(f"{key}={params[key]:g}" for key in sorted(params))


def run(out, cluster, params, seed):
    """Trains once (or reuses the run); returns its metrics, or the reason hetps refused it."""
    directory = os.path.join(out, f"{run_name(params)}_seed={seed}")
    if not os.path.exists(os.path.join(directory, "summary.json")):
        command = ["nice", "-n", "19", HETPS, "train", "--quiet", "--force", "--out", directory]
        settings = [f"protocol.{k}={v}" for k, v in params.items()] + [f"seed={seed}"]
        for setting in cluster + settings:
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
        # Only protocols that log their pushes (SaPus) say how many steps each held.
        "steps_per_push": steps / pushes if pushes else None,
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


def out_dir_or_usage(usage, default):
    """OUT_DIR, the script's first argument, or `default`. -h and --help print `usage` (the
    script's docstring) and exit; any other option is refused: taken for OUT_DIR, it would start
    hours of runs in a directory named after it."""
    given = sys.argv[1] if len(sys.argv) > 1 else default
    if given in ("-h", "--help"):
        print(usage)
        sys.exit(0)
    if given.startswith("-"):
        print(f"{sys.argv[0]}: unknown option {given} (see {sys.argv[0]} --help)", file=sys.stderr)
        sys.exit(2)
    return given


def sweep(out, cluster, seeds, start, order):
    """Sweeps `order` ([(parameter, candidates)]) from `start`; writes OUT/sweep.md (the table
    and the chosen values), prints it and returns the chosen values."""
    os.makedirs(out, exist_ok=True)
    chosen = dict(start)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for key, values in order:
            candidates = [dict(chosen, **{key: value}) for value in values]
            runs = list(pool.map(lambda job: run(out, cluster, *job),
                                 [(candidate, seed) for candidate in candidates for seed in seeds]))
            results = [mean_over_seeds(runs[i:i + len(seeds)])
                       for i in range(0, len(runs), len(seeds))]
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
                     f"{cell(metrics['steps_per_push'], 2)} | {'**yes**' if picked else ''} |")
    lines.append("")
    lines.append("Chosen: " + ", ".join(f"`{key} = {chosen[key]:g}`" for key, _ in order))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "sweep.md"), "w") as written:
        written.write(text)
    print(text)
    return chosen
