#!/usr/bin/python3
"""The collective at scale in the simulated cluster (tests/cluster/netns_cluster.py): bootstrap
time and allreduce time, beside Open MPI, XGBoost 3.x's collective and the cost model.
bench/README.md ("cluster.py") says what each table means; run as root.

    cluster.py bootstrap [--netns 8,32,64,128] [--loopback 128,512,1024] [--rate 10gbit]
    cluster.py allreduce [--workers 8,32,64] [--rates 10gbit,1gbit] [--impls tcp,mpi,xgboost]
    cluster.py training [--workers 2,4,8,16,32] [--rate 1gbit] [--rounds 5] [--impls tcp,mpi]
    cluster.py xgboost-venv            # makes bench/data/xgb3-venv (pip xgboost-cpu 3.x, numpy)
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
import netns_cluster  # noqa: E402

BUILD = os.path.join(ROOT, "build")
RESULTS = os.path.join(ROOT, "bench", "results")
VENV = os.path.join(ROOT, "bench", "data", "xgb3-venv")
XGB_WORKER = os.path.join(ROOT, "bench", "cluster_xgb_worker.py")
# 28 features x 256 bins x 16 B: one level-0 histogram of the dense 100k x 28 set.
SIZES = [114688, 1 << 20, 16 << 20]
JOB = """objective = binary:logistic
max_depth = 4
num_round = 5
nthread = 1
data = "{root}/data/libsvm/binary.train"
"""
TIMELINE = re.compile(r"hellos from ([\d.]+) s to ([\d.]+) s, links up at ([\d.]+) s")
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def load():
    return os.getloadavg()[0]


def run(argv, env=None, timeout=600):
    """(exit status, output, seconds); a command past `timeout` is killed and gives status 124
    with what it printed (processes it left in a cluster's hosts are the caller's to kill)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        return 124, (out or "") + "\ntimed out after %g s" % timeout, time.monotonic() - t0
    return p.returncode, p.stdout, time.monotonic() - t0


# ----------------------------------------------------------------------------------- bootstrap

def bootstrap_one(n, cluster, conf, work):
    """One 5-round job of n workers; returns its row (timeline, wall, model identical?)."""
    model = os.path.join(work, "m%d.json" % n)
    command = [os.path.join(BUILD, "ringboost"), "train", conf, "model_out=" + model]
    submit = os.path.join(BUILD, "ringboost-submit")
    if cluster is None:
        argv, env = [submit, "--num-workers", str(n)] + command, None
    else:
        argv, env = cluster.submit_argv(submit, command), dict(os.environ, **cluster.env())
    before = load()
    code, out, wall = run(argv, env=env)
    m = TIMELINE.search(out)
    row = {"workers": n, "where": "loopback" if cluster is None else "netns " + cluster.rate,
           "exit": code, "wall_s": round(wall, 2), "load": [round(before, 1), round(load(), 1)]}
    if m:
        row.update(first_hello_s=float(m.group(1)), last_hello_s=float(m.group(2)),
                   links_up_s=float(m.group(3)))
    with open(os.path.join(work, "one.json"), "rb") as a:
        one = a.read()
    try:
        with open(model, "rb") as b:
            row["identical"] = b.read() == one
    except OSError:
        row["identical"] = False
    if code != 0:
        row["error"] = "\n".join(line for line in out.splitlines() if "error" in line)[-600:]
    return row


