#!/usr/bin/env python3
"""The per-kernel table of bench/gpu.sh's Nsight Compute run.

usage: gpu_kernels.py KERNELS.CSV [ROUNDS] [COPY_GB_S]

KERNELS.CSV is `ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
--print-summary per-kernel --csv` of ROUNDS rounds (default 2). Prints, per kernel and round: the
launches, the milliseconds, the DRAM megabytes read and written, and the achieved bandwidth (as a
share of COPY_GB_S, the card's device-to-device copy rate, when given), slowest first.
"""
import csv
import sys
from collections import defaultdict


def number(text):
    return float(text.replace(",", ""))


def main():
    path = sys.argv[1]
    rounds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    copy_gb_s = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    with open(path) as f:
        rows = list(csv.reader(line for line in f if line.startswith('"')))
    header, data = rows[0], rows[1:]
    metrics = defaultdict(lambda: defaultdict(float))
    launches = defaultdict(int)
    for row in data:
        d = dict(zip(header, row))
        name = d["Kernel Name"].split("(")[0].replace("ringboost::<unnamed>::", "")[:48]
        calls = int(d["Invocations"])
        metrics[name][d["Metric Name"]] += number(d["Average"]) * calls
        if d["Metric Name"] == "gpu__time_duration.sum":
            launches[name] += calls
    print("| kernel | launches | ms | DRAM MB | GB/s |" + (" of copy |" if copy_gb_s else ""))
    print("|---|---|---|---|---|" + ("---|" if copy_gb_s else ""))
    total_ms = total_mb = 0.0
    for name, m in sorted(metrics.items(), key=lambda kv: -kv[1]["gpu__time_duration.sum"]):
        ms = m["gpu__time_duration.sum"] / 1e6 / rounds
        mb = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) / 1e6 / rounds
        gb_s = mb / ms if ms > 0 else 0.0
        total_ms += ms
        total_mb += mb
        share = f" {gb_s / copy_gb_s:.0%} |" if copy_gb_s else ""
        print(f"| {name} | {launches[name] / rounds:.1f} | {ms:.3f} | {mb:.1f} | {gb_s:.0f} |{share}")
    gb_s = total_mb / total_ms if total_ms > 0 else 0.0
    share = f" {gb_s / copy_gb_s:.0%} |" if copy_gb_s else ""
    print(f"| all | | {total_ms:.3f} | {total_mb:.1f} | {gb_s:.0f} |{share}")


if __name__ == "__main__":
    main()
