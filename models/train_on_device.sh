#!/usr/bin/env bash
# Train the card model on a lent GPU machine in one call (<= 9 minutes), see MODEL_CARD.md.
#
# Here, first (renders of the TRAINING designs, the held-out ones for evaluation only,
# and the overhead real photos for evaluation only; all under the git-ignored artifacts/pack/):
#   nice -n 15 env PYTHONPATH=$PWD .venv/bin/python -m models.pack_renders --split train --max-mib 36
#   nice -n 15 env PYTHONPATH=$PWD .venv/bin/python -m models.pack_renders --split eval --copy-real-win
# Then the device call (run tool): command "bash models/train_on_device.sh", carry ["artifacts/pack"].
# Results land in $OUT: cards.onnx, loc.pt, cls.pt, train_stats.json, eval_new/, eval_shipped/.
#
#   bash models/train_on_device.sh [--dry-run] [--minutes M] [any models.device_train option]
# --dry-run: toy sizes on the CPU in seconds (tests/models/test_device_train.py runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-artifacts/device}"
mkdir -p "$OUT"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
REAL=()
if [ -d artifacts/pack/real_win/images ]; then REAL=(--real artifacts/pack/real_win); fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
"$PY" -c "import torch, onnx, onnxruntime, cv2" 2>/dev/null || {
  echo "error: train_on_device.sh needs torch, onnx, onnxruntime and opencv importable by $PY" >&2
  exit 2
}
set -o pipefail
"$PY" -m models.device_train --out "$OUT" "${REAL[@]}" "$@" 2>&1 | tee "$OUT/train.log"
