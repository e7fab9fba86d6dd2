#!/usr/bin/env bash
# GPU benchmark (issue 7), run on the GPU machine by scripts/device-check:
#   RINGBOOST=build-device/ringboost bash bench/gpu.sh OUTDIR
#   bash bench/gpu.sh --data-only           (only makes the data set, e.g. in the background)
#   BASE_RINGBOOST=old/ringboost bash bench/gpu.sh OUTDIR   (also a paired a/b against a base build)
#   BASE_RINGBOOST=... AB_ONLY=1 AB_SIDES="new RINGBOOST_HIST_TILES=block" bash bench/gpu.sh OUTDIR
#                                  (the a/b alone, here this build against itself with a setting)
#   AB_AUC=1 ...                   (and each a/b side's test AUC: for a step that changes models)
# The HIGGS-like 10M x 28 dense set (ten 1M-row files of ../shared/bench/gen_dense.py, seeds
# 1..10, read as one data set), max_depth=8, max_bin=256, eta=0.1: seconds per round with
# device=cuda over each of ROUNDS (default "100 500") rounds and with device=cpu nthread=2 over
# CPU_ROUNDS (default 5) rounds (the per-round times of `verbosity=2`, by the host clock and
# between CUDA events), the phases of 100 device rounds (`verbosity=3`), whether the CPU_ROUNDS
# models of both devices are the same file, the card's device-to-device copy bandwidth (torch,
# CUDA events), the floor of one round (the bytes a depth-8 round must move at least, over that
# bandwidth) and, where Nsight Compute reads the counters, each kernel's time and DRAM bytes over
# 2 rounds (kernels.csv; bench/gpu_kernels.py makes the table). With LOW_BIT=1 (the default) the
# device runs, the phases and the parity check are repeated with quantized_grad=on, and the test
# AUC of the last device model of each mode is computed from its predictions on the test set.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GEN="$ROOT/../shared/bench/gen_dense.py"
DATA="${DATA:-/tmp/higgs10m}"
TEST="${TEST:-$DATA-test-200k.libsvm}"
ROUNDS="${ROUNDS:-100 500}"
CPU_ROUNDS="${CPU_ROUNDS:-5}"
LOW_BIT="${LOW_BIT:-1}"

make_data() {
  [[ -f "$DATA.done" ]] && return 0
  mkdir -p "$DATA"
  local pids=() s p
  for s in $(seq 1 10); do python3 "$GEN" 1000000 "$s" "$DATA/part-$s.libsvm" >/dev/null & pids+=($!); done
  # The test set: the CPU bench's dense 200k test set (bench/speed.py: gen_dense.py 200000 3).
  python3 "$GEN" 200000 3 "$TEST" >/dev/null & pids+=($!)
  for p in "${pids[@]}"; do wait "$p"; done  # set -e: a failed generator stops here
  touch "$DATA.done"
}
if [[ "${1:-}" == --data-only ]]; then
  make_data
  exit 0
fi

OUT="${1:-out}"
RINGBOOST="${RINGBOOST:-$ROOT/build/ringboost}"
mkdir -p "$OUT"
while [[ -f "$DATA.making" ]]; do sleep 1; done  # a --data-only run in the background
make_data
printf 'objective = binary:logistic\nmax_depth = 8\nmax_bin = 256\neta = 0.1\ndata = "%s"\nverbosity = 2\n' \
  "$DATA" >"$OUT/gpu.conf"
