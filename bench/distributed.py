#!/usr/bin/python3
"""Distributed training speed: 2 workers x 1 thread against 1 process x 2 threads.

  /usr/bin/python3 bench/distributed.py                  # 100 rounds, every config once
  /usr/bin/python3 bench/distributed.py --repeat 3       # 3 interleaved repeats, median per cell
  /usr/bin/python3 bench/distributed.py --rounds 30 --only ringboost-tcp,ringboost-1x2
options: --rounds N (default 100)  --probe-rounds N (default 1)  --repeat K (default 1)
         --ringboost PATH  --submit PATH  --xgboost PATH  --only NAMES  --no-eval
         --mpi-transport default|tcp  --bins N (skip the probe)  --timeout S  --out FILE

The dense 1M x 28 set (+ 200k test, evaluated every round; bench/speed.py's data and PARAMS,
max_depth=8, max_bin=256, eta=0.1), in one invocation:
  ringboost-1x2   build/ringboost train, 1 process, nthread=2 (communicator=local);
  ringboost-mpi   mpirun -np 2 build/ringboost train ... nthread=1 communicator=mpi;
  ringboost-tcp   build/ringboost-submit --num-workers 2 build/ringboost train ... nthread=1
                  communicator=tcp (its own tracker, loopback);
  xgboost-2x1     /usr/bin/xgboost (1.7.4 CLI), 2 workers under ringboost-submit, nthread=1
                  (XGBoost loads part rank/2 of each file itself, as ringboost does);
  xgboost-1x2     /usr/bin/xgboost, 1 process, nthread=2, for reference.
Each config runs twice per repeat: --rounds rounds and --probe-rounds rounds. ringboost logs
(verbosity=2, per worker) `training: N rounds in S s` and `collective in training: C calls, B
bytes per round; T s (P% of training)`: s/round = S / N (rank 0's, and the slowest rank's),
communication share P, bytes B (what each worker hands to Allreduce/Allgather per round, its
own count). XGBoost logs no timing, so every config also gets s/round from whole-job wall
times: (wall(rounds) - wall(probe)) / (rounds - probe), load and setup cancelling out; that
column is the one that compares ringboost with XGBoost.

Then, computed rather than measured: the bytes each worker sends per tree level for P = 2..64
workers, from the histogram size H (16 bytes per bin: int64 gradient + int64 hessian; the bin
count of this data comes from a probe job, max_depth=1, 1 round, no evaluation, whose
collective bytes are 56 + H) and the tcp backend's algorithm choice (ring when the allreduce has
at least rabit_reduce_ring_mincount = 32768 elements, else the binary tree). And the trees the
tcp job grew (rank 0's model file) give the histograms actually reduced per level.
Goals (the distributed-training issue): both 2-worker ringboost configs reach >= 0.9 of the
1-process speed (s/round from the log), and the tcp one beats XGBoost's 2-worker s/round (wall
difference). Exit status 0 when the goals are met, 1 when one is missed, 2 when a job failed.
"""

import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import speed  # noqa: E402  (data sets and training parameters shared with speed.py)

ROOT = speed.ROOT
RESULTS_DIR = speed.RESULTS_DIR
MPIRUN_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1",
                "--tag-output"]
MPI_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
TRANSPORT_MCA = {  # as bench/allreduce.py
    "default": [],
    "tcp": ["--mca", "pml", "ob1", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include",
            "lo"],
}
GOAL_SPEED = 0.9        # 2-worker speed / 1-process speed
RING_MIN_COUNT = 32768  # rabit_reduce_ring_mincount's default (src/rabit/tcp_communicator.h)
WORLDS = (2, 4, 8, 16, 32, 64)
# Collective bytes per round outside the histograms (src/tree/gradient.cc, hist/grower.cc): max |g|,
# |h| (2 doubles), row count (uint64), root gradient sum (2 int64).
FIXED_BYTES = 16 + 8 + 16
COUNT_BYTES = 16  # per split node: row counts of its two children (uint64 each)

