#!/usr/bin/env python3
"""Writes the results of scripts/experiment-sync-switch.sh into docs/protocols/sync-switch.md.

    scripts/sync_switch_report.py OUT_DIR DOC

Reads the comparisons and searches under OUT_DIR (the layout the experiment script makes) and
replaces the text between DOC's two experiment markers with the tables; the rest of DOC is kept.
Times are virtual seconds of the simulator; accuracies are test accuracies in percent.
"""
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

import experiment_runs
from experiment_runs import load_comparison, mean_or_none, spread, table, wrap

BEGIN_MARKER = ("<!-- experiment-sync-switch: begin "
                "(written by scripts/experiment-sync-switch.sh) -->")
END_MARKER = "<!-- experiment-sync-switch: end -->"
# Issue 4's yardstick: within half a point of BSP's final accuracy.
TOLERANCE = 0.005


# ---- the quantities of a setting ---------------------------------------------------------------

@dataclass
class Setting:
    """One comparison against the BSP runs of the same seeds."""
    runs: dict
    bsp: list

    def thresholds(self):
        return [b.final - TOLERANCE for b in self.bsp]

    def times_to_bsp_level(self, runs):
        return [r.time_to(t) for r, t in zip(runs, self.thresholds())]

    def speedups(self, runs, base=None):
        """Per seed, `base`'s (BSP's by default) time to BSP's level over that of `runs`."""
        base_times = self.times_to_bsp_level(base or self.bsp)
        return [b / t if b is not None and t else None
                for b, t in zip(base_times, self.times_to_bsp_level(runs))]


def bsp_fraction(runs):
    return runs[0].config()["protocol"]["bsp_fraction"]


def throughput(run):
    return run.summary["samples"] / run.summary["total_time"]


def switch_cell(runs):
    # x = 1 leaves BSP when the budget ends: no switch that changes the training.
    phases = [[p for p in r.records_of("phase") if p["time"] < r.summary["total_time"]]
              for r in runs]
    if not any(phases):
        return "none before the budget's end"
    counts = spread([len(p) for p in phases], 1)
    first = spread([p[0]["time"] if p else None for p in phases], 1, having="switched")
    return f"{counts}; first at {first} s"


def setting_table(setting):
    target = setting.bsp[0].summary["target_accuracy"]
    header = ["run", "final accuracy (%)", f"time to {target:.0%} (s)",
              "time to BSP final − 0.5 pt (s)",
              "speed-up over BSP (×)", "total time (s)", "throughput (samples/s)", "switches"]
    rows = []
    for name, runs in setting.runs.items():
        rows.append([f"`{name}`", spread([r.final for r in runs], 2, 100),
                     spread([r.summary["time_to_target"] for r in runs], 1),
                     spread(setting.times_to_bsp_level(runs), 1),
                     spread(setting.speedups(runs), 2),
                     spread([r.summary["total_time"] for r in runs], 1),
                     spread([throughput(r) for r in runs], 0),
                     switch_cell(runs) if name.startswith("sync_switch") else "—"])
    return table(header, rows)


def charged_switches(run):
    """The overheads (virtual s) the simulator charged for the run's switches before its end."""
    return [p.get("overhead_s", 0.0) for p in run.records_of("phase")
            if p["time"] < run.summary["total_time"]]


def overhead_text(runs):
    """What the switches of `runs` cost: per switch, and as a share of the run time."""
    per_switch = [o for r in runs for o in charged_switches(r)]
    if not per_switch:
        return None
    shares = [sum(charged_switches(r)) / r.summary["total_time"] for r in runs
              if charged_switches(r)]
    return (f"{statistics.mean(per_switch) * 1000:.3f} ms a switch ({len(per_switch)} switches), "
            f"{statistics.mean(shares):.4%} of the run time of the runs that switched")


def sync_switch_runs(setting):
    return [r for name, runs in setting.runs.items() if name.startswith("sync_switch")
            for r in runs]


def overhead_note(setting):
    """The simulator charges a switch one model pull; Elastic weighs a measured pull time."""
    charged = overhead_text(sync_switch_runs(setting))
    note = ("Switch overhead: the simulator holds its servers for the time of one model pull at "
            "each switch (`cluster.switch_overhead_pulls` = 1): "
            + (charged or "no run switched before its end, so none was charged") + ".")
    weighed = [rec["switch_overhead_s"] for runs in setting.runs.values() for r in runs
               for rec in r.records_of("straggler") if "switch_overhead_s" in rec]
    if weighed:
        note += (f" Elastic weighed a switch at the measured time of one pull, "
                 f"{statistics.mean(weighed) * 1000:.2f} ms on average "
                 f"({len(weighed)} straggler records).")
    return note


def mean_final(runs):
    return statistics.mean(r.final for r in runs)


