#!/bin/bash
# Issue 57, point 2: sequential MNIST (784 pixel steps), RDA/RWA/LSTM/GRU at the
# paper's sizes (250 units, batch 100), 3 seeds, the package's recommended
# settings (the zoo's), JAX on one GPU. One process per (run, seed), all at
# once, each cut at the time budget; then benchmarks/gpu/mnist_collect.py builds the
# compare records from the checkpoints, every run's curve cut at the step all
# of them (all records together) reached, so the models are compared after
# the same training.
# Runs (MNIST_RUNS, space-separated; default all six):
#   rda, rwa, lstm, gru: the zoo's settings (rda also with `--diagnose`);
#   rda-paper-clip: the RDA with the paper's optimiser settings (clipvalue 1,
#     lr 1e-3), the setting under which it collapsed (issue 57 point 1);
#   rda-discount4: the same as rda-paper-clip with the discount gate's bias
#     started at 4 (sigmoid(4) = 0.98 per step, not the paper's 0.73), to
#     test whether that start prevents the RDA's falls to chance.
# The RDA runs log the diagnostics of `--diagnose` (gradient norm, attention
# logits, discount, running maximum, tail weight) in their curves.
# E.g. MNIST_RUNS="rda-paper-clip rda-discount4" (6 processes with 3 seeds)
# gives each run more steps in the same time. SEEDS="0 1 2" by default.
# Writes (each only when one of its runs reached an evaluation):
#   $OUT/mnist-compare.json    (rda, rwa, lstm, gru),
#   $OUT/mnist-paper-clip.json (rda-paper-clip),
#   $OUT/mnist-discount4.json  (rda-discount4).
# Afterwards, in the repository (records, then the RDA page's verdict table):
#   cp $OUT/mnist-compare.json    results/rda_paper/mnist-3seeds-gpu.json
#   cp $OUT/mnist-paper-clip.json results/rda_paper/mnist-paper-clip-gpu.json
# On the lent GPU machine (KERAS_BACKEND defaults to jax here; the repository
# root goes on PYTHONPATH), carrying the Keras wheels in .whl and the digits
# (mnist_5k.csv.gz) in .gpu/data, both git-ignored, e.g. in one 600 s call:
#   python3 -m pip install -q --no-index --no-deps --no-compile \
#     --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site KERAS_RDA_DATA_DIR=$PWD/.gpu/data || exit
#   nvidia-cuda-mps-control -d; OUT=$OUT GPU_BUDGET_S=490 \
#     MNIST_SAVE=1 MNIST_RUNS="rda-paper-clip rda-discount4" bash benchmarks/gpu/mnist.sh
# Across sessions (a lent machine starts bare, and 15 minutes of device
# time is about 3,000 steps of these runs): MNIST_SAVE=1 also writes the
# runs' checkpoints and command lines to $OUT/mnist57-state.tar.part-aa,
# -ab, ... (15 MiB pieces, what a call can bring back); keep them in an
# ignored folder here (e.g. .gpu/mnist57; empty it first, a stale piece
# would corrupt the archive) and name it in the next call's carry and in
# MNIST_FROM=.gpu/mnist57: the runs then resume from those checkpoints
# (with the same MNIST_RUNS and SEEDS) and go on to MNIST_STEPS (default
# 20,000; 10,000 for issue 57). The 12 runs of
# results/rda_paper/mnist-start4-3seeds-gpu.json go on with
#   MNIST_FROM=.gpu/mnist57 MNIST_SAVE=1 MNIST_STEPS=10000 \
#     MNIST_RUNS="rda-discount4 rwa lstm gru" SEEDS="0 1 2"
# Dry run on a CPU (6 steps, 8 units, digits pooled 7x7 into 16 steps, seed 0):
#   GPU_DRY_RUN=1 OUT=/tmp/out_mnist bash benchmarks/gpu/mnist.sh
#   (MNIST_RUNS and SEEDS apply there too). Each run's command line goes
#   to $TMPDIR/mnist57/NAME-SEED.cmd shell-quoted (the JSON of --model-arg
#   included), and the records' commands are those lines.
# The committed records ran on one H200 with NVIDIA MPS on (started with
# `nvidia-cuda-mps-control -d`, so the 15 processes' kernels overlap) and
# XLA_PYTHON_CLIENT_PREALLOCATE=false, GPU_BUDGET_S=315, then the same
# command again with GPU_BUDGET_S=370 (the runs resumed from their
# checkpoints in $TMPDIR/mnist57: MNIST_RESUME=1 keeps that folder, which
# is otherwise emptied first), with the five runs of that time (no
# rda-discount4). Their RDA ("rda") clipped the global
# norm at 1, the zoo's setting then; the zoo now keeps the paper's clip, so
# "rda" and "rda-paper-clip" now train alike, and the records' "rda" runs
# are reproduced by adding `--global-clipnorm 1` to their line below.
set -u
: "${OUT:?set OUT}"
START=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUDGET=${GPU_BUDGET_S:-335}          # seconds for training; collecting follows (<= 60 s)
W=${TMPDIR:-/tmp}/mnist57
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2
export KERAS_BACKEND=${KERAS_BACKEND:-jax}
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
# Up to 18 processes on 16 cores: one BLAS thread each (the diagnostics use NumPy).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
PY=${PYTHON:-python3}
. "$ROOT/benchmarks/gpu/common.sh"
DISCOUNT4='discount_bias_initializer={"class_name": "Constant", "config": {"value": 4.0}}'
# MNIST_OTHERS (the older knob) still picks the non-RDA models of the default.
RUNS=${MNIST_RUNS:-rda ${MNIST_OTHERS-rwa lstm gru} rda-paper-clip rda-discount4}
for name in $RUNS; do
  case $name in
    rda | rwa | lstm | gru | rda-paper-clip | rda-discount4) ;;
    *) echo "MNIST_RUNS: unknown run '$name' (rda rwa lstm gru rda-paper-clip rda-discount4)" >&2
       exit 2 ;;
  esac