# name: (tool, launcher, workers, threads)
CONFIGS = [
    ("ringboost-1x2", "ringboost", "single", 1, 2),
    ("ringboost-mpi", "ringboost", "mpirun", 2, 1),
    ("ringboost-tcp", "ringboost", "submit", 2, 1),
    ("xgboost-2x1", "xgboost", "submit", 2, 1),
    ("xgboost-1x2", "xgboost", "single", 1, 2),
]

RANK_PREFIX = [re.compile(r"^\[rank (\d+)\] ?(.*)$"),               # ringboost-submit
               re.compile(r"^\[\d+,(\d+)\]<std(?:out|err)>: ?(.*)$")]  # mpirun --tag-output
TRAIN_LINE = re.compile(r"training: (\d+) rounds in ([0-9.eE+-]+) s")
COLL_LINE = re.compile(r"collective in training: (\d+) calls, (\d+) bytes per round, "
                       r"\d+ bytes sent per worker per round; "
                       r"([0-9.eE+-]+) s \(([0-9.eE+-]+)% of training\)")
AUC_LINE = re.compile(r"\[(\d+)\]\ttest-auc:([0-9.eE+-]+)")


# ---- running one job -------------------------------------------------------------------------
def by_rank(text):
    """{rank: [lines]}; lines without a rank prefix belong to rank 0 (single process)."""
    ranks = {}
    for line in text.splitlines():
        rank, rest = 0, line
        for pattern in RANK_PREFIX:
            m = pattern.match(line)
            if m:
                rank, rest = int(m.group(1)), m.group(2)
                break
        ranks.setdefault(rank, []).append(rest)
    return ranks


def parse_rank(lines):
    """What one worker logged: training s, rounds, collective calls/bytes/s/%, last test AUC."""
    out = {}
    for line in lines:
        m = TRAIN_LINE.search(line)
        if m:
            out["rounds"], out["train_s"] = int(m.group(1)), float(m.group(2))
        m = COLL_LINE.search(line)
        if m:
            out.update(calls=int(m.group(1)), bytes=int(m.group(2)), comm_s=float(m.group(3)),
                       comm_pct=float(m.group(4)))
        m = AUC_LINE.search(line)
        if m:
            out["auc"] = float(m.group(2))
    return out


