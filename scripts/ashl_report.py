#!/usr/bin/env python3
"""Writes the results of scripts/experiment-ashl.sh into docs/protocols/ashl.md.

    scripts/ashl_report.py OUT_DIR DOC

Reads the comparisons under OUT_DIR (per setting, `SETTING-ashl` and `SETTING-baselines`, as
the experiment script names them) and replaces the text between DOC's two experiment markers
with the tables; the rest of DOC is kept.
"""
import experiment_runs
from experiment_runs import (level_cells, load_settings, mean_or_none, setting_sections, spread,
                             table, to_level, wrap)

BEGIN_MARKER = "<!-- experiment-ashl: begin (written by scripts/experiment-ashl.sh) -->"
END_MARKER = "<!-- experiment-ashl: end -->"
# Issue 6's yardstick: local SGD's final accuracy (at ASHL's mean local steps) minus half a point.
TOLERANCE = 0.005
SETTINGS = [f"{scenario}-{workers}w" for scenario in ("hetero-network", "hetero-compute")
            for workers in (8, 16)]
JUDGED = [name for name in SETTINGS if name.startswith("hetero-network")]


def same_steps_local_sgd(comparison):
    """The local SGD entry with ASHL's mean local steps: its own, or plain local SGD (H = 8)."""
    matched = [entry for entry in comparison if entry.startswith("local_sgd:local_steps=")]
    return matched[0] if matched else "local_sgd"


def local_steps_per_push(run):
    """Mean local steps between two pushes of one worker; None for one-step protocols."""
    batches = run.summary["samples"] / run.config()["data"]["batch_size"]
    if run.summary["protocol"] == "ashl":  # one applied update per commit
        return batches / run.summary["updates"]
    if run.summary["protocol"] == "local_sgd":  # one applied update per round of every worker
        return batches / run.summary["updates"] / run.summary["workers"]
    return None


def levels_of(comparison):
    """The yardstick's final accuracy minus the tolerance, by seed."""
    return {run.seed: run.final - TOLERANCE
            for run in comparison[same_steps_local_sgd(comparison)]}


def setting_table(comparison):
    levels = levels_of(comparison)
    rows = []
    for entry, runs in comparison.items():
        steps = [local_steps_per_push(run) for run in runs]
        rows.append([entry] + level_cells(runs, levels)
                    + ["—" if None in steps else spread(steps, 1)])
    yardstick = same_steps_local_sgd(comparison)
    return table(["entry", "final accuracy (%)", "time to target (s)", "GB to server to target",
                  f"time to {yardstick}'s final − 0.5 (s)", "GB to server to that level",
                  "samples/s", "local steps per push"], rows)


def acceptance_2(name, comparison):
    levels = levels_of(comparison)
    yardstick = same_steps_local_sgd(comparison)
    ashl, local, bsp = comparison["ashl"], comparison[yardstick], comparison["bsp"]
    ashl_time = mean_or_none(to_level(ashl, levels, "time"))
    ashl_bytes = mean_or_none(to_level(ashl, levels, "bytes_to_server"))
    local_time = mean_or_none(to_level(local, levels, "time"))
    local_bytes = mean_or_none(to_level(local, levels, "bytes_to_server"))
    bsp_time = mean_or_none(to_level(bsp, levels, "time"))
    if ashl_time is None:
        return (f"{name}: **not met**: ashl does not reach {yardstick}'s final accuracy minus half "
                "a point on every seed.")
    if local_time is None or bsp_time is None:
        return (f"{name}: ashl gets there at {ashl_time:.1f} s; {yardstick} or bsp does not on "
                "every seed, so the ratios are not defined. **Not judged.**")
    met = ashl_time < local_time and ashl_time < bsp_time and ashl_bytes < local_bytes
    return (f"{name}: ashl reaches {yardstick}'s final − 0.5 points at {ashl_time:.1f} s with "
            f"{ashl_bytes / 1e9:.2f} GB to the server; {yardstick} at {local_time:.1f} s with "
            f"{local_bytes / 1e9:.2f} GB, bsp at {bsp_time:.1f} s (means over seeds 1–3). Time: "
            f"{ashl_time / local_time:.2f} of {yardstick}'s, {ashl_time / bsp_time:.2f} of bsp's; "
            f"bytes: {ashl_bytes / local_bytes:.2f} of {yardstick}'s. "
            + ("**Met.**" if met else "**Not met.**"))


def report(out):
    loaded = load_settings(out, SETTINGS, ("ashl", "baselines"))
    sections = setting_sections(SETTINGS, loaded, setting_table)
    sections += ["### Acceptance 2 (hetero-network, means over seeds 1–3)"]
    sections += [acceptance_2(name, loaded[name]) for name in JUDGED if name in loaded]
    return wrap(sections)


if __name__ == "__main__":
    experiment_runs.main(__doc__, report, BEGIN_MARKER, END_MARKER)