def bootstrap(args):
    work = tempfile.mkdtemp(prefix="rb-bench-cluster-")
    conf = os.path.join(work, "a.conf")
    with open(conf, "w") as f:
        f.write(JOB.format(root=ROOT))
    code, out, _ = run([os.path.join(BUILD, "ringboost"), "train", conf,
                        "model_out=" + os.path.join(work, "one.json")])
    if code != 0:
        sys.exit("one process failed:\n" + out)
    rows = []
    for n in args.netns:
        with netns_cluster.Cluster(n, args.rate) as c:
            rows.append(bootstrap_one(n, c, conf, work))
        print(json.dumps(rows[-1]), flush=True)
    for n in args.loopback:
        rows.append(bootstrap_one(n, None, conf, work))
        print(json.dumps(rows[-1]), flush=True)
    print("\n| workers | where | hellos (first - last) s | links up s | job wall s | model "
          "identical | load before/after |\n|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %d | %s | %s - %s | %s | %s | %s | %s / %s |" % (
            r["workers"], r["where"], r.get("first_hello_s", "n/a"), r.get("last_hello_s", "n/a"),
            r.get("links_up_s", "n/a"), r["wall_s"], "yes" if r["identical"] else "NO",
            r["load"][0], r["load"][1]))
    save("cluster-bootstrap.json", rows)
    subprocess.run(["rm", "-rf", work])
    return 0 if all(r["exit"] == 0 and r["identical"] for r in rows) else 1


# ----------------------------------------------------------------------------------- allreduce

def hypercube(n):
    """P' (the largest power of two <= n), L' = log2 P' and E = n - P' of the tcp backend's
    halving and doubling (proto::Hypercube)."""
    p = 1
    while p * 2 <= n:
        p *= 2
    return p, int(math.log2(p)), n - p


def backend_algorithm(n, size, int64=True):
    """The tcp backend's choice for an allreduce of `size` bytes of 8-byte elements under its
    default cost model (rabit_latency_us 25, rabit_bandwidth_mbps 10000), as PickAllreduce: the
    ring from 32768 elements where it is no slower than the tree, else the tree; recursive halving
    and doubling (int64 sums only, over the hypercube's links) where strictly cheaper, from P'
    elements."""
    beta, alpha = 8.0 / 10e9, 25e-6
    count = size // 8
    ring = 2 * (n - 1) * alpha + 2.0 * (n - 1) / n * size * beta
    tree = 2 * int(math.floor(math.log2(n))) * (alpha + 2 * size * beta)
    use_ring = count >= 32768 and count >= n and ring <= tree
    p, steps, extra = hypercube(n)
    halving = 2 * steps * alpha + 2.0 * (p - 1) / p * size * beta
    if extra:
        halving += 2 * (alpha + size * beta)
    if int64 and count >= p and halving < (ring if use_ring else tree):
        return "halving"
    return "ring" if use_ring else "tree"


def wire_bytes(n, size, algorithm):
    """What one rank sends in the worst case (the tree: a node's buffer to its parent and two
    children; halving: a folded pair's partner also sends the result back)."""
    if algorithm == "ring":
        return 2.0 * (n - 1) / n * size
    if algorithm == "halving":
        p, _, extra = hypercube(n)
        return 2.0 * (p - 1) / p * size + (size if extra else 0)
    return 3 * size


def model_seconds(n, size, rate, alpha, burst=None, int64=True):
    """The tcp backend's algorithm on links of `rate` and one-way latency alpha: the ring
    (reduce-scatter + allgather: 2 (n-1) steps), the binary heap tree (not pipelined: each level
    receives two children's buffers over one link, then sends to each in turn), or halving and
    doubling (2 log2 P' steps moving 2 (P'-1)/P' of the buffer, and where n is no power of two the
    fold: the extra ranks' buffers in, the result out, 2 more steps of the whole buffer).
    `burst`: bytes a link passes unshaped after an idle millisecond (the simulated links' tbf
    bucket; None for a real network): taken off each message of the tree, whose levels leave
    the links idle; the ring and halving keep a rank's link busy, so they get the bucket once
    per call."""
    beta = 8.0 / netns_cluster.rate_bits(rate)
    burst = burst or 0
    depth = int(math.floor(math.log2(n)))
    algorithm = backend_algorithm(n, size, int64)
    if algorithm == "ring":
        wire = 2.0 * (n - 1) / n * size
        return 2 * (n - 1) * alpha + max(0.0, wire - burst) * beta, "ring"
    if algorithm == "halving":
        p, steps, extra = hypercube(n)
        wire = 2.0 * (p - 1) / p * size + (2 * size if extra else 0)
        return (2 * steps + (2 if extra else 0)) * alpha + max(0.0, wire - burst) * beta, "halving"
    return 2 * depth * (alpha + max(0.0, 2 * size - burst) * beta), "tree"