per_round() {  # mean of the round times after the first (which builds the matrix and cuts)
  grep -o 'round [0-9]*: [0-9.e-]* s' "$1" | awk 'NR > 1 {s += $3; n++} END {if (n) printf "%.5f", s / n}'
}
device_round() {  # the same of the device time between CUDA events
  grep -o '(device [0-9.e-]* s)' "$1" | awk 'NR > 1 {s += $2; n++} END {if (n) printf "%.5f", s / n}'
}
status=0
MODES=(exact)
[[ "$LOW_BIT" == 1 ]] && MODES+=(lowbit)
mode_args() { [[ "$1" == lowbit ]] && echo "quantized_grad=on" || echo ""; }
mode_suffix() { [[ "$1" == lowbit ]] && echo "-lowbit" || echo ""; }
# The a/b's lines: each run's time, each side's mean over the first side's, the model files.
ab_summary() {
  for mode in $AB_MODES; do
    first="$(ab_name "${AB_SIDES%% *}")"
    for side in $AB_SIDES; do
      for f in "$OUT"/ab-$mode-$(ab_name "$side")-[0-9]*.log; do echo "$side $(device_round "$f")"; done
    done | awk -v mode="$mode" -v args="${AB_ARGS:-}" -v first="${AB_SIDES%% *}" '
      {s[$1] += $2; n[$1]++; if (!($1 in seen)) {seen[$1] = 1; order[++k] = $1}
       printf "a/b %s%s %s: %.5f s/round (CUDA events)\n", mode, args == "" ? "" : " " args, $1, $2}
      END {for (i = 1; i <= k; i++) if (n[order[i]] && n[first])
             printf "a/b %s: %s / %s = %.3f (means of %d runs)\n", mode, order[i], first,
                    (s[order[i]] / n[order[i]]) / (s[first] / n[first]), n[order[i]]}'
    for side in $AB_SIDES; do
      f="$OUT/ab-$mode-$(ab_name "$side").json"
      if cmp -s "$OUT/ab-$mode-$first.json" "$f"; then
        echo "a/b $mode: $side writes the model file of ${AB_SIDES%% *}"
      else
        echo "a/b $mode: $side's model DIFFERS from ${AB_SIDES%% *}'s"
      fi
    done
  done
  [[ -f "$OUT/ab-auc.txt" ]] && cat "$OUT/ab-auc.txt"
  return 0
}
# Time per kernel: Nsight Compute's per-kernel summary of 2 rounds, one metric (one pass per
# kernel), where ncu can read the counters; on some runtimes it cannot, and the rest still runs.
# The card's clocks are left as they are (--clock-control none): ncu's default locks them to the
# base clock while it profiles, a change to the card's settings that the device tool's METHOD.md
# rules out. Every table up to 2026-11-27 was taken with locked clocks (and cold caches: their
# kernel sums, e.g. 4.02 ms, pass the 3.72 ms round), so compare tables of one setting only.
# NCU_ENV=NAME=VALUE[,NAME=VALUE][;...]: each mode profiled again with each group of settings
# (groups separated by ';': kernels-env1*.csv, kernels-env2*.csv, ...).
# NCU_BASE=1: and the base build of the a/b (BASE_RINGBOOST; kernels-base*.csv). NCU_DETAIL=REGEX:
# the first mode's kernels whose names match, 2 launches each, with the sections that say what
# binds them (warp stalls, the scheduler, memory and compute pipes) in ncu-detail.txt
# (NCU_DETAIL_ENV: with those settings).
NCU_ENVS=()
[[ -n "${NCU_ENV:-}" ]] && IFS=';' read -r -a NCU_ENVS <<<"$NCU_ENV"
ncu_sides() {  # "" (this build), env1 .. envN, base
  echo '""'
  for i in "${!NCU_ENVS[@]}"; do echo "env$((i + 1))"; done
  [[ -n "${NCU_BASE:-}" && -n "${BASE_RINGBOOST:-}" ]] && echo base || true
}
run_ncu() {  # the modes to profile
  command -v ncu >/dev/null && [[ "${NCU:-1}" == 1 ]] || return 0
  local mode m e env prog
  for mode in $1; do
    for e in $(ncu_sides); do
      [[ "$e" == '""' ]] && e=""
      m="${e:+-$e}$(mode_suffix "$mode")"
      env=()
      [[ "$e" == env* ]] && IFS=, read -r -a env <<<"${NCU_ENVS[${e#env} - 1]}"
      prog="$RINGBOOST"
      [[ "$e" == base ]] && prog="$BASE_RINGBOOST"
      timeout "${NCU_TIMEOUT:-240}" env "${env[@]}" ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        --print-summary per-kernel --csv \
        "$prog" train "$OUT/gpu.conf" device=cuda num_round=2 $(mode_args "$mode") \
        model_out="$OUT/ncu2$m.json" >"$OUT/kernels$m.csv" 2>"$OUT/ncu$m.err" ||
        echo "ncu failed or timed out: see ncu$m.err"
    done
  done
  if [[ -n "${NCU_DETAIL:-}" ]]; then
    mode="${1%% *}"
    env=()
    [[ -n "${NCU_DETAIL_ENV:-}" ]] && IFS=, read -r -a env <<<"$NCU_DETAIL_ENV"
    timeout "${NCU_TIMEOUT:-240}" env "${env[@]}" ncu --clock-control none -k "regex:$NCU_DETAIL" -c "${NCU_DETAIL_LAUNCHES:-2}" \
      --section SpeedOfLight --section SchedulerStats --section WarpStateStats \
      --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy \
      "$RINGBOOST" train "$OUT/gpu.conf" device=cuda num_round=1 $(mode_args "$mode") \
      model_out="$OUT/ncu-detail.json" >"$OUT/ncu-detail.txt" 2>&1 ||
      echo "ncu (detail) failed or timed out: see ncu-detail.txt"
  fi
}
kernel_tables() {  # the copy bandwidth (GB/s; 0: unknown)
  local mode m e
  for e in $(ncu_sides); do
    [[ "$e" == '""' ]] && e=""
    for mode in exact lowbit; do
      m="${e:+-$e}$(mode_suffix "$mode")"
      if [[ -s "$OUT/kernels$m.csv" ]]; then
        case "$e" in
          env*) echo "kernels, $mode with ${NCU_ENVS[${e#env} - 1]}:" ;;
          base) echo "kernels, $mode, the base build:" ;;
          *) echo "kernels, $mode:" ;;
        esac
        python3 "$ROOT/bench/gpu_kernels.py" "$OUT/kernels$m.csv" 2 "$1"
      fi
    done
  done
}
# AB_ONLY=1: the a/b below alone (and, with NCU, the kernels of its first mode).
if [[ "${AB_ONLY:-0}" != 1 ]]; then
  for mode in "${MODES[@]}"; do
    m="$(mode_suffix "$mode")"
    for r in $ROUNDS; do
      "$RINGBOOST" train "$OUT/gpu.conf" device=cuda num_round="$r" $(mode_args "$mode") \
        model_out="$OUT/cuda$r$m.json" >"$OUT/cuda$r$m.log" 2>&1 || { status=1; tail -5 "$OUT/cuda$r$m.log"; }
    done
    # Where the time goes: verbosity=3 times each phase, with a device synchronize at the end of
    # each (so its rounds are a little slower than the runs above, which queue without waiting).
    "$RINGBOOST" train "$OUT/gpu.conf" device=cuda num_round=100 verbosity=3 $(mode_args "$mode") \
      model_out="$OUT/phases$m.json" >"$OUT/phases$m.log" 2>&1 || status=1
    if [[ "$CPU_ROUNDS" -gt 0 ]]; then
      "$RINGBOOST" train "$OUT/gpu.conf" device=cpu nthread=2 num_round="$CPU_ROUNDS" $(mode_args "$mode") \
        model_out="$OUT/cpu$CPU_ROUNDS$m.json" >"$OUT/cpu$m.log" 2>&1 || status=1
      # Parity on the large set: the same rounds on the device write the same model file.
      "$RINGBOOST" train "$OUT/gpu.conf" device=cuda num_round="$CPU_ROUNDS" $(mode_args "$mode") \
        model_out="$OUT/cuda$CPU_ROUNDS-parity$m.json" >/dev/null 2>&1 || status=1
    fi
  done
