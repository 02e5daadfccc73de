#!/bin/bash
# Issue 57, points 3 and 4, at the paper's sizes, JAX on one GPU:
#   classify-length (RDA paper 6.3, Table 2), each run until held-out
#     accuracy 1.0 on 100 sequences or CL_STEPS (2,500) steps:
#     length-rda, length-rwa, length-lstm, length-gru (the zoo's settings)
#     and length-rda-discount4 (the RDA with its discount gate's bias started
#     at 4, sigmoid(4) = 0.98 per step, not the paper's 0.73: does the start
#     that stopped the RDA's stall on sequential MNIST also shorten its ~550
#     steps at chance here, where sequences run to 1,000 steps?);
#   classify-by-length (RWA paper 3.3), CBL_STEPS (1,200) steps:
#     by-length-rwa, by-length-lstm.
# CLASSIFY_RUNS picks the runs (space-separated; default the five
# classify-length ones), SEEDS the seeds ("0 1 2"). One process per (run,
# seed), all at once (NVIDIA MPS on lets their kernels overlap), each cut at
# the time budget GPU_BUDGET_S; then benchmarks/gpu/classify_collect.py builds
# one record per group from the checkpoints (a cut run keeps its curve so far
# and is marked "partial"):
#   $OUT/classify-length.json, $OUT/classify-length-discount4.json,
#   $OUT/classify-by-length.json.
# Across sessions: CLASSIFY_SAVE=1 writes the checkpoints and command lines
# to $OUT/classify57-state.tar.part-* (benchmarks/gpu/common.sh); keep them
# in an emptied ignored folder (e.g. .gpu/classify57) and carry it: with
# CLASSIFY_FROM=.gpu/classify57 the runs resume (same CLASSIFY_RUNS and
# SEEDS), and the finished ones stay done.
# On the lent machine, carrying the Keras wheels (.whl) and nothing else:
#   python3 -m pip install -q --no-index --no-deps --no-compile \
#     --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site || exit; nvidia-cuda-mps-control -d
#   OUT=$OUT GPU_BUDGET_S=480 CLASSIFY_SAVE=1 bash benchmarks/gpu/classify.sh
# Dry run on a CPU (4 steps, 8 units, sequences up to 20 steps, seed 0):
#   GPU_DRY_RUN=1 OUT=/tmp/out_classify bash benchmarks/gpu/classify.sh
set -u
: "${OUT:?set OUT}"
START=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUDGET=${GPU_BUDGET_S:-330}          # seconds for training; collecting follows (<= 45 s)
W=${TMPDIR:-/tmp}/classify57
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2
export KERAS_BACKEND=${KERAS_BACKEND:-jax}
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
PY=${PYTHON:-python3}
. "$ROOT/benchmarks/gpu/common.sh"
DISCOUNT4='discount_bias_initializer={"class_name": "Constant", "config": {"value": 4.0}}'
RUNS=${CLASSIFY_RUNS:-length-rda length-rwa length-lstm length-gru length-rda-discount4}
for run in $RUNS; do
  case $run in
    length-rda | length-rwa | length-lstm | length-gru | length-rda-discount4 | \
      by-length-rwa | by-length-lstm) ;;
    *) echo "CLASSIFY_RUNS: unknown run '$run' (length-rda length-rwa length-lstm length-gru length-rda-discount4 by-length-rwa by-length-lstm)" >&2
       exit 2 ;;
  esac
done
if [ "${GPU_DRY_RUN:-0}" = 1 ]; then
  CL_STEPS=${CL_STEPS:-4}; CBL_STEPS=${CBL_STEPS:-4}; EVERY=2; EXTRA="--seq-len 20 --units 8"
  SEEDS=${SEEDS:-0}
else
  CL_STEPS=${CL_STEPS:-2500}; CBL_STEPS=${CBL_STEPS:-1200}; EVERY=25; EXTRA=""
fi
if [ -n "${CLASSIFY_FROM:-}" ]; then  # the state a former call saved (CLASSIFY_SAVE=1)
  restore_state "$CLASSIFY_FROM" "$W" classify57-state CLASSIFY_FROM
else
  rm -rf "$W"; mkdir -p "$W"
fi
mkdir -p "$OUT"
train() {  # RUN SEED TASK NAME MODEL STEPS [more options]
  local run=$1 s=$2 task=$3 name=$4 m=$5 steps=$6; shift 6
  echo "keras-rda compare $task --scale paper --models $m --seed $s --steps $steps --eval-every $EVERY --jit $EXTRA $(quote "$@")" \
    > "$W/$name--$m-$s.cmd"
  local left=$((BUDGET - ($(date +%s) - START)))
  timeout --signal=TERM --kill-after=10 "$left" $PY -m keras_rda.lab.cli \
    compare "$task" --scale paper --models "$m" --seed "$s" --steps "$steps" \
    --eval-every "$EVERY" --jit --name "$name" $EXTRA "$@" \
    --out "$W/$run-$s" --results-dir "$W/rec-$run-$s" --verbose 2 \
    >> "$W/$run-$s.log" 2>&1
  echo "$run seed $s: exit $? after $(( $(date +%s) - START )) s"
}
start() {  # RUN SEED: one run in the background
  local run=$1 s=$2
  case $run in
    length-rda-discount4)
      train "$run" "$s" classify-length classify-length-discount4 rda "$CL_STEPS" \
        --until-threshold --model-arg "$DISCOUNT4" & ;;
    length-*) train "$run" "$s" classify-length classify-length "${run#length-}" \
      "$CL_STEPS" --until-threshold & ;;
    by-length-*) train "$run" "$s" classify-by-length classify-by-length \
      "${run#by-length-}" "$CBL_STEPS" & ;;
  esac
}
for s in ${SEEDS:-0 1 2}; do
  for run in $RUNS; do start "$run" "$s"; done
done
wait
timeout 45 $PY "$ROOT/benchmarks/gpu/classify_collect.py" "$W" "$OUT" || echo "collect failed"
[ "${CLASSIFY_SAVE:-0}" != 1 ] || save_state "$W" "$OUT" classify57-state
for f in "$W"/*.log; do echo "== $f"; grep -v "^I0000\|^WARNING: All" "$f" | grep "step \|rror" | tail -2; done | tail -60
echo "classify.sh done after $(( $(date +%s) - START )) s"
