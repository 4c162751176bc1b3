#!/usr/bin/env python3
"""The sweep that chose SaPus' defaults (spec/sapus.md, "Defaults"; issue 7).

On the simulator, on a cluster that is neither of the scenarios SaPus is judged on: 8 workers of
mixed speeds *and* mixed links (SWEEP_CLUSTER below). One parameter at a time, in the order of
SWEEP, each holding the values already chosen, by the rule of scripts/protocol_sweep.py; means
over seeds 1 and 2.

    scripts/sweep_sapus.py [OUT_DIR] [SETTING ...]   (default runs/sweep-sapus; HETPS=build/hetps)

Each SETTING (KEY=VALUE, as hetps' --set takes it) is added to every run, e.g.
train.eval_interval=0.5 for a finer grid of times to target.

Writes OUT_DIR/sweep.md (the table and the chosen values) and prints it. Runs already in
OUT_DIR are reused; delete it after changing hetps.
"""
import sys

import protocol_sweep

# hetero-compute's model, data, budget and compute, with other speeds and links: three speed
# classes and four link classes, so that both the performance model and the threshold matter.
SWEEP_CLUSTER = [
    "cluster.scenario=hetero-compute",
    "cluster.speeds=[1, 1, 1, 0.7, 0.7, 0.5, 0.5, 0.3]",
    "cluster.link_gbps=[10, 10, 10, 5, 5, 2, 1, 1]",
    "cluster.link_latency_ms=[0.05, 0.05, 0.05, 0.2, 0.2, 0.5, 1, 1]",
    # The training settings both sweeps ran with (local SGD's hetero-compute row), pinned: a
    # later change of a scenario's row must not change what they reproduce.
    "train.lr=0.05",
    "train.momentum=0.9",
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

if __name__ == "__main__":
    protocol_sweep.sweep(protocol_sweep.out_dir_or_usage(__doc__, "runs/sweep-sapus"),
                         SWEEP_CLUSTER + ["protocol.name=sapus"] + sys.argv[2:], SEEDS, START,
                         SWEEP)