fi
# The test AUC of a model file from its predictions (one probability a line) on the test set.
cat >"$OUT/auc.py" <<'PY'
import sys
import numpy as np
labels = np.array([float(l.split(None, 1)[0]) for l in open(sys.argv[1])])
pred = np.loadtxt(sys.argv[2], ndmin=1)
order = np.argsort(pred, kind="mergesort")
p, y = pred[order], labels[order]
# ties share their mean rank (Mann-Whitney)
_, first, counts = np.unique(p, return_index=True, return_counts=True)
ranks = np.repeat(first + (counts + 1) / 2.0, counts)
pos = y > 0.5
n_pos, n_neg = pos.sum(), (~pos).sum()
print(f"{(ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg):.6f}")
PY
# A step measured against the build before it (BASE_RINGBOOST: that build's program): REPS rounds
# of 500-round runs on the same warm card, each round every side of AB_SIDES in turn (default
# "base new": the base build, then this one; a side NAME=VALUE[,NAME=VALUE] runs this build with
# those environment settings, e.g. RINGBOOST_HIST_TILES=block), for each mode of AB_MODES (exact,
# lowbit; default exact); the per-round means of each side, its ratio to the first side's, and
# whether every side writes the first side's model file. AB_ARGS: key=value settings every side
# trains with.
AB_SIDES="${AB_SIDES:-base new}"
AB_MODES="${AB_MODES:-exact}"
ab_name() { echo "$1" | tr '=,' '-_'; }  # a side as a file name
if [[ -n "${BASE_RINGBOOST:-}" ]]; then
  for mode in $AB_MODES; do
    for rep in $(seq 1 "${REPS:-2}"); do
      for side in $AB_SIDES; do
        prog="$RINGBOOST"
        env=()
        if [[ "$side" == base ]]; then
          prog="$BASE_RINGBOOST"
        elif [[ "$side" != new ]]; then
          IFS=, read -r -a env <<<"$side"
        fi
        f="$OUT/ab-$mode-$(ab_name "$side")"
        env "${env[@]}" "$prog" train "$OUT/gpu.conf" device=cuda num_round=500 ${AB_ARGS:-} \
          $(mode_args "$mode") model_out="$f.json" >"$f-$rep.log" 2>&1 ||
          { status=1; tail -5 "$f-$rep.log"; }
      done
    done
  done
  # AB_AUC=1: the test AUC of each side's last model (a step that changes the models).
  if [[ "${AB_AUC:-0}" == 1 ]]; then
    for mode in $AB_MODES; do
      for side in $AB_SIDES; do
        f="$OUT/ab-$mode-$(ab_name "$side")"
        "$RINGBOOST" predict "$OUT/gpu.conf" device=cuda model_in="$f.json" test:data="$TEST" \
          name_pred="$f.pred" >/dev/null 2>&1 &&
          echo "a/b $mode $side: test AUC $(python3 "$OUT/auc.py" "$TEST" "$f.pred")" >>"$OUT/ab-auc.txt" ||
          status=1
        rm -f "$f.pred"
      done
    done
  fi