def against_bsp(setting, name):
    """A sentence on entry `name` against BSP, with the numbers: where it wins, where it loses."""
    runs = setting.runs[name]
    gap = (mean_final(runs) - mean_final(setting.bsp)) * 100
    speedups = setting.speedups(runs)
    reached = sum(s is not None for s in speedups)
    if reached == len(speedups):
        speed = f"reaches BSP's final − 0.5 pt {statistics.mean(speedups):.2f}× as fast as BSP"
    else:
        speed = f"reaches BSP's final − 0.5 pt on {reached} of {len(speedups)} seeds"
    return f"`{name}` ends {gap:+.2f} points from BSP's final accuracy and {speed}."


# ---- the sections -------------------------------------------------------------------------------

def search_section(out, name, workers, rule):
    policy = json.loads((out / name / "policy.json").read_text())
    walls = [json.loads((d / "summary.json").read_text())["wall_seconds"]
             for d in (out / name).iterdir() if (d / "summary.json").exists()]
    rows = [["1 (BSP)", f"{policy['bsp_accuracy'] * 100:.2f}", "", ""]]
    for c in policy["candidates"]:
        gap = c["accuracy"] - policy["bsp_accuracy"]
        rows.append([f"{c['bsp_fraction']:g}", f"{c['accuracy'] * 100:.2f}", f"{gap * 100:+.2f}",
                     "yes" if gap >= -policy["tolerance"] else "no"])
    return (f"**{workers} workers, momentum rule `{rule}`**: chosen x = {policy['chosen']:g} "
            f"(seed {policy['seed']}, {len(walls)} runs, {sum(walls):.0f} s of wall time "
            f"on the machine that ran them).\n\n"
            + table(["x", "final accuracy (%)", "vs BSP (points)", "within 0.5"], rows))


def acceptance_2(setting, ss, rule):
    """Issue 4's acceptance 2 for the sync_switch runs `ss` (16 workers, momentum rule `rule`)."""
    bsp = setting.bsp
    gap = (mean_final(ss) - mean_final(bsp)) * 100
    bsp_time = mean_or_none(setting.times_to_bsp_level(bsp))
    ss_time = mean_or_none(setting.times_to_bsp_level(ss))
    accuracy_holds = gap >= -TOLERANCE * 100
    time_holds = ss_time is not None and ss_time <= bsp_time / 2
    x = bsp_fraction(ss)
    time_text = ("not reached on every seed" if ss_time is None
                 else f"{ss_time:.1f} s against BSP's {bsp_time:.1f} s "
                      f"({ss_time / bsp_time:.2f} of BSP's time; at most 0.5 required)")
    verdict = "holds" if accuracy_holds and time_holds else "does not hold"
    return (f"**Acceptance 2 {verdict} with `{rule}`** (x = {x:g}, searched on seed 101 with that "
            f"rule): final accuracy {mean_final(ss) * 100:.2f}% against BSP's "
            f"{mean_final(bsp) * 100:.2f}% ({gap:+.2f} points: within 0.5 "
            f"{'holds' if accuracy_holds else 'fails'}); time to BSP's final − 0.5 pt "
            f"{time_text}.")


def asp_verdict(setting):
    """Issue 4 asks whether the scenario makes ASP lose accuracy to BSP at all."""
    gap = (mean_final(setting.runs["asp"]) - mean_final(setting.bsp)) * 100
    loses = gap < -TOLERANCE * 100
    return (f"ASP ends {gap:+.2f} points from BSP here: the scenario "
            f"{'does' if loses else 'does not'} make ASP lose accuracy to BSP.")


def scaled_searched_runs(out, workers):
    """The sync_switch runs with `scaled` at the x its search chose, wherever they were run."""
    x = json.loads((out / f"tune-scaled-{workers}w" / "policy.json").read_text())["chosen"]
    if x == 1:
        return None  # no switch: BSP itself
    if x == 0.5:
        return load_comparison(out / f"momentum-{workers}w-x0.5")[
            "sync_switch:bsp_fraction=0.5:momentum_rule=scaled"]
    return load_comparison(out / f"momentum-{workers}w-searched")[
        "sync_switch:momentum_rule=scaled"]


def momentum_rows(runs_by_rule, setting_of_bsp):
    rows = []
    for name, runs in runs_by_rule.items():
        rule = name.rsplit("momentum_rule=", 1)[1]
        lowest_after_switch = [min(e["test_accuracy"] for e in r.records_of("eval")
                                   if e["time"] >= r.records_of("phase")[0]["time"])
                               for r in runs]
        gaps = [(r.final - b.final) * 100 for r, b in zip(runs, setting_of_bsp.bsp)]
        rows.append([f"`{rule}`", spread([r.final for r in runs], 2, 100), spread(gaps, 2),
                     spread(lowest_after_switch, 2, 100),
                     spread(setting_of_bsp.times_to_bsp_level(runs), 1)])
    return table(["momentum rule", "final accuracy (%)", "vs BSP (points)",
                  "lowest after the switch (%)", "time to BSP final − 0.5 pt (s)"], rows)


