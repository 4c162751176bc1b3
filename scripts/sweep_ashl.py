#!/usr/bin/env python3
"""The sweep that chose ASHL's presets (issue 6: "ASHL's own presets are chosen on a scenario
other than the judged one and documented").

On the simulator, on the cluster SaPus' defaults were swept on (scripts/sweep_sapus.py): 8
workers of mixed speeds *and* mixed links, neither of the judged scenarios. One preset at a
time, in the order of SWEEP, each holding the values already chosen, by the rule of
scripts/protocol_sweep.py; means over seeds 1 and 2. A stage's presets must keep AHL the coarser
stage (h_preset_shl <= h_preset_ahl, r_preset_shl >= r_preset_ahl): hetps refuses the others, and
the table says so.

    scripts/sweep_ashl.py [OUT_DIR]        (default runs/sweep-ashl; HETPS=build/hetps)

Writes OUT_DIR/sweep.md (the table and the chosen values) and prints it. Runs already in
OUT_DIR are reused; delete it after changing hetps.
"""
import sys

import protocol_sweep
from sweep_sapus import SWEEP_CLUSTER

SEEDS = [1, 2]
# The presets hetps had before this sweep, then each one's candidates, in the order swept: the
# local steps first (they set the rounds' length), then the stage switch, SHL's gap bound and
# last the compression, which trades accuracy for bytes.
START = {
    "h_preset_ahl": 8, "h_preset_shl": 2, "loss_preset": 0.3, "s_preset": 2,
    "r_preset_ahl": 0.1, "r_preset_shl": 0.5,
}
SWEEP = [
    ("h_preset_ahl", [4, 8, 16]),
    ("h_preset_shl", [1, 2, 4, 8]),
    ("loss_preset", [0.2, 0.3, 0.5]),
    ("s_preset", [1, 2, 4]),
    ("r_preset_ahl", [0.01, 0.1, 0.3]),
    ("r_preset_shl", [0.1, 0.5, 1]),
]

if __name__ == "__main__":
    protocol_sweep.sweep(protocol_sweep.out_dir_or_usage(__doc__, "runs/sweep-ashl"),
                         SWEEP_CLUSTER + ["protocol.name=ashl"], SEEDS, START, SWEEP)
