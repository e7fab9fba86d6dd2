#!/usr/bin/env bash
# GPU benchmark (issue 7), run on the GPU machine by scripts/device-check:
#   RINGBOOST=build-device/ringboost bash bench/gpu.sh OUTDIR
# The HIGGS-like 10M x 28 dense set (ten 1M-row files of ../shared/bench/gen_dense.py, seeds
# 1..10, read as one data set), max_depth=8, max_bin=256, eta=0.1: seconds per round with
# device=cuda over 100 and 500 rounds and with device=cpu nthread=2 over 5 rounds (the per-round
# times of `verbosity=2`, host clock; the device trainer synchronizes at the end of each round),
# the card's device-to-device copy bandwidth (torch, CUDA events), the floor of one round (the
# bytes a depth-8 round must move at least, over that bandwidth) and, where Nsight Compute reads
# the counters, the time of each kernel (kernels.csv).
set -euo pipefail
OUT="${1:-out}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RINGBOOST="${RINGBOOST:-$ROOT/build/ringboost}"
GEN="$ROOT/../shared/bench/gen_dense.py"
DATA="${DATA:-/tmp/higgs10m}"
mkdir -p "$OUT" "$DATA"
if [[ ! -f "$DATA.done" ]]; then
  pids=()
  for s in $(seq 1 10); do python3 "$GEN" 1000000 "$s" "$DATA/part-$s.libsvm" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done  # set -e: a failed generator stops here
  touch "$DATA.done"
fi
printf 'objective = binary:logistic\nmax_depth = 8\nmax_bin = 256\neta = 0.1\ndata = "%s"\nverbosity = 2\n' \
  "$DATA" >"$OUT/gpu.conf"
common=("$OUT/gpu.conf")
per_round() {  # mean of the round times after the first (which builds the matrix and cuts)
  grep -o 'round [0-9]*: [0-9.e-]* s' "$1" | awk 'NR > 1 {s += $3; n++} END {if (n) printf "%.5f", s / n}'
}
"$RINGBOOST" train "${common[@]}" device=cuda num_round=100 model_out="$OUT/cuda100.json" \
  >"$OUT/cuda100.log" 2>&1
"$RINGBOOST" train "${common[@]}" device=cuda num_round=500 model_out="$OUT/cuda500.json" \
  >"$OUT/cuda500.log" 2>&1
"$RINGBOOST" train "${common[@]}" device=cpu nthread=2 num_round=5 model_out="$OUT/cpu5.json" \
  >"$OUT/cpu5.log" 2>&1
# Time per kernel: Nsight Compute's per-kernel summary of 3 rounds (where ncu can read the
# counters; on some runtimes it cannot, and the rest still runs).
if command -v ncu >/dev/null; then
  ncu --print-summary per-kernel --csv "$RINGBOOST" train "${common[@]}" device=cuda num_round=3 \
    model_out="$OUT/ncu3.json" >"$OUT/kernels.csv" 2>"$OUT/ncu.err" || echo "ncu failed: see ncu.err"
fi
cat >"$OUT/bandwidth.py" <<'PY'
import torch
n = 1 << 30  # 1 GiB each way
a = torch.empty(n, dtype=torch.uint8, device="cuda"); b = torch.empty_like(a)
for _ in range(3): b.copy_(a)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []
for _ in range(20):
    s.record(); b.copy_(a); e.record(); e.synchronize(); times.append(s.elapsed_time(e) / 1e3)
times.sort()
print(f"{2 * n / times[len(times) // 2] / 1e9:.1f}")  # bytes read + written per second, GB/s
PY
bw="$(python3 "$OUT/bandwidth.py")"
# Floor per round, 10M rows x 28 one-byte bins, 16-byte quantized gradients, 4-byte row ids:
# histograms read every row's bins and gradient at the root and the smaller half below (levels
# 1-7: at most half the rows each), the partition reads the split feature's byte and moves a row
# id (read + write) per row and level, gradients are written once.
rows=10000000
floor_bytes=$(( rows * (28 + 16) + 7 * rows / 2 * (28 + 16) + 8 * rows * (1 + 8) + rows * 16 ))
{
  echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo "cuda s/round (100 rounds): $(per_round "$OUT/cuda100.log")"
  echo "cuda s/round (500 rounds): $(per_round "$OUT/cuda500.log")"
  echo "cpu nthread=2 s/round (5 rounds): $(per_round "$OUT/cpu5.log")"
  echo "copy bandwidth GB/s: $bw"
  awk -v b="$floor_bytes" -v bw="$bw" 'BEGIN {printf "floor: %.0f MB a round, %.3f ms at the copy bandwidth\n", b / 1e6, b / (bw * 1e9) * 1e3}'
  grep -h "setup:" "$OUT/cuda100.log" | sed 's/^/cuda100 /'
} | tee "$OUT/summary.txt"
