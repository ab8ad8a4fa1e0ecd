#!/bin/sh
# knobscope-sim with a truth log of its own for every start, in $KS_POWER_TRUTH_DIR
# (bench/power.py). The path stays out of the server command, so every start of a
# setting has the same command and an A/A calibration speaks for all of them.
#   power-sim.sh SIM [knobscope-sim flags...]
: "${KS_POWER_TRUTH_DIR:?power-sim.sh: set KS_POWER_TRUTH_DIR to the truth logs folder}"
exec "$@" --truth-log "$KS_POWER_TRUTH_DIR/truth-$(date +%s%N)-$$.jsonl"