def momentum_section(out, workers, bsp_setting):
    parts = []
    for suffix, searched in (("x0.5", False), ("searched", True)):
        directory = out / f"momentum-{workers}w-{suffix}"
        if not (directory / "summary.csv").exists():
            policy = json.loads((out / f"tune-scaled-{workers}w" / "policy.json").read_text())
            parts.append(f"*{workers} workers, the x searched under `scaled`*: not run — the "
                         f"search chose x = {policy['chosen']:g}, which the x = 0.5 table or "
                         f"BSP itself shows.")
            continue
        runs = load_comparison(directory)
        x = bsp_fraction(next(iter(runs.values())))
        where = " (searched under `scaled`)" if searched else ""
        parts.append(f"*{workers} workers, x = {x:g}{where}*, against the BSP runs of the "
                     f"{workers}-worker table:\n\n"
                     + momentum_rows(runs, bsp_setting))
    return "\n\n".join(parts)


def collapse_check(out, bsp_8w):
    """Issue 4's known finding: under `ramped`, ASP collapses once the momentum is m again."""
    runs = load_comparison(out / "momentum-8w-x0.5")
    ramped = runs["sync_switch:bsp_fraction=0.5:momentum_rule=ramped"][0]
    scaled = runs["sync_switch:bsp_fraction=0.5:momentum_rule=scaled"][0]
    switch = ramped.records_of("phase")[0]
    ramp_steps = ramped.config()["protocol"]["ramp_steps"]
    evals = ramped.records_of("eval")
    before = [e for e in evals if e["time"] < switch["time"]][-1]
    ramp_over = next(e for e in evals if e["updates"] >= switch["bsp_rounds"] + ramp_steps)
    lowest = min((e for e in evals if switch["time"] <= e["time"] <= switch["time"] + 10),
                 key=lambda e: e["test_accuracy"])
    return (f"The known finding, checked (seed 1, 8 workers, x = 0.5): under `ramped` the "
            f"accuracy is {before['test_accuracy'] * 100:.2f}% at {before['time']:.0f} s, the "
            f"last evaluation before the switch at {switch['time']:.1f} s; its {ramp_steps} "
            f"ASP updates at m/n are over by the next evaluation ({ramp_over['time']:.0f} s, "
            f"update {ramp_over['updates']}, the switch at round {switch['bsp_rounds']}), which "
            f"reads {ramp_over['test_accuracy'] * 100:.2f}%; the lowest in the 10 s after the "
            f"switch is {lowest['test_accuracy'] * 100:.2f}% at {lowest['time']:.0f} s, and the "
            f"run ends at {ramped.final * 100:.2f}%. Under `scaled` it ends at "
            f"{scaled.final * 100:.2f}%; BSP ends at {bsp_8w[0].final * 100:.2f}%.")


def reproduction(out, rule):
    """Whether `train` with the 16-worker policy file of `rule` logged its chosen run again."""
    policy = json.loads((out / f"tune-{rule}-16w" / "policy.json").read_text())
    chosen = policy["bsp_run"] if policy["chosen"] == 1 else next(
        c["run"] for c in policy["candidates"] if c["bsp_fraction"] == policy["chosen"])
    again = out / f"reproduce-{rule}-16w"
    same = (Path(chosen) / "log.jsonl").read_bytes() == (again / "log.jsonl").read_bytes()
    return (f"`train` with the `{rule}` 16-worker policy file (x = {policy['chosen']:g}, seed "
            f"{policy['seed']}) {'reproduces' if same else 'does NOT reproduce'} its chosen run: "
            f"`{again}/log.jsonl` and `{chosen}/log.jsonl` are "
            f"{'identical, byte for byte' if same else 'different'}.")