def run_cmd(cmd, env, timeout, cwd):
    """(returncode, stdout + stderr, wall s); own session so that a timeout ends every worker."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out + err, time.perf_counter() - start
    return proc.returncode, out + "\n" + err, time.perf_counter() - start


def write_conf(path, train, test, rounds, evaluate, extra, params=None):
    params = dict(speed.PARAMS, **(params or {}))
    lines = ["%s = %s" % kv for kv in params.items() if kv[0] != "nthread"]
    if not evaluate:
        lines = [line for line in lines if not line.startswith("eval_metric")]
    lines += ["num_round = %d" % rounds, 'data = "%s?format=libsvm"' % train]
    if evaluate:
        lines.append('eval[test] = "%s?format=libsvm"' % test)
    lines += extra
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def job_command(args, tool, launcher, workers, threads, conf, model):
    exe = args.ringboost if tool == "ringboost" else args.xgboost
    comm = {"single": "local", "mpirun": "mpi", "submit": "tcp"}[launcher]
    overrides = ["nthread=%d" % threads, "model_out=%s" % model]
    if tool == "ringboost":
        prog = [exe, "train", conf] + overrides + ["communicator=%s" % comm]
    else:
        prog = [exe, conf] + overrides
    if launcher == "single":
        return prog
    if launcher == "submit":
        return [args.submit, "--num-workers", str(workers)] + prog
    return (["mpirun", "-np", str(workers)] + MPIRUN_FLAGS + TRANSPORT_MCA[args.mpi_transport]
            + prog)


def run_job(args, config, rounds, work_dir, evaluate=True, params=None):
    """One job; returns a record (wall s, per-rank parse) or raises RuntimeError."""
    name, tool, launcher, workers, threads = config
    conf = os.path.join(work_dir, "%s-%d.conf" % (name, rounds))
    extra = ["verbosity = 2"] if tool == "ringboost" else []
    write_conf(conf, args.train, args.test, rounds, evaluate, extra, params)
    model = os.path.join(work_dir, "%s-%d.model" % (name, rounds))
    cmd = job_command(args, tool, launcher, workers, threads, conf, model)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **MPI_ROOT_ENV)
    rc, text, wall = run_cmd(cmd, env, args.timeout, work_dir)
    if rc != 0:
        why = "timed out after %g s" % args.timeout if rc is None else "exit %s" % rc
        raise RuntimeError("%s (%d rounds) %s: %s\n    %s" % (
            name, rounds, why, " ".join(cmd), "\n    ".join(text.strip().splitlines()[-8:])))
    ranks = {r: parse_rank(lines) for r, lines in by_rank(text).items()}
    ranks = {r: v for r, v in ranks.items() if v}
    if tool == "ringboost" and sorted(r for r, v in ranks.items() if "train_s" in v) != list(
            range(workers)):
        raise RuntimeError("%s: not every rank logged its training time:\n    %s" % (
            name, "\n    ".join(text.strip().splitlines()[-8:])))
    return {"config": name, "rounds": rounds, "wall_s": wall, "model": model,
            "ranks": {str(r): v for r, v in sorted(ranks.items())}}


# ---- per-level bytes (computed) --------------------------------------------------------------
def probe_bins(args, work_dir):
    """Histogram bins of this data: a 2-worker tcp job of one depth-1 tree, no evaluation,
    reduces FIXED_BYTES + one split's counts + the root histogram (16 bytes a bin), 5 calls."""
    config = ("bins-probe", "ringboost", "submit", 2, 1)
    rec = run_job(args, config, 1, work_dir, evaluate=False, params={"max_depth": 1})
    r0 = rec["ranks"]["0"]
    hist = r0["bytes"] - FIXED_BYTES - COUNT_BYTES
    if r0["calls"] != 5 or hist <= 0 or hist % 16:
        raise RuntimeError("bins probe: %d calls, %d bytes; expected 5 calls and %d + 16 x bins"
                           % (r0["calls"], r0["bytes"], FIXED_BYTES + COUNT_BYTES))
    return hist // 16


def tree_sends(world):
    """(busiest, mean) multiples of S a worker sends in a tree allreduce of S bytes: the binary
    heap tree of src/rabit/link_map.cc; S up to the parent, S down to each child."""
    per = [sum(1 for c in (2 * n + 1, 2 * n + 2) if c < world) + (1 if n > 0 else 0)
           for n in range(world)]
    return max(per), sum(per) / world


def level_nodes(max_depth):
    """Histograms reduced per level of a full tree: the root, then one (the smaller child) per
    split of the level above; nodes at max_depth are leaves and get none."""
    return [1] + [2 ** (level - 1) for level in range(1, max_depth)]


def level_table(bins, max_depth):
    """Rows per level: nodes, S bytes, elements, and per world (ring, tree busiest, tcp's pick)."""
    hist = 16 * bins
    rows = []
    for level, nodes in enumerate(level_nodes(max_depth)):
        size = nodes * hist
        row = {"level": level, "nodes": nodes, "bytes": size, "elements": size // 8,
               "per_world": {}}
        for p in WORLDS:
            ring = 2 * size * (p - 1) / p
            busiest, mean = tree_sends(p)
            use_ring = size // 8 >= RING_MIN_COUNT and size // 8 >= p
            row["per_world"][p] = {"ring": ring, "tree_busiest": busiest * size,
                                   "tree_mean": mean * size, "tcp": "ring" if use_ring else "tree"}
        rows.append(row)
    return rows