def parse_lines(out):
    rows = {}
    for line in out.splitlines():
        line = line[line.find("{"):] if "{" in line else ""
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if "bytes" in d:
            rows[d["bytes"]] = d["seconds_per_op"]
    return rows


def sweep_flags(size, seconds):
    return ["--min-bytes=%d" % size, "--max-bytes=%d" % size, "--seconds=%g" % seconds,
            "--min-iters=5"]


def allreduce_tcp(c, size, seconds, extra=(), submit_extra=(), timeout=600):
    argv = c.submit_argv(os.path.join(BUILD, "ringboost-submit"),
                         [os.path.join(BUILD, "bench", "allreduce_bench"), "communicator=tcp"] +
                         list(extra) + sweep_flags(size, seconds), submit_extra)
    code, out, _ = run(argv, env=dict(os.environ, **c.env()), timeout=timeout)
    return parse_lines(out).get(size), (out[-800:] if code else "")


def allreduce_mpi(c, size, seconds, work, timeout=600):
    hostfile = os.path.join(work, "hosts")
    c.mpi_hostfile(hostfile)
    argv = c.head_argv(["mpirun", "-np", str(c.n)] + c.mpirun_args(hostfile) +
                       [os.path.join(BUILD, "bench", "mpi_allreduce_bench")] +
                       sweep_flags(size, seconds))
    code, out, _ = run(argv, env=dict(os.environ, **c.env(), **MPI_ENV), timeout=timeout)
    return parse_lines(out).get(size), (out[-800:] if code else "")


def allreduce_xgboost(c, size, seconds, python, timeout=600):
    """XGBoost 3.x's collective: its RabitTracker on the head host, n workers in the hosts."""
    argv = c.head_argv([python, XGB_WORKER, "--tracker", c.ip(-1), "--workers", str(c.n),
                        "--bytes", str(size), "--seconds", str(seconds)])
    code, out, _ = run(argv, env=dict(os.environ, **c.env(), ENTER_HOST=netns_cluster.ENTER),
                       timeout=timeout)
    return parse_lines(out).get(size), (out[-800:] if code else "")


def measure_terms(seconds):
    """The simulator's own terms, on 2 unshaped hosts: alpha, the one-way latency of a veth link
    (half an 8-byte tcp allreduce: a tree of one edge, up and back), and the machine's capacity,
    bytes per second that all links together can move on this box's 2 shared cores (a 16 MB
    ring allreduce of 2 moves 2 x 16 MB)."""
    with netns_cluster.Cluster(2, None) as c:
        t, err = allreduce_tcp(c, 8, seconds)
        big, err2 = allreduce_tcp(c, 16 << 20, seconds)
    if t is None or big is None:
        sys.exit("probe failed: " + err + err2)
    return t / 2, 2 * (16 << 20) / big