done
if [ "${GPU_DRY_RUN:-0}" = 1 ]; then
  STEPS=${MNIST_STEPS:-6}; EVERY=2; EXTRA="--task-arg pool=7 --units 8 --eval-examples 20"
  BUDGET=${GPU_BUDGET_S:-200}; SEEDS=${SEEDS:-0}
else
  STEPS=${MNIST_STEPS:-20000}; EVERY=${MNIST_EVERY:-250}; EXTRA=""
fi
[ "${MNIST_RESUME:-0}" = 1 ] || [ -n "${MNIST_FROM:-}" ] || rm -rf "$W"
mkdir -p "$W" "$OUT"
# The state a former call saved (MNIST_SAVE=1).
[ -z "${MNIST_FROM:-}" ] || restore_state "$MNIST_FROM" "$W" mnist57-state MNIST_FROM
run() {  # NAME MODEL SEED [more options]
  local name=$1 m=$2 s=$3; shift 3
  echo "keras-rda compare mnist --scale paper --models $m --seed $s --eval-every $EVERY --jit $EXTRA $(quote "$@")" \
    > "$W/$name-$s.cmd"
  local left=$((BUDGET - ($(date +%s) - START)))
  timeout --signal=TERM --kill-after=10 "$left" $PY -m keras_rda.lab.cli \
    compare mnist --scale paper --models "$m" --seed "$s" --steps "$STEPS" \
    --eval-every "$EVERY" --jit --name "mnist-$name" $EXTRA "$@" \
    --out "$W/$name-$s" --results-dir "$W/rec-$name-$s" --verbose 2 \
    > "$W/$name-$s.log" 2>&1
  echo "$name seed $s: exit $? after $(( $(date +%s) - START )) s"
}
start() {  # NAME SEED: one run in the background
  local name=$1 s=$2
  case $name in
    rda) run rda rda "$s" --diagnose & ;;
    rda-paper-clip) run "$name" rda "$s" --clipvalue 1 --learning-rate 0.001 --diagnose & ;;
    rda-discount4)
      run "$name" rda "$s" --clipvalue 1 --learning-rate 0.001 --diagnose \
        --model-arg "$DISCOUNT4" & ;;
    *) run "$name" "$name" "$s" & ;;
  esac
}
for s in ${SEEDS:-0 1 2}; do
  for name in $RUNS; do start "$name" "$s"; done
done
wait
timeout 60 $PY "$ROOT/benchmarks/gpu/mnist_collect.py" "$W" "$OUT/mnist-compare.json" || echo "collect failed"
if [ "${MNIST_SAVE:-0}" = 1 ]; then  # checkpoints and commands, for MNIST_FROM
  save_state "$W" "$OUT" mnist57-state
fi
for f in "$W"/*.log; do echo "== $f"; grep -v "^I0000\|^WARNING: All log" "$f" | grep "step \|rror" | tail -3; done
echo "mnist.sh done after $(( $(date +%s) - START )) s"
