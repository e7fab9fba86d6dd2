#!/usr/bin/python3
"""Allreduce (sum of doubles, 1 KB .. 64 MB) of ringboost's collective against plain MPI.

  /usr/bin/python3 bench/allreduce.py                      # np 2 and 4, 3 interleaved repeats
  /usr/bin/python3 bench/allreduce.py --procs 2 --repeat 1 --seconds 0.1   # quick look
  /usr/bin/python3 bench/allreduce.py --impls tcp,MPI_Allreduce --mpi-transport default
options: --build-dir DIR (default build)  --procs 2,4  --repeat K (default 3)
         --impls MPI_Allreduce,mpi,tcp  --mpi-transport tcp|default  --seconds S (per size)
         --max-bytes B  --timeout S (per program run)  --out FILE

Per world size N, in one invocation, three programs (built by bench/CMakeLists.txt):
  MPI_Allreduce  build/bench/mpi_allreduce_bench under mpirun -np N: plain MPI_Allreduce, the
                 reference;
  mpi            build/bench/allreduce_bench communicator=mpi under mpirun -np N;
  tcp            build/bench/allreduce_bench communicator=tcp, N processes started here with
                 XGBoost 1.7.4's RabitTracker (xgboost.tracker, 127.0.0.1) and its worker_envs()
                 plus DMLC_TASK_ID=i, DMLC_NUM_WORKER=N, DMLC_ROLE=worker.
mpirun gets --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 (2 shared cores here)
and, with --mpi-transport tcp (the default), `--mca pml ob1 --mca btl self,tcp --mca
btl_tcp_if_include lo`, so that Open MPI too goes through loopback TCP like the tcp backend;
--mpi-transport default leaves Open MPI its own choice (shared memory, vader, on one machine).

Each program prints one JSON line per size from rank 0 (bench/allreduce_timing.h): seconds_per_op
is the median of its timed calls. The K repeats are interleaved (the program order rotates every
repeat) and each cell of the table is the median over the repeats; bandwidth = bytes /
seconds_per_op. A program that fails (e.g. a backend not built yet) is reported and its cells
are n/a. Goals (the collective issue): tcp >= 0.8x MPI_Allreduce's bandwidth at 1 MB and above,
and tcp <= 2x its latency at 1 KB.
Exit status: 0 when every goal is met, 1 when one is missed, 2 when a program failed.
"""

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.path.join(ROOT, "bench", "results")
IMPLS = ("MPI_Allreduce", "mpi", "tcp")
# Shared 2-core machine: no pinning, and MPI yields the core while it polls (without it, np=2 is
# "not oversubscribed" and busy-polls, and one busy core elsewhere makes each call take a whole
# scheduler slice, milliseconds).
MPIRUN_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]
MPI_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
TRANSPORT_MCA = {
    "tcp": ["--mca", "pml", "ob1", "--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include",
            "lo"],
    "default": [],
}
GOAL_BW_RATIO = 0.8        # tcp / MPI_Allreduce bandwidth, at and above GOAL_BW_FROM bytes
GOAL_BW_FROM = 1 << 20
GOAL_LAT_RATIO = 2.0       # tcp / MPI_Allreduce time, at GOAL_LAT_AT bytes
GOAL_LAT_AT = 1 << 10


# ---- running one program ---------------------------------------------------------------------
def parse_records(text):
    """{bytes: record} from the JSON lines of a program's stdout (other lines ignored)."""
    records = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and '"seconds_per_op"' in line:
            rec = json.loads(line)
            records[rec["bytes"]] = rec
    return records


def tail(text, lines=8):
    return "\n    ".join(text.strip().splitlines()[-lines:])


def bench_flags(args):
    return ["--seconds=%g" % args.seconds, "--max-bytes=%d" % args.max_bytes]


def run_mpirun(args, exe, extra, n):
    """Runs `exe extra` under mpirun -np n; returns (records, error or None)."""
    cmd = (["mpirun", "-np", str(n)] + MPIRUN_FLAGS +
           TRANSPORT_MCA[args.mpi_transport] + [exe] + extra + bench_flags(args))
    env = dict(os.environ, **MPI_ROOT_ENV)
    # Own session, so that a timeout ends mpirun's ranks too, not only mpirun.
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {}, "timed out after %g s: %s" % (args.timeout, " ".join(cmd))
    if proc.returncode != 0:
        return {}, "exit %d: %s\n    %s" % (proc.returncode, " ".join(cmd), tail(out + err))
    return parse_records(out), None


