#!/bin/bash
# Issue 57, points 3 and 4 (paper sizes, JAX on one GPU, seeds 0, 1, 2):
#   classify-length (RDA paper 6.3, Table 2): rda, rwa, lstm, gru, each run
#     until held-out accuracy 1.0 on 100 sequences;
#   classify-by-length (RWA paper 3.3): rwa, lstm.
# Six workers (one per task and model, its seeds in turn) share the GPU with
# the other scripts. Each trains its 3 seeds to a first step count, then,
# while time is left, reruns the same command with twice the steps (the runs
# resume from their checkpoints; a run that met its threshold stays done).
# Everything is cut at the time budget; benchmarks/gpu/classify_collect.py then builds
# one record per task from the checkpoints (a cut run keeps its curve so far
# and is marked "partial").
# Writes: $OUT/classify-classify-length.json, $OUT/classify-classify-by-length.json
# Dry run on a CPU: GPU_DRY_RUN=1 OUT=/tmp/out_classify bash benchmarks/gpu/classify.sh
set -u
: "${OUT:?set OUT}"
START=$(date +%s)
BUDGET=${GPU_BUDGET_S:-330}          # seconds for training; collecting follows
W=${TMPDIR:-/tmp}/classify57
rm -rf "$W"; mkdir -p "$W" "$OUT"
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2
PY=${PYTHON:-python3}
SEEDS=${SEEDS:-0,1,2}
if [ "${GPU_DRY_RUN:-0}" = 1 ]; then
  CL_STEPS=2; CL_MAX=4; CBL_STEPS=2; CBL_MAX=4; EVERY=2; EXTRA="--seq-len 20 --units 8"
  BUDGET=${GPU_BUDGET_S:-330}; SEEDS=${DRY_SEEDS:-0}; MIN_LEFT=20
else
  CL_STEPS=${CL_STEPS:-200}; CL_MAX=${CL_MAX:-1600}
  CBL_STEPS=${CBL_STEPS:-150}; CBL_MAX=${CBL_MAX:-1200}; EVERY=25; EXTRA=""; MIN_LEFT=60
fi
left() { echo $((BUDGET - ($(date +%s) - START))); }
worker() {  # TASK MODEL FIRST_STEPS MAX_STEPS [more options]
  local task=$1 m=$2 steps=$3 max=$4; shift 4
  while :; do
    echo "keras-rda compare $task --scale paper --models $m --seeds $SEEDS --steps $steps --eval-every $EVERY --jit --name $task $EXTRA $*" > "$W/$task--$m.cmd"
    timeout --signal=TERM --kill-after=10 "$(left)" $PY -m keras_rda.lab.cli \
      compare "$task" --scale paper --models "$m" --seeds "$SEEDS" --steps "$steps" \
      --eval-every "$EVERY" --jit --name "$task" $EXTRA "$@" \
      --out "$W/$task-$m" --results-dir "$W/rec-$task-$m" --verbose 2 \
      >> "$W/$task-$m.log" 2>&1
    local rc=$?
    echo "$task $m: $steps steps, exit $rc, $(( $(date +%s) - START )) s in"
    [ $rc -eq 0 ] && [ "$(left)" -gt $MIN_LEFT ] && [ $((steps * 2)) -le $max ] || break
    steps=$((steps * 2))
  done
}
for m in rda rwa lstm gru; do worker classify-length $m $CL_STEPS $CL_MAX --until-threshold & done
for m in rwa lstm; do worker classify-by-length $m $CBL_STEPS $CBL_MAX & done
wait
timeout 45 $PY benchmarks/gpu/classify_collect.py "$W" "$OUT" || echo "collect failed"
for f in "$W"/*.log; do echo "== $f"; grep -v "^I0000\|^WARNING: All" "$f" | tail -3; done | tail -60
echo "classify.sh done after $(( $(date +%s) - START )) s"
