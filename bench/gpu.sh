#!/usr/bin/env bash
# The GPU run in one go (at most 10 minutes): install what the benchmark needs, then time
# nanogpt-gpu and gpu-speedrun to val loss 1.47 on CUDA and write the figures as JSON.
#
#   bash bench/gpu.sh [OUT_DIR]        (OUT_DIR defaults to $OUT, else bench/gpu-results)
#
# Writes OUT_DIR/gpu.json (the rows: seconds to 1.47, tokens/s, MFU against the GPU's bf16
# matmul peak measured in the same run), OUT_DIR/gpu.txt (the printed table) and
# OUT_DIR/nvidia-smi.txt. Uses an existing CUDA torch when there is one, else pip's default
# torch (a CUDA build on Linux).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR="${1:-${OUT:-bench/gpu-results}}"
mkdir -p "$OUT_DIR"
PY="${PYTHON:-python3}"
nvidia-smi > "$OUT_DIR/nvidia-smi.txt" 2>&1 || echo "nvidia-smi not found" > "$OUT_DIR/nvidia-smi.txt"
if ! "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    "$PY" -m venv .venv-gpu
    PY=.venv-gpu/bin/python
    "$PY" -m pip install -q "torch>=2.9" -r requirements.txt
fi
"$PY" -m pip install -q -r requirements.txt 2>/dev/null || true  # already met: nothing to do
timeout 540 "$PY" -m bench --only gpu --out "$OUT_DIR/gpu.json" | tee "$OUT_DIR/gpu.txt"