def run_tracked(args, exe, n):
    """n processes of `exe communicator=tcp` under XGBoost's RabitTracker on 127.0.0.1."""
    from xgboost.tracker import RabitTracker  # Debian's python3-xgboost (1.7.4)
    tracker = RabitTracker(host_ip="127.0.0.1", n_workers=n, sortby="task")
    tracker.start(n)
    env = dict(os.environ, DMLC_NUM_WORKER=str(n), DMLC_ROLE="worker",
               **{k: str(v) for k, v in tracker.worker_envs().items()})
    cmd = [exe, "communicator=tcp"] + bench_flags(args)
    outs, procs = [], []
    for i in range(n):
        out = tempfile.TemporaryFile("w+")
        outs.append(out)
        procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=subprocess.STDOUT, text=True,
                                      env=dict(env, DMLC_TASK_ID=str(i))))
    deadline = time.monotonic() + args.timeout
    timed_out = False
    for proc in procs:
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            timed_out = True
            break
    for proc in procs:  # a failed worker leaves the others waiting on it: end them
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if tracker.thread is not None and all(p.returncode == 0 for p in procs):
        tracker.thread.join(5.0)  # the tracker ends when every worker has sent `shutdown`
    tracker_done = not tracker.alive()
    tracker.sock.close()
    texts = []
    for out in outs:
        out.seek(0)
        texts.append(out.read())
        out.close()
    records = {}
    for text in texts:
        records.update(parse_records(text))
    bad = [i for i, p in enumerate(procs) if p.returncode != 0]
    if timed_out or bad or not records:
        why = "timed out after %g s" % args.timeout if timed_out else "workers %s failed" % bad
        shown = texts[bad[0]] if bad else texts[0]
        return {}, "%s: %s (DMLC_TASK_ID=0..%d)\n    %s" % (why, " ".join(cmd), n - 1, tail(shown))
    if not tracker_done:
        print("  note: the tracker did not see every worker's shutdown", flush=True)
    return records, None


def run_impl(args, impl, n):
    bench_dir = os.path.join(args.build_dir, "bench")
    exe = os.path.join(bench_dir, "mpi_allreduce_bench" if impl == "MPI_Allreduce"
                       else "allreduce_bench")
    if not os.access(exe, os.X_OK):
        return {}, "%s not built (cmake --build %s --target %s)" % (exe, args.build_dir,
                                                                   os.path.basename(exe))
    if impl == "tcp":
        return run_tracked(args, exe, n)
    if shutil.which("mpirun") is None:
        return {}, "mpirun not found (Debian: openmpi-bin)"
    return run_mpirun(args, exe, [] if impl == "MPI_Allreduce" else ["communicator=mpi"], n)


# ---- table -------------------------------------------------------------------------------------
def size_name(nbytes):
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return "%d %s" % (nbytes // scale, unit)
    return "%d B" % nbytes


def median_seconds(runs, nbytes):
    values = [r[nbytes]["seconds_per_op"] for r in runs if nbytes in r]
    return statistics.median(values) if values else None


def fmt_cell(seconds, nbytes):
    if seconds is None:
        return "n/a | n/a"
    return "%.1f | %.0f" % (seconds * 1e6, nbytes / seconds / 1e6)


def ratio(num, den):
    return num / den if num and den else None


def table(n, runs, sizes):
    """Markdown table of one world size; returns (text, {bytes: {impl: seconds}})."""
    cells = {b: {impl: median_seconds(runs[impl], b) for impl in IMPLS} for b in sizes}
    lines = ["np=%d: time per allreduce (us, median) | bandwidth = bytes / time (MB/s, 10^6 B/s)"
             % n, "",
             "| size | MPI_Allreduce us | MB/s | mpi backend us | MB/s | tcp backend us | MB/s "
             "| tcp/MPI bandwidth | tcp/MPI latency |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for b in sizes:
        c = cells[b]
        bw = ratio(c["MPI_Allreduce"], c["tcp"])
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            size_name(b), fmt_cell(c["MPI_Allreduce"], b), fmt_cell(c["mpi"], b),
            fmt_cell(c["tcp"], b), "%.2fx" % bw if bw else "n/a",
            "%.2fx" % (1 / bw) if bw else "n/a"))
    return "\n".join(lines), cells


