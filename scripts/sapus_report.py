#!/usr/bin/env python3
"""Writes the results of scripts/experiment-sapus.sh into docs/protocols/sapus.md.

    scripts/sapus_report.py OUT_DIR DOC

Reads the comparisons under OUT_DIR (one per setting, as the experiment script names them) and
replaces the text between DOC's two experiment markers with the tables; the rest of DOC is kept.
"""
import statistics
from collections import defaultdict

import experiment_runs
from experiment_runs import level_cells, load_comparison, mean_or_none, table, to_level, wrap

BEGIN_MARKER = "<!-- experiment-sapus: begin (written by scripts/experiment-sapus.sh) -->"
END_MARKER = "<!-- experiment-sapus: end -->"
# Issue 7's yardstick: ASP's final accuracy minus half a point.
TOLERANCE = 0.005
PROTOCOLS = ("asp", "ssp", "local_sgd", "sapus")
SETTINGS = [f"{scenario}-{workers}w{variant}" for scenario in ("hetero-compute", "hetero-network")
            for workers in (8, 16) for variant in ("", "-stragglers")]


def asp_levels(comparison):
    """ASP's final accuracy minus the tolerance, by seed."""
    return {run.seed: run.final - TOLERANCE for run in comparison["asp"]}


def setting_table(comparison):
    levels = asp_levels(comparison)
    rows = []
    for protocol in PROTOCOLS:
        rows.append([protocol] + level_cells(comparison[protocol], levels))
    return table(["protocol", "final accuracy (%)", "time to target (s)", "GB to server to target",
                  "time to ASP's final − 0.5 (s)", "GB to server to ASP's final − 0.5",
                  "samples/s"], rows)


def push_intervals(comparison):
    """Per worker, over the sapus runs' `push` records: local steps per push and seconds between
    pushes, as means over all of that worker's pushes in every seed."""
    steps, intervals = defaultdict(list), defaultdict(list)
    for run in comparison["sapus"]:
        for push in run.records_of("push"):
            steps[push["worker"]].append(push["steps"])
            if "interval_s" in push:
                intervals[push["worker"]].append(push["interval_s"])
    header = ["worker"] + [str(w) for w in sorted(steps)]
    return table(header, [
        ["local steps per push"] + [f"{statistics.mean(steps[w]):.2f}" for w in sorted(steps)],
        ["seconds between pushes"] + [f"{statistics.mean(intervals[w]):.3f}" if intervals[w]
                                      else "—" for w in sorted(steps)],
    ])


def theta_summary(comparison):
    thetas = [[t["theta"] for t in run.records_of("threshold")] for run in comparison["sapus"]]
    finals = [f"{t[-1]:g}" for t in thetas]
    changes = [len(t) - 1 for t in thetas]
    return (f"θ at the end, per seed: {', '.join(finals)}; windows that ended: "
            f"{', '.join(str(c) for c in changes)}.")


def acceptance_2(comparison):
    levels = asp_levels(comparison)
    asp, sapus, local = comparison["asp"], comparison["sapus"], comparison["local_sgd"]
    sapus_bytes = mean_or_none(to_level(sapus, levels, "bytes_to_server"))
    asp_bytes = mean_or_none(to_level(asp, levels, "bytes_to_server"))
    sapus_time = mean_or_none(to_level(sapus, levels, "time"))
    asp_time = mean_or_none(to_level(asp, levels, "time"))
    local_times = to_level(local, levels, "time")
    local_time = mean_or_none(local_times)
    if sapus_bytes is None or sapus_time is None:
        return ("**Not met**: sapus does not reach ASP's final accuracy minus half a point on "
                "every seed.")
    parts = [f"sapus reaches ASP's final − 0.5 points on every seed, at {sapus_time:.1f} s "
             f"with {sapus_bytes / 1e9:.2f} GB to the server (means over seeds 1–3); ASP gets "
             f"there at {asp_time:.1f} s with {asp_bytes / 1e9:.2f} GB"]
    reached = [t for t in local_times if t is not None]
    if local_time is not None:
        parts.append(f"local SGD at {local_time:.1f} s")
    else:
        parts.append(f"local SGD gets there on {len(reached)} of {len(local_times)} seeds"
                     + (f" (at {statistics.mean(reached):.1f} s on those)" if reached else ""))
    # A seed where local SGD never gets there counts as slower than sapus on it.
    faster_than_local = all(t is None or s < t for s, t in
                            zip(to_level(sapus, levels, "time"), local_times))
    met = (sapus_bytes <= asp_bytes / 2 and sapus_time < asp_time and
           (local_time is None and faster_than_local or
            local_time is not None and sapus_time < local_time))
    bytes_ratio = sapus_bytes / asp_bytes
    return ("; ".join(parts) + f". Bytes: {bytes_ratio:.2f} of ASP's (at most 0.5 asked). "
            + ("**Met.**" if met else "**Not met.**"))


def report(out):
    sections = []
    for name in SETTINGS:
        comparison = load_comparison(out / name)
        sections += [f"### {name}", setting_table(comparison),
                     "SaPus' pushes per worker (workers in id order):",
                     push_intervals(comparison), theta_summary(comparison)]
    sections += ["### Acceptance 2 (hetero-network, 16 workers, means over seeds 1–3)",
                 acceptance_2(load_comparison(out / "hetero-network-16w"))]
    return wrap(sections)


if __name__ == "__main__":
    experiment_runs.main(__doc__, report, BEGIN_MARKER, END_MARKER)