fi
if [[ "${AB_ONLY:-0}" == 1 ]]; then
  run_ncu "${AB_MODES%% *}"
  { ab_summary; kernel_tables 0; } | tee "$OUT/summary.txt"
  exit $status
fi
# Prediction on the device: the last run's model on the 200k test set (rows/s of the predict
# call, upload of the rows included, and of its kernel alone: the peers predict from device
# memory), and the peers on the same card (bench/gpu_peers.py: XGBoost
# 3.x's device=cuda, CatBoost's task_type=GPU, where their wheels were carried) with the test AUC
# of every library's model on the same rows. PEERS_CACHE: an .npz of the peers' arrays, written
# here for a later call on the same machine (a peer whose wheel did not fit this call);
# PEERS_TIMEOUT: seconds the peers may take (default 900).
last_r="${ROUNDS##* }"
PRED="${PRED_OUT:-$OUT/pred.txt}"  # PRED_OUT: kept for a later call's peers (PEERS=0 now)
"$RINGBOOST" predict "$OUT/gpu.conf" device=cuda model_in="$OUT/cuda$last_r.json" \
  test:data="$TEST" name_pred="$PRED" verbosity=3 >"$OUT/pred.log" 2>&1 || status=1
for mode in "${MODES[@]}"; do
  m="$(mode_suffix "$mode")"
  [[ -f "$OUT/cuda$last_r$m.json" ]] || continue
  "$RINGBOOST" predict "$OUT/gpu.conf" device=cuda model_in="$OUT/cuda$last_r$m.json" \
    test:data="$TEST" name_pred="$OUT/pred$m.txt" >/dev/null 2>&1 &&
    echo "$mode $(python3 "$OUT/auc.py" "$TEST" "$OUT/pred$m.txt")" >>"$OUT/auc.txt" || status=1