def model_levels(model_path, max_depth):
    """Mean over the trees of a ringboost model of split nodes per depth."""
    with open(model_path) as f:
        trees = json.load(f)["trees"]
    splits = [0] * (max_depth + 1)
    for t in trees:
        depth = [0] * t["num_nodes"]
        for nid in range(t["num_nodes"]):
            parent = t["parents"][nid]
            depth[nid] = 0 if parent < 0 else depth[parent] + 1
            if t["left_children"][nid] >= 0:
                splits[depth[nid]] += 1
    return [s / len(trees) for s in splits], len(trees)


def fmt_kb(nbytes):
    return "%.0f" % (nbytes / 1e3)


def print_levels(bins, max_depth, levels, model_splits):
    hist = 16 * bins
    print("\n### Bytes each worker sends per tree level (computed; KB = 10^3 B)\n")
    print("Histogram per node: %d bins x 16 B (int64 gradient + int64 hessian) = %d B. Level L "
          "reduces the histograms of its nodes in one allreduce: the root at level 0, then one "
          "(the smaller child) per split of level L-1. tcp backend: ring when the allreduce has "
          ">= %d int64 elements, each worker sending 2 S (P-1)/P; else the binary tree, a worker "
          "sending S to its parent and S to each child (busiest worker 3 S from P = 5 on; mean "
          "2 S (P-1)/P, the ring's). Cells: ring / tree (busiest); * = the one tcp uses.\n"
          % (bins, hist, RING_MIN_COUNT))
    print("| level | histograms | S KB | elements | " +
          " | ".join("P=%d" % p for p in WORLDS) + " |")
    print("|---:|---:|---:|---:|" + "---:|" * len(WORLDS))
    totals = {p: [0.0, 0.0, 0.0] for p in WORLDS}
    for row in levels:
        cells = []
        for p in WORLDS:
            c = row["per_world"][p]
            ring, tree = fmt_kb(c["ring"]), fmt_kb(c["tree_busiest"])
            cells.append(ring + "* / " + tree if c["tcp"] == "ring" else ring + " / " + tree + "*")
            totals[p][0] += c["ring"]
            totals[p][1] += c["tree_busiest"]
            totals[p][2] += c["ring"] if c["tcp"] == "ring" else c["tree_busiest"]
        print("| %d | %d | %s | %d | %s |" % (row["level"], row["nodes"], fmt_kb(row["bytes"]),
                                              row["elements"], " | ".join(cells)))
    print("| per tree | %d | %s | | %s |" % (
        sum(r["nodes"] for r in levels), fmt_kb(sum(r["bytes"] for r in levels)),
        " | ".join("%s / %s (tcp %s)" % (fmt_kb(t[0]), fmt_kb(t[1]), fmt_kb(t[2]))
                   for t in (totals[p] for p in WORLDS))))
    small = FIXED_BYTES + COUNT_BYTES * (2 ** max_depth - 1)
    print("\nBesides the histograms, per tree: %d B of small allreduces (max |g|,|h|; rows; root "
          "sum; 16 B of child row counts per split, also at the last level), each on the tree.\n"
          "The full tree above is an upper bound; the tcp job's trees (rank 0's model) split on "
          "average:" % small)
    print("\n| depth | splits (mean/tree) | full tree | histograms reduced at level depth+1 |")
    print("|---:|---:|---:|---:|")
    for d in range(max_depth):
        nxt = "%.1f" % model_splits[d] if d + 1 < max_depth else "- (leaves)"
        print("| %d | %.1f | %d | %s |" % (d, model_splits[d], 2 ** d, nxt))


def predicted_bytes(bins, max_depth, model_splits):
    """Collective bytes per round a worker hands over for the trees it grew, evaluation aside."""
    hist = 16 * bins
    total = FIXED_BYTES + hist  # root histogram
    for d in range(max_depth):
        total += COUNT_BYTES * model_splits[d]
        if d + 1 < max_depth:
            total += hist * model_splits[d]
    return total


