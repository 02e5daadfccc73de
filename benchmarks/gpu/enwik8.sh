#!/usr/bin/env bash
# The enwik8 loop on JAX (issue 56, point 5): the paper preset's steps per
# second on this GPU (RDA, 1800 units, batch 100, bptt 250) and the projected
# time of its whole schedule (36,000 steps plus its evaluations).
#
# Writes $OUT/enwik8-jax_speed.json (the table record, rewritten after every
# round, so a cut run still leaves one) and $OUT/enwik8-run.log.
# GPU_DRY_RUN=1: the tiny preset, 2 short rounds (a check on a CPU).
set -u
: "${OUT:?set OUT to the output folder}"
cd "$(dirname "$0")/../.."
export KERAS_BACKEND=jax
# Other scripts share the GPU: take memory as needed, not 75% up front.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
export PYTHONPATH="${PYTHONPATH:-$PWD}"
export KERAS_RDA_DATA_DIR="${KERAS_RDA_DATA_DIR:-$PWD/../shared/data}"
if [ "${GPU_DRY_RUN:-0}" = 1 ]; then
    ARGS=(--scale tiny --steps 3 --repeats 2 --warmup 2 --eval-segments 1)
else
    ARGS=(--scale paper --steps 10 --repeats 7 --warmup 3 --eval-segments 2)
fi
LOG="$OUT/enwik8-run.log"
{
    echo "start $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
    nvidia-smi --query-gpu=name,memory.used,utilization.gpu --format=csv 2>/dev/null
} > "$LOG"
timeout -k 15 370 python3 benchmarks/enwik8_loop_speed.py --backends jax \
    --model rda "${ARGS[@]}" --json "$OUT/enwik8-jax_speed.json" \
    --record-path results/benchmarks/h200/jax_enwik8_speed.json >> "$LOG" 2>&1
echo "exit $? at $(date -u +%FT%TZ)" >> "$LOG"