def allreduce(args):
    work = tempfile.mkdtemp(prefix="rb-bench-cluster-")
    alpha, capacity = measure_terms(args.seconds)
    print("alpha (one-way latency of a veth link): %.1f us; machine capacity: %.0f MB/s; "
          "load %.1f" % (alpha * 1e6, capacity / 1e6, load()), flush=True)
    rows = []
    for rate in args.rates:
        for n in args.workers:
            with netns_cluster.Cluster(n, rate) as c:
                for size in args.sizes:
                    row = {"workers": n, "rate": rate, "bytes": size, "load": round(load(), 1)}
                    int64 = args.type == "int64"
                    row["type"] = args.type
                    # Halving and doubling run only over the hypercube (ringboost-submit
                    # --hypercube) and on int64 sums.
                    row["model_s"], row["algorithm"] = model_seconds(
                        n, size, rate, alpha, netns_cluster.burst_bytes(rate),
                        int64 and args.hypercube)
                    # What all n hosts move at once, against what this box can move.
                    row["machine_s"] = n * wire_bytes(n, size, row["algorithm"]) / capacity
                    for impl in args.impls:
                        if impl == "tcp":
                            t, err = allreduce_tcp(
                                c, size, args.seconds, ["type=" + args.type] + args.tcp_args,
                                ["--hypercube"] if args.hypercube else [], args.impl_timeout)
                        elif impl == "mpi":
                            t, err = allreduce_mpi(c, size, args.seconds, work, args.impl_timeout)
                        else:
                            t, err = allreduce_xgboost(c, size, args.seconds, args.xgboost_python,
                                                       args.impl_timeout)
                        row[impl] = t
                        if err:
                            row[impl + "_error"] = err
                        if err.endswith("timed out after %g s" % args.impl_timeout):
                            c.kill_all()  # a hung run's workers must not meet the next run's
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    head = "| workers | link | bytes | type | algorithm | model ms | machine ms |" + "".join(
        " %s ms |" % i for i in args.impls) + " tcp / model | tcp / mpi | load |"
    print("\n" + head + "\n" + "|---" * (head.count("|") - 1) + "|")
    for r in rows:
        cells = "".join(" %s |" % ("%.2f" % (r[i] * 1e3) if r.get(i) else "n/a")
                        for i in args.impls)
        tcp, mpi = r.get("tcp"), r.get("mpi")
        print("| %d | %s | %d | %s | %s | %.2f | %.2f |%s %s | %s | %s |" % (
            r["workers"], r["rate"], r["bytes"], r["type"], r["algorithm"], r["model_s"] * 1e3,
            r["machine_s"] * 1e3, cells,
            "%.2f" % (tcp / r["model_s"]) if tcp else "n/a",
            "%.2f" % (tcp / mpi) if tcp and mpi else "n/a", r["load"]))
    save("cluster-allreduce.json", {"alpha_s": alpha, "capacity_bytes_s": capacity, "rows": rows})
    subprocess.run(["rm", "-rf", work])
    return 0 if all(r.get(i) for r in rows for i in args.impls) else 2


# ----------------------------------------------------------------------------------- faults