# ---- summary ---------------------------------------------------------------------------------
def median(values):
    values = [v for v in values if v is not None and v == v]
    return statistics.median(values) if values else float("nan")


def summarize(args, runs):
    """Per config: medians over repeats."""
    nan = float("nan")
    out = {}
    for name, tool, launcher, workers, threads in CONFIGS:
        full = [r for r in runs if r["config"] == name and r["rounds"] == args.rounds]
        probe = [r for r in runs if r["config"] == name and r["rounds"] == args.probe_rounds]
        if not full:
            continue
        diffs = [(f["wall_s"] - p["wall_s"]) / (args.rounds - args.probe_rounds)
                 for f, p in zip(full, probe)]
        row = {"config": name, "tool": tool, "launcher": launcher, "workers": workers,
               "threads": threads, "wall_s": median([f["wall_s"] for f in full]),
               "probe_wall_s": median([p["wall_s"] for p in probe]),
               "wall_diff_s_per_round": median(diffs)}
        r0 = [f["ranks"].get("0", {}) for f in full]
        if tool == "ringboost":
            def per_round(rec):
                return rec["train_s"] / rec["rounds"]
            row["log_s_per_round"] = median([per_round(r) for r in r0])
            row["log_s_per_round_max"] = median(
                [max(per_round(v) for v in f["ranks"].values() if "train_s" in v) for f in full])
            row["comm_pct"] = median([r.get("comm_pct", 0.0) for r in r0])
            row["comm_pct_max"] = median(
                [max(v.get("comm_pct", 0.0) for v in f["ranks"].values()) for f in full])
            row["calls"] = median([r.get("calls", 0) for r in r0])
            row["bytes"] = median([r.get("bytes", 0) for r in r0])
        else:
            for key in ("log_s_per_round", "log_s_per_round_max", "comm_pct", "comm_pct_max",
                        "calls", "bytes"):
                row[key] = nan
        row["auc"] = median([r.get("auc", nan) for r in r0])
        out[name] = row
    return out


def cell(fmt, value):
    return "-" if value != value else fmt % value


def print_table(args, rows):
    base = rows.get("ringboost-1x2", {}).get("log_s_per_round", float("nan"))
    base_wall = rows.get("ringboost-1x2", {}).get("wall_diff_s_per_round", float("nan"))
    print("\n### Dense 1M x 28, depth 8, %d rounds (probe %d), test AUC every round: %s; "
          "median of %d run(s)\n" % (args.rounds, args.probe_rounds,
                                     "yes" if not args.no_eval else "no", args.repeat))
    print("| config | workers x threads | s/round (log, rank 0) | s/round (log, slowest) | "
          "s/round (wall diff) | speed vs 1x2 (log) | speed vs 1x2 (wall) | comm % (rank 0 / "
          "max) | calls/round | bytes/round | job s | test AUC |")
    print("|---|---|" + "---:|" * 10)
    for row in rows.values():
        speed_log = base / row["log_s_per_round"] if row["log_s_per_round"] else float("nan")
        speed_wall = base_wall / row["wall_diff_s_per_round"]
        row["speed_vs_1x2_log"], row["speed_vs_1x2_wall"] = speed_log, speed_wall
        comm = "-" if row["comm_pct"] != row["comm_pct"] else "%.1f / %.1f" % (
            row["comm_pct"], row["comm_pct_max"])
        print("| %s | %d x %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["config"], row["workers"], row["threads"],
            cell("%.4f", row["log_s_per_round"]), cell("%.4f", row["log_s_per_round_max"]),
            cell("%.4f", row["wall_diff_s_per_round"]), cell("%.2f", speed_log),
            cell("%.2f", speed_wall), comm, cell("%.0f", row["calls"]),
            cell("%.0f", row["bytes"]), cell("%.1f", row["wall_s"]), cell("%.5f", row["auc"])))
    print("\nspeed = s/round of ringboost-1x2 / s/round of the config (the same column's "
          "measure); xgboost rows: wall difference only (its log has no timing); ringboost-1x2 "
          "uses communicator=local, no collective.")