def goals(cells):
    """[(text, passed or None)] for the two goals of the issue."""
    out = []
    big = [(b, ratio(c["MPI_Allreduce"], c["tcp"])) for b, c in cells.items() if b >= GOAL_BW_FROM]
    if big and all(r is not None for _, r in big):
        worst = min(big, key=lambda x: x[1])
        out.append(("tcp bandwidth >= %.1fx MPI_Allreduce at >= 1 MB: worst %.2fx at %s"
                    % (GOAL_BW_RATIO, worst[1], size_name(worst[0])), worst[1] >= GOAL_BW_RATIO))
    else:
        out.append(("tcp bandwidth >= %.1fx MPI_Allreduce at >= 1 MB: n/a" % GOAL_BW_RATIO, None))
    c = cells.get(GOAL_LAT_AT)
    lat = ratio(c["tcp"], c["MPI_Allreduce"]) if c else None
    out.append(("tcp latency <= %.1fx MPI_Allreduce at 1 KB: %s" % (
        GOAL_LAT_RATIO, "%.2fx" % lat if lat else "n/a"),
        None if lat is None else lat <= GOAL_LAT_RATIO))
    return out


# ---- main --------------------------------------------------------------------------------------
def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", default="build", help="CMake build folder (default build)")
    p.add_argument("--procs", default="2,4", help="world sizes, comma-separated (default 2,4)")
    p.add_argument("--repeat", type=int, default=3, help="interleaved repeats (median per cell)")
    p.add_argument("--impls", default=",".join(IMPLS), help="subset of " + ",".join(IMPLS))
    p.add_argument("--mpi-transport", choices=sorted(TRANSPORT_MCA), default="tcp",
                   help="Open MPI's transport: tcp (loopback, default) or default (shared memory)")
    p.add_argument("--seconds", type=float, default=0.3, help="timed seconds per size")
    p.add_argument("--max-bytes", type=int, default=64 << 20, help="largest size (default 64 MB)")
    p.add_argument("--timeout", type=float, default=300, help="seconds per program run")
    p.add_argument("--out", default=os.path.join(RESULTS_DIR, "allreduce.json"))
    args = p.parse_args()
    if not os.path.isabs(args.build_dir):
        args.build_dir = os.path.join(ROOT, args.build_dir)
    args.procs = [int(x) for x in args.procs.split(",") if x]
    args.impls = [x for x in args.impls.split(",") if x]
    unknown = set(args.impls) - set(IMPLS)
    if unknown:
        p.error("unknown --impls %s; known: %s" % (sorted(unknown), ",".join(IMPLS)))
    return args


def main():
    args = parse_args()
    sizes = [1 << s for s in range(10, 27, 2) if (1 << s) <= args.max_bytes]
    runs = {n: {impl: [] for impl in IMPLS} for n in args.procs}
    errors = []
    load_before = os.getloadavg()
    print("load average %.2f %.2f %.2f (2-core machine: other jobs skew timings)" % load_before,
          flush=True)
    for rep in range(args.repeat):
        order = args.impls[rep % len(args.impls):] + args.impls[:rep % len(args.impls)]
        for n in args.procs:
            for impl in order:
                start = time.perf_counter()
                records, error = run_impl(args, impl, n)
                took = time.perf_counter() - start
                if error:
                    print("repeat %d np=%d %s: FAILED %s" % (rep, n, impl, error), flush=True)
                    errors.append({"repeat": rep, "np": n, "impl": impl, "error": error})
                    continue
                runs[n][impl].append(records)
                print("repeat %d np=%d %s: %d sizes in %.1f s" % (rep, n, impl, len(records),
                                                                  took), flush=True)
    record = {"time": time.strftime("%Y-%m-%d %H:%M:%S"), "host": platform.node(),
              "cpus": os.cpu_count(), "mpi_transport": args.mpi_transport,
              "repeat": args.repeat, "seconds_per_size": args.seconds,
              "stat": "median over repeats of each run's median seconds_per_op",
              "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "worlds": {}, "errors": errors}
    status = 0
    for n in args.procs:
        text, cells = table(n, runs[n], sizes)
        print("\n" + text + "\n")
        for line, passed in goals(cells):
            print("  %s  %s" % ({True: "PASS", False: "FAIL", None: "n/a "}[passed], line))
            if passed is False:
                status = max(status, 1)
        record["worlds"][str(n)] = {"median_seconds": {str(b): cells[b] for b in sizes},
                                    "runs": runs[n]}
    if errors:
        status = 2
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
    print("\nmpirun transport: %s; %d repeat(s); load average after %.2f; record: %s" % (
        args.mpi_transport, args.repeat, os.getloadavg()[0], os.path.relpath(args.out, ROOT)))
    return status


if __name__ == "__main__":
    sys.exit(main())
