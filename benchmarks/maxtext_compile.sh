#!/usr/bin/env bash
# maxtext_compile.sh -- reference figures from MaxText for side-by-side comparison.
#
# Creates a Python 3.12 venv (if missing) with maxtext[tpu]==0.2.5 (brings jax
# 0.12 + libtpu; no TensorFlow), then AOT-compiles MaxText's train step for a
# v5e-256 topology on this CPU-only machine with
# maxtext.trainers.pre_train.train_compile, dumping the train step's HLO text
# (the *.jit_train_step.*.after_optimizations.txt file) to
# $DUMP_ROOT/<model>_<remat>/. MaxText prints "Cost analysis: {...'flops'...}"
# and "Memory analysis: CompiledMemoryStats(...)" (per chip) at the end; all
# output goes to $LOG_ROOT/<model>_<remat>.log.
#
# Usage: benchmarks/maxtext_compile.sh MODEL_NAME REMAT_POLICY
#   e.g. benchmarks/maxtext_compile.sh llama2-7b full
#        benchmarks/maxtext_compile.sh llama2-7b minimal
#        benchmarks/maxtext_compile.sh gemma-7b full
# Env overrides: VENV (/work/maxtext-env), PY312 (pyenv 3.12.1 python),
#   DUMP_ROOT (/tmp/maxtext_dump), LOG_ROOT (/tmp/maxtext_runs).
# Runs under `nice -n 19`; run one compile at a time.
set -euo pipefail

MODEL=${1:?usage: $0 MODEL_NAME REMAT_POLICY}
REMAT=${2:?usage: $0 MODEL_NAME REMAT_POLICY}
VENV=${VENV:-/work/maxtext-env}
PY312=${PY312:-/root/.pyenv/versions/3.12.1/bin/python}
DUMP_ROOT=${DUMP_ROOT:-/tmp/maxtext_dump}
LOG_ROOT=${LOG_ROOT:-/tmp/maxtext_runs}

if [ ! -x "$VENV/bin/python" ]; then
  "$PY312" -m venv "$VENV"
fi
if [ "$("$VENV/bin/python" -m pip show maxtext 2>/dev/null | sed -n 's/^Version: //p')" != "0.2.5" ]; then
  nice -n 19 "$VENV/bin/python" -m pip install --upgrade pip
  nice -n 19 "$VENV/bin/python" -m pip install "maxtext[tpu]==0.2.5"
fi

BASE_YML=$("$VENV/bin/python" -c 'import maxtext, os; print(os.path.join(os.path.dirname(maxtext.__file__), "configs", "base.yml"))')
RUN="${MODEL}_${REMAT}"
mkdir -p "$DUMP_ROOT/$RUN" "$LOG_ROOT"
LOG="$LOG_ROOT/$RUN.log"

# Run from $LOG_ROOT so MaxText's default ./maxtext_output lands there.
cd "$LOG_ROOT"
start=$(date +%s)
set +e
JAX_PLATFORMS=cpu \
XLA_FLAGS="--xla_dump_to=$DUMP_ROOT/$RUN --xla_dump_hlo_as_text --xla_dump_hlo_module_re=.*train_step.*" \
  nice -n 19 "$VENV/bin/python" -m maxtext.trainers.pre_train.train_compile "$BASE_YML" \
    model_name="$MODEL" compile_topology=v5e-256 compile_topology_num_slices=1 \
    per_device_batch_size=1 max_target_length=2048 remat_policy="$REMAT" \
  > "$LOG" 2>&1
rc=$?
set -e
echo "rc=$rc wall=$(( $(date +%s) - start ))s log=$LOG"
grep -E "^Memory analysis:" "$LOG" || true
grep -oE "'flops': [0-9.e+]+" "$LOG" || true
ls -l "$DUMP_ROOT/$RUN"/*jit_train_step*after_optimizations.txt 2>/dev/null || true
exit $rc