def goals(rows):
    out = []
    for name in ("ringboost-mpi", "ringboost-tcp"):
        row = rows.get(name)
        value = row.get("speed_vs_1x2_log") if row else None
        ok = None if value is None or value != value else value >= GOAL_SPEED
        out.append(("%s speed >= %.1f x ringboost-1x2 (log s/round): %s" % (
            name, GOAL_SPEED, cell("%.2f", value) if value is not None else "n/a"), ok))
    rb, xg = rows.get("ringboost-tcp"), rows.get("xgboost-2x1")
    if rb and xg:
        a, b = rb["wall_diff_s_per_round"], xg["wall_diff_s_per_round"]
        ok = None if a != a or b != b else a < b
        out.append(("ringboost-tcp s/round < xgboost-2x1's (wall difference): %.4f vs %.4f "
                    "(%.2fx)" % (a, b, b / a if a else float("nan")), ok))
    else:
        out.append(("ringboost-tcp s/round < xgboost-2x1's: n/a", None))
    return out


# ---- main ------------------------------------------------------------------------------------
def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=100)
    p.add_argument("--probe-rounds", type=int, default=1,
                   help="rounds of the short job whose wall time is subtracted (default 1)")
    p.add_argument("--repeat", type=int, default=1, help="interleaved repeats (median per cell)")
    p.add_argument("--only", default="", help="configs, comma-separated: " +
                   ",".join(c[0] for c in CONFIGS))
    p.add_argument("--no-eval", action="store_true", help="no test set evaluation per round")
    p.add_argument("--mpi-transport", choices=sorted(TRANSPORT_MCA), default="default",
                   help="Open MPI's: default (shared memory) or tcp (loopback, as the tcp backend)")
    p.add_argument("--ringboost", default=os.path.join(ROOT, "build", "ringboost"))
    p.add_argument("--submit", default=None, help="default: ringboost-submit beside --ringboost")
    p.add_argument("--xgboost", default="/usr/bin/xgboost")
    p.add_argument("--bins", type=int, default=0, help="histogram bins (default: probe job)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per job")
    p.add_argument("--out", default=os.path.join(RESULTS_DIR, "distributed.json"))
    args = p.parse_args()
    if args.submit is None:
        args.submit = os.path.join(os.path.dirname(args.ringboost), "ringboost-submit")
    for key in ("ringboost", "submit", "xgboost", "out"):  # the jobs run in a temporary folder
        setattr(args, key, os.path.abspath(getattr(args, key)))
    names = [c[0] for c in CONFIGS]
    args.only = [x for x in args.only.split(",") if x] or names
    unknown = set(args.only) - set(names)
    if unknown:
        p.error("unknown --only %s; known: %s" % (sorted(unknown), ",".join(names)))
    if args.probe_rounds >= args.rounds:
        p.error("--probe-rounds must be below --rounds")
    return args


def check_tools(args):
    need = [args.ringboost, args.submit]
    if any(n.startswith("xgboost") for n in args.only):
        need.append(args.xgboost)
    missing = [x for x in need if not os.access(x, os.X_OK)]
    if "ringboost-mpi" in args.only and shutil.which("mpirun") is None:
        missing.append("mpirun (Debian: openmpi-bin)")
    return missing


def run_configs(args, configs, work_dir, max_depth):
    """Every config, --rounds and --probe-rounds, --repeat times interleaved; returns (runs,
    errors, mean splits per depth of the tcp job's trees, number of those trees)."""
    runs, errors, model_splits, num_trees = [], [], None, 0
    for rep in range(args.repeat):
        order = configs[rep % len(configs):] + configs[:rep % len(configs)]
        for config in order:
            for rounds in (args.rounds, args.probe_rounds):
                try:
                    rec = run_job(args, config, rounds, work_dir, evaluate=not args.no_eval)
                except RuntimeError as err:
                    print("repeat %d %s: FAILED %s" % (rep, config[0], err), flush=True)
                    errors.append({"repeat": rep, "config": config[0], "error": str(err)})
                    continue
                r0 = rec["ranks"].get("0", {})
                print("repeat %d %s %d rounds: job %.1f s%s" % (
                    rep, config[0], rounds, rec["wall_s"],
                    ", training %.2f s" % r0["train_s"] if "train_s" in r0 else ""), flush=True)
                if config[0] == "ringboost-tcp" and rounds == args.rounds:
                    model_splits, num_trees = model_levels(rec["model"], max_depth)
                runs.append(rec)
    return runs, errors, model_splits, num_trees