def paper_section(variants, s16, stragglers, stragglers_scaled):
    """The paper's headline claims beside ours; `variants`: (label, setting, sync_switch runs)."""
    def vs_bsp(setting, runs):
        gap = (mean_final(runs) - mean_final(setting.bsp)) * 100
        speedup = mean_or_none(setting.speedups(runs))
        speed = "not reached on every seed" if speedup is None else f"{speedup:.2f}×"
        return f"{speed}, {gap:+.2f} points"

    def vs_asp(setting, runs):
        asp = setting.runs["asp"]
        gap = (mean_final(runs) - mean_final(asp)) * 100
        ratio = statistics.mean(r.summary["total_time"] for r in runs) / statistics.mean(
            r.summary["total_time"] for r in asp)
        return f"{gap:+.2f} points at {ratio:.2f}× its time"

    def per_variant(describe):
        return "; ".join(f"{label}: {describe(setting, runs)}" for label, setting, runs in variants)

    def online_vs_none(setting, none_name):
        online = [n for n in setting.runs if ":online=" in n]
        none = setting.runs[none_name]
        return "; ".join(
            f"`{n}` {vs_bsp(setting, setting.runs[n])} vs BSP, speed-up over `{none_name}` "
            f"{spread(setting.speedups(setting.runs[n], base=none), 2)}"
            for n in online)

    straggler_text = (online_vs_none(stragglers, "sync_switch") + "; "
                      + online_vs_none(stragglers_scaled, "sync_switch:momentum_rule=scaled"))
    rows = [
        ["up to 5.13× less time than BSP at similar accuracy (91.7% vs 91.9%; ResNet-32, "
         "CIFAR-10, 8 workers)",
         "speed-up to BSP's final − 0.5 pt, and final accuracy vs BSP: "
         + per_variant(vs_bsp)],
        ["+3.8 points over ASP at 1.23× its time", "final accuracy vs ASP, and total time: "
         + per_variant(vs_asp)],
        ["works with 16 workers, where ASP diverged",
         f"16 workers: ASP does not diverge; it ends "
         f"{(mean_final(s16.runs['asp']) - mean_final(s16.bsp)) * 100:+.2f} points from BSP"],
        ["switch overhead as low as 1.7%",
         "on the simulator, one model pull a switch: "
         + (overhead_text(list({id(r): r for r in sync_switch_runs(stragglers)
                                + sync_switch_runs(stragglers_scaled)
                                + [r for _, _, runs in variants for r in runs]}.values()))
            or "no run switched")],
        ["~1.1× speed-up under transient stragglers",
         f"8 workers, to BSP's final − 0.5 pt: {straggler_text}"],
    ]
    return table(["paper (Li et al.)", "hetps, this experiment (means over seeds 1–3)"], rows)


SETTINGS = {
    "hetero-compute-8w": "hetero-compute, 8 workers",
    "hetero-compute-16w": "hetero-compute, 16 workers",
    "stragglers-8w": "hetero-compute with random transient stragglers, 8 workers "
                     "(rate 0.5/min per worker, mean 10 s, slowdown 2–5×)",
    "stragglers-scaled-8w": "the same stragglers, 8 workers, every ASP phase with momentum "
                            "`scaled` and x searched under `scaled`",
}


def setting_sections(key, setting):
    sync_entries = [n for n in setting.runs if n.startswith("sync_switch")]
    return [f"### {SETTINGS[key]}", setting_table(setting),
            " ".join(against_bsp(setting, n)
                     for n in [b for b in ("asp", "ssp") if b in setting.runs] + sync_entries),
            overhead_note(setting)]


def switch_variants(out, s8, s16):
    """(label, setting, sync_switch runs) for each rule's searched x that switches."""
    variants = []
    for rule in ("ramped", "scaled"):
        for workers, setting in ((8, s8), (16, s16)):
            runs = (setting.runs["sync_switch"] if rule == "ramped"
                    else scaled_searched_runs(out, workers))
            if runs:
                variants.append((f"{workers} workers, `{rule}`, x = {bsp_fraction(runs):g}",
                                 setting, runs))
    return variants


def report(out):
    settings = {}
    for key in SETTINGS:
        runs = load_comparison(out / key)
        settings[key] = Setting(runs, runs["bsp"])
    s8, s16 = settings["hetero-compute-8w"], settings["hetero-compute-16w"]
    scaled_16w = scaled_searched_runs(out, 16)
    sections = ["### The searches (seed 101)",
                "\n\n".join(search_section(out, f"tune-{rule}-{w}w", w, rule)
                            for rule in ("ramped", "scaled") for w in (8, 16)),
                "Acceptance 3: " + " ".join(reproduction(out, rule)
                                            for rule in ("ramped", "scaled"))]
    for key, setting in settings.items():
        sections += setting_sections(key, setting)
    sections += ["### Acceptance 2 (hetero-compute, 16 workers, means over seeds 1–3)",
                 acceptance_2(s16, s16.runs["sync_switch"], "ramped") + " "
                 + (acceptance_2(s16, scaled_16w, "scaled") if scaled_16w else
                    "The search under `scaled` chose no switch either.") + " "
                 + asp_verdict(s16),
                 "### Beside the paper's claims",
                 paper_section(switch_variants(out, s8, s16), s16, settings["stragglers-8w"],
                               settings["stragglers-scaled-8w"]),
                 "### The momentum rules at the switch", collapse_check(out, s8.bsp),
                 momentum_section(out, 8, s8), momentum_section(out, 16, s16)]
    return wrap(sections)


if __name__ == "__main__":
    experiment_runs.main(__doc__, report, BEGIN_MARKER, END_MARKER)