done
if [[ "${PEERS:-1}" == 1 ]]; then
  PYTHONUNBUFFERED=1 timeout "${PEERS_TIMEOUT:-900}" python3 "$ROOT/bench/gpu_peers.py" --train "$DATA/part-*.libsvm" --test "$TEST" \
    --rounds $ROUNDS --ringboost-pred "$PRED" --json "$OUT/peers.json" \
    ${PEERS_CACHE:+--cache "$PEERS_CACHE"} >"$OUT/peers.log" 2>&1 ||
    { status=1; tail -5 "$OUT/peers.log"; }
fi
run_ncu "${NCU_MODES:-${MODES[@]}}"
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
bw="$(python3 "$OUT/bandwidth.py" || echo 0)"
# Floor per round, 10M rows x 28 one-byte bins, 16-byte quantized gradients, 4-byte row ids:
# histograms read every row's bins and gradient at the root and the smaller half below (levels
# 1-7: at most half the rows each), the partition reads the split feature's byte and moves a row
# id (read + write) per row and level, gradients are written once.
rows=10000000
floor_bytes=$(( rows * (28 + 16) + 7 * rows / 2 * (28 + 16) + 8 * rows * (1 + 8) + rows * 16 ))
{
  echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  for mode in "${MODES[@]}"; do
    m="$(mode_suffix "$mode")"
    for r in $ROUNDS; do
      echo "cuda $mode s/round ($r rounds): $(per_round "$OUT/cuda$r$m.log") host clock, $(device_round "$OUT/cuda$r$m.log") CUDA events"
    done
    echo "phases $mode (100 rounds, verbosity=3, $(device_round "$OUT/phases$m.log") s/round): $(grep -h "phases:" "$OUT/phases$m.log" | sed 's/.*phases: //')"
    [[ "$CPU_ROUNDS" -gt 0 ]] && echo "cpu $mode nthread=2 s/round ($CPU_ROUNDS rounds): $(per_round "$OUT/cpu$m.log")"
  done
  [[ -f "$OUT/auc.txt" ]] && sed "s/^/test AUC ($last_r rounds, 200k rows): /" "$OUT/auc.txt"
  echo "copy bandwidth GB/s: $bw"
  awk -v b="$floor_bytes" -v bw="$bw" 'BEGIN {if (bw > 0) printf "floor: %.0f MB a round, %.3f ms at the copy bandwidth\n", b / 1e6, b / (bw * 1e9) * 1e3}'
  for r in $ROUNDS; do grep -h "setup:" "$OUT/cuda$r.log" | sed "s/^/cuda$r /"; done
  if [[ "$CPU_ROUNDS" -gt 0 ]]; then
    for mode in "${MODES[@]}"; do
      m="$(mode_suffix "$mode")"
      if cmp -s "$OUT/cpu$CPU_ROUNDS$m.json" "$OUT/cuda$CPU_ROUNDS-parity$m.json"; then
        echo "parity $mode: the $CPU_ROUNDS-round models of device=cpu and device=cuda are the same file"
      else
        echo "parity $mode: the $CPU_ROUNDS-round models of device=cpu and device=cuda DIFFER"
      fi
    done
  fi
  [[ -n "${BASE_RINGBOOST:-}" ]] && ab_summary
  grep -h "prediction:" "$OUT/pred.log" |
    sed 's/^.*device prediction:/ringboost prediction on the device:/; t; s/^.*prediction:/ringboost prediction:/'
  [[ -f "$OUT/peers.log" ]] && grep -vh "^loaded" "$OUT/peers.log"
  kernel_tables "$bw"
} | tee "$OUT/summary.txt"
exit $status