def report_levels(rows, bins, max_depth, model_splits, num_trees):
    """Prints the computed per-level tables; returns (levels, predicted bytes per round)."""
    levels = level_table(bins, max_depth)
    if not model_splits:
        print_levels(bins, max_depth, levels, [2 ** d for d in range(max_depth + 1)])
        return levels, None
    print_levels(bins, max_depth, levels, model_splits)
    predicted = predicted_bytes(bins, max_depth, model_splits)
    measured = rows.get("ringboost-tcp", {}).get("bytes", float("nan"))
    print("\nringboost-tcp: %.0f collective bytes per round predicted from its %d trees "
          "(evaluation aside), %.0f measured (rank 0); the difference, %.0f, is the test AUC's "
          "allgather of (label, weight, prediction) per local test row (none with --no-eval)."
          % (predicted, num_trees, measured, measured - predicted))
    return levels, predicted


def main():
    args = parse_args()
    missing = check_tools(args)
    if missing:
        print("error: missing %s (build: bash scripts/setup; or --ringboost PATH, --only)"
              % ", ".join(missing), file=sys.stderr)
        return 2
    args.train, args.test = speed.ensure_data("dense")
    configs = [c for c in CONFIGS if c[0] in args.only]
    load_before = os.getloadavg()
    print("load average %.2f %.2f %.2f (2-core machine: other jobs skew timings)" % load_before,
          flush=True)
    max_depth = int(speed.PARAMS["max_depth"])
    work_dir = tempfile.mkdtemp(prefix="rb-distributed-")
    try:
        bins = args.bins or probe_bins(args, work_dir)
        print("histogram: %d bins (%d B a node)" % (bins, 16 * bins), flush=True)
        runs, errors, model_splits, num_trees = run_configs(args, configs, work_dir, max_depth)
    except RuntimeError as err:  # the bins probe
        print("error: %s" % err, file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    rows = summarize(args, runs)
    print_table(args, rows)
    status = 2 if errors else 0
    goal_list = goals(rows)
    print()
    for text, ok in goal_list:
        print("  %s  %s" % ({True: "PASS", False: "FAIL", None: "n/a "}[ok], text))
        if ok is False:
            status = max(status, 1)
    levels, predicted = report_levels(rows, bins, max_depth, model_splits, num_trees)
    record = {"time": time.strftime("%Y-%m-%d %H:%M:%S"), "host": platform.node(),
              "cpus": os.cpu_count(), "rounds": args.rounds, "probe_rounds": args.probe_rounds,
              "repeat": args.repeat, "evaluate": not args.no_eval,
              "mpi_transport": args.mpi_transport, "params": speed.PARAMS,
              "stat": "median over repeats", "load_average_before": load_before,
              "load_average_after": os.getloadavg(), "rows": rows,
              "goals": [{"goal": t, "passed": ok} for t, ok in goal_list],
              "bins": bins, "histogram_bytes": 16 * bins, "ring_min_count": RING_MIN_COUNT,
              "levels": levels, "model_splits_per_depth": model_splits,
              "predicted_bytes_per_round": predicted, "runs": runs, "errors": errors}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
    print("\nload average after %.2f; record: %s" % (os.getloadavg()[0],
                                                     os.path.relpath(args.out, ROOT)))
    return status


if __name__ == "__main__":
    sys.exit(main())
