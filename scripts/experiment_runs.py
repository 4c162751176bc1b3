"""What the experiment reports (scripts/*_report.py) share: the runs of a `hetps compare`
directory, and the formatting of their tables into a doc between two markers.

Times are virtual seconds of the simulator; accuracies are test accuracies.
"""
import csv
import json
import statistics
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Run:
    name: str  # the --protocols entry
    seed: int
    directory: Path
    summary: dict
    records: list

    @property
    def final(self):
        return self.summary["final_accuracy"]

    def records_of(self, kind):
        return [r for r in self.records if r["type"] == kind]

    def first_eval_at(self, accuracy):
        """The first evaluation at or above `accuracy`; None if none is."""
        return next((e for e in self.records_of("eval") if e["test_accuracy"] >= accuracy), None)

    def time_to(self, accuracy):
        """The time of the first evaluation at or above `accuracy`; None if none is."""
        reached = self.first_eval_at(accuracy)
        return None if reached is None else reached["time"]

    def config(self):
        with open(self.directory / "config.toml", "rb") as f:
            return tomllib.load(f)


def load_run(name, seed, directory):
    records = [json.loads(line) for line in (directory / "log.jsonl").read_text().splitlines()]
    summary = json.loads((directory / "summary.json").read_text())
    return Run(name, seed, directory, summary, records)


def load_comparison(directory):
    """{entry: [runs by seed]} in the order of the --protocols list."""
    runs = {}
    with open(directory / "summary.csv", newline="") as f:
        for row in csv.DictReader(f):
            run = load_run(row["run_name"], int(row["seed"]), directory / row["directory"])
            runs.setdefault(run.name, []).append(run)
    return runs


def load_settings(out, settings, parts):
    """{setting: its entries} for every setting whose comparisons OUT/SETTING-PART, one per
    part, have all run, merged in the order of `parts`."""
    loaded = {}
    for name in settings:
        directories = [out / f"{name}-{part}" for part in parts]
        if all((directory / "summary.csv").exists() for directory in directories):
            loaded[name] = {}
            for directory in directories:
                loaded[name].update(load_comparison(directory))
    return loaded


def setting_sections(settings, loaded, setting_table):
    """A heading and setting_table(entries) per setting that ran, then a line naming those
    that did not."""
    sections = []
    for name, comparison in loaded.items():
        sections += [f"### {name}", setting_table(comparison)]
    not_run = [name for name in settings if name not in loaded]
    if not_run:
        sections += ["Not run in this regeneration: " + ", ".join(not_run) + "."]
    return sections


def to_level(runs, levels, key):
    """Per seed, `key` of the first evaluation at that seed's level (`levels` by seed); None
    where never reached."""
    evals = [run.first_eval_at(levels[run.seed]) for run in runs]
    return [None if e is None else e[key] for e in evals]


def level_cells(runs, levels):
    """The cells every experiment table shows for one entry's runs: final accuracy, time to the
    run's target and bytes to the server until then, time to `levels` (by seed) and bytes until
    then, samples per second."""
    targets = {run.seed: run.summary["target_accuracy"] for run in runs}
    return [
        spread([100 * run.final for run in runs], 2),
        spread([run.summary.get("time_to_target") for run in runs], 1),
        spread(to_level(runs, targets, "bytes_to_server"), 2, scale=1e-9),
        spread(to_level(runs, levels, "time"), 1),
        spread(to_level(runs, levels, "bytes_to_server"), 2, scale=1e-9),
        spread([run.summary["samples"] / run.summary["total_time"] for run in runs], 0),
    ]


# ---- formatting -------------------------------------------------------------------------------

def spread(values, digits, scale=1.0, having="reached"):
    """'mean (min–max)' over the seeds that have a value, '—' when none has; when some lack one,
    '(k/n reached)', in the words of `having`."""
    present = [v * scale for v in values if v is not None]
    if not present:
        return f"— (0/{len(values)})"
    text = f"{statistics.mean(present):.{digits}f}"
    low, high = f"{min(present):.{digits}f}", f"{max(present):.{digits}f}"
    if low != high:
        text += f" ({low}–{high})"
    if len(present) < len(values):
        text += f" ({len(present)}/{len(values)} {having})"
    return text


def mean_or_none(values):
    """The mean when every seed has a value, else None."""
    present = [v for v in values if v is not None]
    return statistics.mean(present) if len(present) == len(values) else None


def wrap(blocks):
    """Blank-line-separated blocks; prose wrapped at the docs' 100 columns, tables kept whole."""
    return "\n\n".join(
        b if b.startswith("|") else textwrap.fill(b, 100, break_long_words=False,
                                                  break_on_hyphens=False)
        for block in blocks for b in block.split("\n\n"))


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def splice(doc, fragment, begin_marker, end_marker):
    """Replaces the text between DOC's two markers with `fragment`; the rest of DOC is kept."""
    text = doc.read_text()
    begin, end = text.find(begin_marker), text.find(end_marker)
    if begin < 0 or end < begin:
        sys.exit(f"{doc}: expected the markers '{begin_marker}' and then '{end_marker}'")
    doc.write_text(text[:begin + len(begin_marker)] + "\n" + fragment + "\n" + text[end:])


def main(usage, report, begin_marker, end_marker):
    """A report script's command line, `SCRIPT OUT_DIR DOC`: writes report(OUT_DIR) into DOC
    between the markers; prints `usage` for any other arguments."""
    if len(sys.argv) != 3:
        sys.exit(usage)
    splice(Path(sys.argv[2]), report(Path(sys.argv[1])), begin_marker, end_marker)