def faults(args):
    """kill -9 of one worker of --workers at a random round (seeded), rabit_recover=1 and one
    restart allowed: the job must finish with the model of one process."""
    import random
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="rb-bench-cluster-")
    conf = os.path.join(work, "a.conf")
    with open(conf, "w") as f:
        f.write(JOB.format(root=ROOT).replace("num_round = 5", "num_round = %d" % args.rounds) +
                'eval[test] = "%s/data/libsvm/binary.test"\n' % ROOT)
    one = os.path.join(work, "one.json")
    code, out, _ = run([os.path.join(BUILD, "ringboost"), "train", conf, "model_out=" + one])
    if code != 0:
        sys.exit("one process failed:\n" + out)
    victim, at_round = rng.randrange(1, args.workers), rng.randrange(2, args.rounds - 1)
    model = os.path.join(work, "m.json")
    with netns_cluster.Cluster(args.workers, args.rate) as c:
        argv = c.submit_argv(os.path.join(BUILD, "ringboost-submit"),
                             [os.path.join(BUILD, "ringboost"), "train", conf,
                              "rabit_recover=1", "model_out=" + model],
                             extra=["--local-num-attempt", "1"])
        t0 = time.monotonic()
        p = subprocess.Popen(argv, env=dict(os.environ, **c.env()), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
        lines, killed = [], None
        for line in p.stdout:
            lines.append(line)
            if killed is None and re.match(r"\[rank 0\] \[%d\]\t" % at_round, line):
                pids = subprocess.run(["ip", "netns", "pids", c.ns(victim)],
                                      stdout=subprocess.PIPE, text=True).stdout.split()
                for pid in pids:
                    os.kill(int(pid), 9)
                killed = time.monotonic() - t0
        p.wait()
        wall = time.monotonic() - t0
    with open(one, "rb") as a:
        want = a.read()
    try:
        with open(model, "rb") as b:
            same = b.read() == want
    except OSError:
        same = False
    restarted = [l for l in lines if "starting it again" in l or "resumes from" in l]
    row = {"workers": args.workers, "victim_task": victim, "after_round": at_round,
           "killed_at_s": killed, "exit": p.returncode, "wall_s": round(wall, 2),
           "identical": same, "load": round(load(), 1), "log": [l.strip()[:200] for l in restarted[:4]]}
    print(json.dumps(row, indent=1))
    save("cluster-faults.json", row)
    subprocess.run(["rm", "-rf", work])
    return 0 if p.returncode == 0 and same and killed is not None else 1


# ----------------------------------------------------------------------------------- training

# Each worker's `collective in training: ...` line (verbosity 3), with ringboost-submit's prefix.
COLL_LINE = re.compile(r"\[rank (\d+)\].*collective in training: (\d+) calls, (\d+) bytes per "
                       r"round, (\d+) bytes sent per worker per round; ([\d.e+-]+) s")
TRAIN_JOB = """objective = binary:logistic
max_depth = 6
max_bin = 256
num_round = {rounds}
nthread = 1
verbosity = 3
data = "{data}"
"""


def dense_100k():
    """bench/data/dense_100k.libsvm: the shared generator's dense set, 100,000 rows (seed 2)."""
    path = os.path.join(ROOT, "bench", "data", "dense_100k.libsvm")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        gen = os.path.join(ROOT, "..", "shared", "bench", "gen_dense.py")
        subprocess.run(["/usr/bin/python3", gen, "100000", "2", path + ".tmp"], check=True)
        os.replace(path + ".tmp", path)
    return path


def training_one(c, conf, mode, model, work, impl):
    """One job of c.n workers with hist_sync=mode; its row: per-worker bytes and seconds."""
    command = [os.path.join(BUILD, "ringboost"), "train", conf, "hist_sync=" + mode,
               "model_out=" + model]
    if impl == "tcp":
        argv = c.submit_argv(os.path.join(BUILD, "ringboost-submit"), command)
        env = dict(os.environ, **c.env())
    else:
        hostfile = os.path.join(work, "hosts")
        c.mpi_hostfile(hostfile)
        argv = c.head_argv(["mpirun", "-np", str(c.n), "--tag-output"] +
                           c.mpirun_args(hostfile) + command + ["communicator=mpi"])
        env = dict(os.environ, **c.env(), **MPI_ENV)
    before = load()
    code, out, wall = run(argv, env=env)
    if impl == "mpi":  # --tag-output writes [1,R]<stderr>: make it [rank R]
        out = re.sub(r"\[1,(\d+)\]<std(?:out|err)>:", r"[rank \1] ", out)
    lines = [m.groups() for m in COLL_LINE.finditer(out)]
    row = {"workers": c.n, "rate": c.rate, "impl": impl, "hist_sync": mode, "exit": code,
           "wall_s": round(wall, 2), "load": [round(before, 1), round(load(), 1)]}
    if code != 0 or len(lines) != c.n:
        row["error"] = out[-800:]
        return row
    rounds = int(re.search(r"num_round = (\d+)", open(conf).read()).group(1))
    sent = [int(l[3]) for l in lines]
    secs = [float(l[4]) / rounds for l in lines]
    row.update(calls=int(lines[0][1]), payload=int(lines[0][2]),
               sent_mean=int(statistics.mean(sent)), sent_max=max(sent),
               coll_s_mean=statistics.mean(secs), coll_s_max=max(secs))
    return row


def training(args):
    """hist_sync=allreduce against reduce_scatter on the dense 100k x 28 set at depth 6, 1 thread
    a worker: bytes each worker sent a round and the round's collective seconds, per N."""
    work = tempfile.mkdtemp(prefix="rb-bench-cluster-")
    conf = os.path.join(work, "t.conf")
    with open(conf, "w") as f:
        f.write(TRAIN_JOB.format(rounds=args.rounds, data=dense_100k()))
    one = os.path.join(work, "one.json")
    code, out, _ = run([os.path.join(BUILD, "ringboost"), "train", conf, "model_out=" + one])
    if code != 0:
        sys.exit("one process failed:\n" + out)
    with open(one, "rb") as f:
        want = f.read()
    rows = []
    for n in args.workers:
        with netns_cluster.Cluster(n, args.rate) as c:
            for rep in range(args.repeat):
                for impl in args.impls:
                    for mode in ("allreduce", "reduce_scatter"):
                        model = os.path.join(work, "m.json")
                        if os.path.exists(model):
                            os.remove(model)
                        row = training_one(c, conf, mode, model, work, impl)
                        try:
                            with open(model, "rb") as f:
                                row["identical"] = f.read() == want
                        except OSError:
                            row["identical"] = False
                        rows.append(row)
                        print(json.dumps(row), flush=True)
    print("\n| workers | link | backend | hist_sync | calls | payload B | sent B per worker "
          "(mean / max) | collective ms per round (mean / max of workers) | model identical | "
          "load |\n|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "sent_mean" not in r:
            print("| %d | %s | %s | %s | failed: exit %s | | | | | |" % (
                r["workers"], r["rate"], r["impl"], r["hist_sync"], r["exit"]))
            continue
        print("| %d | %s | %s | %s | %d | %d | %d / %d | %.1f / %.1f | %s | %s-%s |" % (
            r["workers"], r["rate"], r["impl"], r["hist_sync"], r["calls"], r["payload"],
            r["sent_mean"], r["sent_max"], r["coll_s_mean"] * 1e3, r["coll_s_max"] * 1e3,
            "yes" if r["identical"] else "NO", r["load"][0], r["load"][1]))
    save("cluster-training.json", rows)
    subprocess.run(["rm", "-rf", work])
    return 0 if all(r["exit"] == 0 and r["identical"] for r in rows) else 1


# ----------------------------------------------------------------------------------- on paper

# One round of the dense 100k x 28 set at depth 6 (bench/distributed.py's level table): the
# level-L allreduce carries the smaller child's histogram of each split of level L-1, 1, 1, 2, 4,
# 8, 16 histograms, 3,153,432 bytes in all a round (the measured payload), plus
# SMALL_CALLS allreduces of at most 64 bytes (gradient scale, leaf sums, the round's counts).
LEVEL_HISTOGRAMS = [1, 1, 2, 4, 8, 16]
ROUND_PAYLOAD = 3153432
SMALL_CALLS = 8


def round_seconds(n, rate, alpha, algorithm):
    """The collective time of one round at n workers: `tcp` (what the tcp backend picks per
    call: the histograms are int64 sums, so halving where its model says), `tree` or `ring` for
    every call, or `halving` (recursive halving and doubling, Rabenseifner: 2 log2 P' alpha +
    2 (P'-1)/P' S / B, and the fold of the extra ranks where N is no power of two)."""
    beta = 8.0 / netns_cluster.rate_bits(rate)
    total = 0.0
    unit = ROUND_PAYLOAD / float(sum(LEVEL_HISTOGRAMS))
    sizes = [unit * h for h in LEVEL_HISTOGRAMS] + [64.0] * SMALL_CALLS
    p, steps, extra = hypercube(n)
    for size in sizes:
        ring_t = 2 * (n - 1) * alpha + 2.0 * (n - 1) / n * size * beta
        tree_t = 2 * int(math.floor(math.log2(n))) * (alpha + 2 * size * beta)
        halving_t = 2 * steps * alpha + 2.0 * (p - 1) / p * size * beta
        if extra:
            halving_t += 2 * (alpha + size * beta)
        tcp = backend_algorithm(n, int(size) // 8 * 8)
        total += {"ring": ring_t, "tree": tree_t, "halving": halving_t}[
            tcp if algorithm == "tcp" else algorithm]
    return total


def paper(args):
    print("| workers | network | alpha us | tcp today ms | all tree ms | all ring ms | "
          "halving-doubling ms |\n|---|---|---|---|---|---|---|")
    for n in args.workers:
        for rate in args.rates:
            for alpha_us in args.alpha_us:
                a = alpha_us * 1e-6
                print("| %d | %s | %g | %s |" % (n, rate, alpha_us, " | ".join(
                    "%.2f" % (round_seconds(n, rate, a, alg) * 1e3)
                    for alg in ("tcp", "tree", "ring", "halving"))))
    return 0


# ----------------------------------------------------------------------------------- helpers

def save(name, record):
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, name), "w") as f:
        json.dump(record, f, indent=1)


def xgboost_venv(_args):
    if not os.path.exists(os.path.join(VENV, "bin", "python")):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([os.path.join(VENV, "bin", "pip"), "install", "-q",
                           "xgboost-cpu>=3,<4", "numpy"])
    return 0


def ints(text):
    return [int(x) for x in text.split(",") if x]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    b = sub.add_parser("bootstrap")
    b.add_argument("--netns", type=ints, default=[8, 32, 64, 128])
    b.add_argument("--loopback", type=ints, default=[128, 512, 1024])
    b.add_argument("--rate", default="10gbit")
    a = sub.add_parser("allreduce")
    a.add_argument("--workers", type=ints, default=[8, 32, 64])
    a.add_argument("--rates", type=lambda t: t.split(","), default=["10gbit", "1gbit"])
    a.add_argument("--impls", type=lambda t: t.split(","), default=["tcp", "mpi", "xgboost"])
    a.add_argument("--sizes", type=ints, default=SIZES)
    a.add_argument("--seconds", type=float, default=0.3)
    # int64: the training's histogram cells, the sums halving and doubling may take; double:
    # order-dependent sums, which keep the ring or the tree (the tables before issue 29's halving).
    a.add_argument("--type", choices=["int64", "double"], default="int64")
    # More key=value for the tcp workers, e.g. rabit_algorithm=ring (the algorithm column then
    # still shows the default choice).
    a.add_argument("--tcp-args", type=lambda t: t.split(","), default=[])
    # Link the tcp workers' hypercube too (ringboost-submit --hypercube; off by default there).
    a.add_argument("--hypercube", action="store_true")
    a.add_argument("--xgboost-python", default=os.path.join(VENV, "bin", "python"))
    # Seconds one implementation's run of one size may take; past it the run is killed (with
    # every process in the cluster's hosts) and the row says "timed out".
    a.add_argument("--impl-timeout", type=float, default=300)
    sub.add_parser("xgboost-venv")
    f = sub.add_parser("faults")
    f.add_argument("--workers", type=int, default=32)
    f.add_argument("--rounds", type=int, default=40)
    f.add_argument("--rate", default="10gbit")
    f.add_argument("--seed", type=int, default=29)
    t = sub.add_parser("training")
    t.add_argument("--workers", type=ints, default=[2, 4, 8, 16, 32])
    t.add_argument("--rate", default="1gbit")
    t.add_argument("--rounds", type=int, default=5)
    t.add_argument("--repeat", type=int, default=1)
    t.add_argument("--impls", type=lambda t: t.split(","), default=["tcp"])
    p = sub.add_parser("paper")
    p.add_argument("--workers", type=ints, default=[8, 64, 1000])
    p.add_argument("--rates", type=lambda t: t.split(","), default=["25gbit", "100gbit"])
    p.add_argument("--alpha-us", type=lambda t: [float(x) for x in t.split(",")],
                   default=[14, 25])
    args = ap.parse_args()
    try:
        return {"bootstrap": bootstrap, "allreduce": allreduce,
                "xgboost-venv": xgboost_venv, "paper": paper,
                "faults": faults, "training": training}[args.what](args)
    except netns_cluster.Skip as e:
        print("skip: %s" % e)
        return netns_cluster.SKIP
    except netns_cluster.Interrupted as e:
        print("%s: the cluster is torn down" % e)
        return 130


if __name__ == "__main__":
    sys.exit(main())
