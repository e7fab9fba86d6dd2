#!/usr/bin/python3
"""Training speed and memory of ringboost against the current XGBoost, LightGBM and CatBoost.

  /usr/bin/python3 bench/speed.py                 # dense 1M x 28 set, 100 rounds, every peer
  /usr/bin/python3 bench/speed.py --sparse        # also the sparse 1M x 10k set (peers: 7-16 GB)
  /usr/bin/python3 bench/speed.py --onehot --no-dense   # the one-hot 1M x 10k set (bundles)
  /usr/bin/python3 bench/speed.py --rounds 20 --no-catboost
  /usr/bin/python3 bench/speed.py --repeat 3     # three passes: each pass's ratios, their median
  /usr/bin/python3 bench/speed.py --setup-peers   # only (re)make the peers' venv, then exit

The peers come from PyPI into a venv the script makes on first use, bench/venv (ignored by git):
XGBoost 3.x (xgboost-cpu), LightGBM 4.x and CatBoost 1.x (PEERS below). Debian's XGBoost 1.7.4
(/usr/bin/python3) is one more column, `xgboost 1.7.4`, unless --no-xgboost-17.

The data sets are generated on first use into bench/data/ (ignored by git) with the shared
generators (../shared/bench/gen_dense.py, gen_sparse.py; bench/gen_onehot.py; they need numpy). Every tool runs in its
own process under `/usr/bin/time -v` ("Maximum resident set size" = peak RSS) with the same
settings (PARAMS below) and the AUC on the test set evaluated every round.

What each tool reports:
  ringboost  verbosity=2 lines on stderr: `[ringboost] info: setup: load X s, cuts Y s, binning
             Z s`, `[ringboost] info: round I: T s`, `[ringboost] info: training: N rounds in
             T s`; test AUC from the eval log on stdout.
  peers      the Python package in a child process; load = building the train and test sets
             (XGBoost builds its cuts and bins lazily inside the first round, so they are part of
             its "first round"; LightGBM and CatBoost bin inside load); every round's time from
             the library's own per-iteration callback, the clock read once before training and
             once after each round's evaluation, the same way for all three. The child's RSS
             includes the Python interpreter (the "python baseline" lines say how much).
Output: a markdown table per data set, the ratios of ringboost to the fastest peer (time) and to
the smallest peer (memory), the machine's load (uptime) before and after, and a JSON record in
bench/results/. With --repeat N, a table per pass (every tool once), then each ratio pass by pass
with its median, least and largest, and every tool's s/round pass by pass.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(ROOT, "bench", "data")
RESULTS_DIR = os.path.join(ROOT, "bench", "results")
VENV = os.path.join(ROOT, "bench", "venv")  # the peers' venv, made on first use
# pip requirements of the peers' venv; xgboost-cpu is XGBoost without the CUDA libraries.
PEERS = ["xgboost-cpu>=3,<4", "lightgbm>=4,<5", "catboost>=1,<2"]
DEBIAN_PYTHON = "/usr/bin/python3"  # Debian's python3-xgboost 1.7.4
GEN_DIR = os.path.join(ROOT, "..", "shared", "bench")
TIME = "/usr/bin/time"
# After a process with a 16 GB peak exits (XGBoost on the sparse set), this VM runs memory-bound
# work 20-35% slower for about 3 minutes (bench/README.md, "The run after a 16 GB process").
SETTLE_SECONDS = 240

NUM_ROUND = 100
PARAMS = {
    "objective": "binary:logistic",
    "tree_method": "hist",
    "eta": 0.1,
    "max_depth": 8,
    "max_bin": 256,
    "nthread": 2,
    "seed": 0,
    "eval_metric": "auc",
}

# name: [(file, generator, rows, seed) for train, test]
SETS = {
    "dense": [("dense_1m.libsvm", "gen_dense.py", 1000000, 2),
              ("dense_test_200k.libsvm", "gen_dense.py", 200000, 3)],
    "sparse": [("sparse_1m.libsvm", "gen_sparse.py", 1000000, 11),
               ("sparse_test_200k.libsvm", "gen_sparse.py", 200000, 12)],
    # One-hot blocks (exclusive features, feature bundling's case); its generator is in bench/.
    "onehot": [("onehot_1m.libsvm", "gen_onehot.py", 1000000, 21),
               ("onehot_test_200k.libsvm", "gen_onehot.py", 200000, 22)],
}


# ---- helpers ---------------------------------------------------------------------------------
def ensure_time():
    """/usr/bin/time (GNU time, package `time`) is needed for peak RSS; installs it if absent."""
    if os.access(TIME, os.X_OK):
        return
    print("installing GNU time (package `time`)", flush=True)
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "time"],
                   check=True, env=env)


def ensure_data(name):
    """Paths (train, test) of a set, generating missing files (numpy needed: /usr/bin/python3)."""
    os.makedirs(DATA_DIR, exist_ok=True)
    paths = []
    for file_name, generator, rows, seed in SETS[name]:
        path = os.path.join(DATA_DIR, file_name)
        if not os.path.exists(path):
            gen = os.path.join(GEN_DIR, generator)
            if not os.path.exists(gen):  # bench/'s own generators
                gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), generator)
            print("generating %s (%s %d %d)" % (path, generator, rows, seed), flush=True)
            tmp = path + ".tmp"
            subprocess.run(["/usr/bin/python3", gen, str(rows), str(seed), tmp], check=True)
            os.replace(tmp, path)
        paths.append(path)
    return paths


def run_measured(cmd, timeout, env=None):
    """Runs cmd under /usr/bin/time -v; returns (returncode, stdout, stderr, peak RSS MiB, wall s,
    CPU s)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as time_out:
        start = time.perf_counter()
        proc = subprocess.run([TIME, "-v", "-o", time_out.name] + cmd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout, env=env)
        wall = time.perf_counter() - start
        report = time_out.read()
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    rss = int(match.group(1)) / 1024.0 if match else float("nan")
    # CPU seconds (user + system) of the whole process: on a loaded machine they move far less
    # than wall times, so the table gives them beside the per-round wall times.
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", report))
    return proc.returncode, proc.stdout, proc.stderr, rss, wall, cpu if report else float("nan")


def worker_env(threads):
    return dict(os.environ, OMP_NUM_THREADS=str(threads))


def fail_tail(tool, proc_out, proc_err, rc):
    tail = (proc_out + proc_err).strip().splitlines()[-8:]
    return "%s exited %d:\n  %s" % (tool, rc, "\n  ".join(tail))


def summary(tool, load, cuts_bin, rounds, rss, auc, wall, cpu, note=""):
    """One table row: rounds = seconds of each round in order."""
    first = rounds[0] if rounds else float("nan")
    rest = statistics.mean(rounds[1:]) if len(rounds) > 1 else float("nan")
    median = statistics.median(rounds[1:]) if len(rounds) > 1 else float("nan")
    setup = load + (cuts_bin if cuts_bin == cuts_bin else 0.0)  # NaN-safe
    return {"tool": tool, "load_s": load, "cuts_bin_s": cuts_bin, "first_round_s": first,
            "mean_round_s": rest, "median_round_s": median, "train_s": sum(rounds) if rounds else float("nan"), "to_first_tree_s": setup + first,
            "peak_rss_mib": rss, "test_auc": auc, "process_s": wall, "cpu_s": cpu,
            "rounds": len(rounds),
            "note": note}


# ---- ringboost -------------------------------------------------------------------------------
SETUP_LINE = re.compile(r"setup: load ([0-9.eE+-]+) s, cuts ([0-9.eE+-]+) s, "
                        r"binning ([0-9.eE+-]+) s")
ROUND_LINE = re.compile(r"info: round (\d+): ([0-9.eE+-]+) s")
TRAIN_LINE = re.compile(r"training: (\d+) rounds in ([0-9.eE+-]+) s")
AUC_LINE = re.compile(r"\[(\d+)\].*\ttest-auc:([0-9.eE+-]+)")


def last_auc(text):
    values = [float(m.group(2)) for m in map(AUC_LINE.search, text.splitlines()) if m]
    return values[-1] if values else float("nan")


def run_ringboost(args, train, test, work_dir, tool="ringboost", extra=()):
    """ringboost's CLI on PARAMS, with `extra` config lines (e.g. quantized_grad = on)."""
    conf = os.path.join(work_dir, "speed.conf")
    lines = ["%s = %s" % kv for kv in PARAMS.items()] + list(extra)
    lines += ["num_round = %d" % args.rounds, "verbosity = 2",
              'data = "%s?format=libsvm"' % train, 'eval[test] = "%s?format=libsvm"' % test,
              'model_out = "%s"' % os.path.join(work_dir, "ringboost.model")]
    with open(conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, out, err, rss, wall, cpu = run_measured([args.ringboost, "train", conf], args.timeout,
                                           worker_env(PARAMS["nthread"]))
    if rc != 0:
        raise RuntimeError(fail_tail(tool, out, err, rc))
    setup = SETUP_LINE.search(err)
    load, cuts, binning = map(float, setup.groups()) if setup else (float("nan"),) * 3
    rounds = [float(m.group(2)) for m in map(ROUND_LINE.search, err.splitlines()) if m]
    note = "" if setup and rounds else "timing lines missing on stderr (verbosity=2)"
    total = TRAIN_LINE.search(err)
    if not rounds and total:  # only the total: spread it evenly
        n, secs = int(total.group(1)), float(total.group(2))
        rounds = [secs / n] * n
    row = summary(tool, load, cuts + binning, rounds, rss, last_auc(out), wall, cpu, note)
    row["extra_config"] = list(extra)  # beside PARAMS, in the JSON record
    return row


# ---- the peers, each in a child process -------------------------------------------------------
class RoundClock:
    """Per-round seconds, read the same way for every peer: the clock once before the first round
    and once at the end of each round (after its evaluation), from the library's callback."""

    def __init__(self):
        self.stamps = []

    def start(self):
        self.stamps = [time.perf_counter()]

    def tick(self):
        self.stamps.append(time.perf_counter())

    def rounds(self):
        return [b - a for a, b in zip(self.stamps, self.stamps[1:])]


def worker_xgboost(train, test, rounds):
    import xgboost as xgb

    start = time.perf_counter()
    dtrain = xgb.DMatrix(train + "?format=libsvm")
    dtest = xgb.DMatrix(test + "?format=libsvm")
    load = time.perf_counter() - start
    clock = RoundClock()

    class Stamp(xgb.callback.TrainingCallback):
        def before_training(self, model):
            clock.start()
            return model

        def after_iteration(self, model, epoch, evals_log):
            clock.tick()
            return False

    log = {}
    xgb.train(dict(PARAMS), dtrain, rounds, evals=[(dtest, "test")], evals_result=log,
              verbose_eval=False, callbacks=[Stamp()])
    return {"load_s": load, "rounds": clock.rounds(), "auc": log["test"]["auc"][-1],
            "version": xgb.__version__}


def worker_lightgbm(train, test, rounds):
    import lightgbm as lgb

    params = {"objective": "binary", "learning_rate": PARAMS["eta"],
              "max_depth": PARAMS["max_depth"], "num_leaves": 2 ** PARAMS["max_depth"] - 1,
              "max_bin": PARAMS["max_bin"], "num_threads": PARAMS["nthread"],
              "seed": PARAMS["seed"], "metric": "auc", "verbose": -1}
    start = time.perf_counter()
    dtrain = lgb.Dataset(train, params=params).construct()
    dtest = lgb.Dataset(test, reference=dtrain, params=params).construct()
    load = time.perf_counter() - start
    clock, log = RoundClock(), {}

    def stamp(env):
        clock.tick()

    clock.start()
    lgb.train(params, dtrain, rounds, valid_sets=[dtest], valid_names=["test"],
              callbacks=[stamp, lgb.record_evaluation(log)])
    return {"load_s": load, "rounds": clock.rounds(), "auc": log["test"]["auc"][-1],
            "version": lgb.__version__}


def worker_catboost(train, test, rounds):
    """CatBoost's own trees (symmetric, depth 8), its Logloss and its AUC; `border_count` is its
    max_bin. Its Pool reads LibSVM directly (libsvm:// scheme)."""
    import catboost

    start = time.perf_counter()
    pools = [catboost.Pool("libsvm://" + path) for path in (train, test)]
    for pool in pools:  # the quantization (binning) is part of load, as for LightGBM
        pool.quantize(border_count=PARAMS["max_bin"])
    load = time.perf_counter() - start
    clock = RoundClock()

    class Stamp:
        def after_iteration(self, info):
            clock.tick()
            return True  # go on

    model = catboost.CatBoostClassifier(
        iterations=rounds, learning_rate=PARAMS["eta"], depth=PARAMS["max_depth"],
        border_count=PARAMS["max_bin"], thread_count=PARAMS["nthread"],
        random_seed=PARAMS["seed"], loss_function="Logloss", eval_metric="AUC",
        allow_writing_files=False, verbose=False)
    clock.start()
    model.fit(pools[0], eval_set=pools[1], callbacks=[Stamp()], use_best_model=False)
    auc = model.get_evals_result()["validation"]["AUC"][-1]
    return {"load_s": load, "rounds": clock.rounds(), "auc": auc, "version": catboost.__version__}


# Peers left out of the sparse set unless asked for: the machine's memory is shared.
SPARSE_OPT_IN = {"xgboost-1.7": "16 GB peak", "catboost": "dense copy of 1M x 10k"}
WORKERS = {"xgboost": worker_xgboost, "lightgbm": worker_lightgbm, "catboost": worker_catboost}
# column name -> (worker kind, interpreter: None = the peers' venv)
PEER_TOOLS = {"xgboost": ("xgboost", None), "lightgbm": ("lightgbm", None),
              "catboost": ("catboost", None), "xgboost-1.7": ("xgboost", DEBIAN_PYTHON)}


def run_worker(args, tool, train, test):
    kind, python = PEER_TOOLS[tool]
    python = python or args.python
    cmd = [python, os.path.abspath(__file__), "--worker", kind, train, test, str(args.rounds)]
    rc, out, err, rss, wall, cpu = run_measured(cmd, args.timeout, worker_env(PARAMS["nthread"]))
    if rc != 0:
        raise RuntimeError(fail_tail(tool, out, err, rc))
    res = json.loads(out.strip().splitlines()[-1])
    cuts_bin = float("nan")  # xgboost: inside the first round; lightgbm, catboost: inside load
    row = summary("%s %s" % (kind, res["version"]), res["load_s"], cuts_bin, res["rounds"],
                  rss, res["auc"], wall, cpu, "RSS includes the Python interpreter")
    row["peer"] = True
    return row


def python_baseline(python, kind):
    """Peak RSS of the worker's interpreter after importing the library alone."""
    rc, _, _, rss, _, _ = run_measured([python, "-c", "import %s" % kind], 120)
    return rss if rc == 0 else float("nan")


def run_xgboost_cli(args, train, test, work_dir):
    conf = os.path.join(work_dir, "xgb.conf")
    lines = ["%s = %s" % kv for kv in PARAMS.items()]
    lines += ["num_round = %d" % args.rounds, 'data = "%s?format=libsvm"' % train,
              'eval[test] = "%s?format=libsvm"' % test,
              'model_out = "%s"' % os.path.join(work_dir, "xgb.model")]
    with open(conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, out, err, rss, wall, cpu = run_measured(["/usr/bin/xgboost", conf], args.timeout)
    if rc != 0:
        raise RuntimeError(fail_tail("xgboost-cli", out, err, rc))
    nan = float("nan")
    row = summary("xgboost-cli 1.7.4", nan, nan, [], rss, last_auc(err), wall, cpu,
                  "whole process only (log has 1 s resolution)")
    return row


# ---- report ----------------------------------------------------------------------------------
COLUMNS = [("load s", "load_s", "%.2f"), ("cuts+bin s", "cuts_bin_s", "%.2f"),
           ("first round s", "first_round_s", "%.3f"),
           ("s/round (median)", "median_round_s", "%.4f"),
           ("to first tree s", "to_first_tree_s", "%.2f"), ("train s", "train_s", "%.2f"),
           ("process s", "process_s", "%.1f"), ("process CPU s", "cpu_s", "%.1f"),
           ("peak RSS MiB", "peak_rss_mib", "%.0f"),
           ("test AUC", "test_auc", "%.5f")]
# ratio name, key, the peer it is taken against (min or max of the peers' values)
RATIOS = [("s/round", "median_round_s", min), ("to first tree", "to_first_tree_s", min),
          ("process CPU", "cpu_s", min), ("peak RSS", "peak_rss_mib", min)]


def cell(fmt, value):
    return "-" if value != value else fmt % value  # NaN -> "-"


def best_peer(rows, key, pick):
    """(value, tool) of the peer row with the smallest (pick=min) or largest value of key."""
    values = [(r[key], r["tool"]) for r in rows if r.get("peer") and r[key] == r[key]]
    return pick(values) if values else (float("nan"), "-")


def print_table(set_name, rows, rounds):
    print("\n### %s, %d rounds, %s\n" % (set_name, rounds, ", ".join(
        "%s=%s" % kv for kv in PARAMS.items())))
    print("| tool | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for row in rows:
        print("| %s | %s |" % (row["tool"], " | ".join(cell(f, row[k]) for _, k, f in COLUMNS)))
    for row in rows:
        if row["note"]:
            print("- %s: %s" % (row["tool"], row["note"]))
    if not any(r.get("peer") for r in rows):
        return
    for rb in (r for r in rows if r["tool"].startswith("ringboost")):
        parts = []
        for name, key, pick in RATIOS:
            value, tool = best_peer(rows, key, pick)
            parts.append("%s %s (%s)" % (name, cell("%.2f", rb[key] / value if value else
                                                    float("nan")), tool))
        auc, tool = best_peer(rows, "test_auc", max)
        print("\n%s / the best peer: " % rb["tool"] + ", ".join(parts) +
              "; test AUC %+.5f against %s" % (rb["test_auc"] - auc, tool))


def print_passes(set_name, passes):
    """Each ringboost row's ratios to the best peer of the same pass, pass by pass, and their
    median, least and largest: a pass's tools run minutes apart, so its ratio is paired where
    times alone drift between passes."""
    print("\n### %s, %d passes: ringboost / the best peer of each pass\n" % (set_name, len(passes)))
    print("| tool | ratio | " + " | ".join("pass %d" % (p + 1) for p in range(len(passes))) +
          " | median | least | largest |")
    print("|---|---|" + "---|" * (len(passes) + 3))
    names = []
    for rows in passes:
        names += [r["tool"] for r in rows if r["tool"].startswith("ringboost") and
                  r["tool"] not in names]
    for name in names:
        for ratio, key, pick in RATIOS:
            values = []
            for rows in passes:
                rb = [r for r in rows if r["tool"] == name]
                value, _ = best_peer(rows, key, pick)
                values.append(rb[0][key] / value if rb and value else float("nan"))
            known = [v for v in values if v == v]
            summary_cells = ([statistics.median(known), min(known), max(known)] if known else
                             [float("nan")] * 3)
            print("| %s | %s | %s |" % (name, ratio, " | ".join(
                cell("%.2f", v) for v in values + summary_cells)))
    # Each tool's time a round, pass by pass, for the spread of the times themselves.
    print("\n| tool | s/round, pass by pass | median |")
    print("|---|---|---|")
    tools = []
    for rows in passes:
        tools += [r["tool"] for r in rows if r["tool"] not in tools]
    for tool in tools:
        times = [r["median_round_s"] for rows in passes for r in rows if r["tool"] == tool]
        known = [t for t in times if t == t]
        print("| %s | %s | %s |" % (tool, " / ".join(cell("%.4f", t) for t in times),
                                    cell("%.4f", statistics.median(known) if known else
                                         float("nan"))))


# ---- main ------------------------------------------------------------------------------------
def setup_peers():
    """Makes the peers' venv (PEERS from PyPI; no system packages, so Debian's 1.7.4 stays out)."""
    print("making %s: %s" % (VENV, " ".join(PEERS)), flush=True)
    subprocess.run([DEBIAN_PYTHON, "-m", "venv", VENV], check=True)
    subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q"] + PEERS, check=True)


def has_module(python, module):
    return subprocess.run([python, "-c", "import %s" % module], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=NUM_ROUND)
    parser.add_argument("--sparse", action="store_true", help="also the sparse 1M x 10k set")
    parser.add_argument("--onehot", action="store_true",
                        help="also the one-hot 1M x 10k set (bench/gen_onehot.py)")
    parser.add_argument("--no-dense", action="store_true", help="skip the dense set")
    parser.add_argument("--ringboost", default=os.path.join(ROOT, "build", "ringboost"))
    parser.add_argument("--no-ringboost", action="store_true")
    parser.add_argument("--low-bit", action="store_true",
                        help="also ringboost with quantized_grad=on, a row of its own")
    for tool in PEER_TOOLS:
        parser.add_argument("--no-" + tool.replace(".", ""), action="store_true",
                            dest="no_" + tool.replace("-", "_").replace(".", ""))
    parser.add_argument("--xgboost-cli", action="store_true",
                        help="also run Debian's /usr/bin/xgboost for its whole-process peak RSS")
    parser.add_argument("--python", default=os.path.join(VENV, "bin", "python"),
                        help="interpreter for the peers' children (default: the peers' venv)")
    parser.add_argument("--setup-peers", action="store_true",
                        help="(re)make %s with %s and exit" % (VENV, " ".join(PEERS)))
    parser.add_argument("--every-peer-sparse", action="store_true",
                        help="also run %s on the sparse set" % ", ".join(SPARSE_OPT_IN))
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per tool run")
    parser.add_argument("--no-settle", action="store_true",
                        help="start at once even right after a sparse run")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run every tool N times, in passes (each pass every tool once), and "
                        "summarize the ratios of each pass (their median, least and largest)")
    parser.add_argument("--worker", nargs=4, metavar=("KIND", "TRAIN", "TEST", "ROUNDS"),
                        help=argparse.SUPPRESS)
    return parser.parse_args()


def settle_after_sparse_run(args):
    """Waits until SETTLE_SECONDS have passed since the last sparse run's record was written (the
    end of its XGBoost run), so that no tool starts in what that run left behind."""
    record = os.path.join(RESULTS_DIR, "speed-sparse.json")
    if args.no_settle or not os.path.exists(record):
        return
    with open(record) as f:
        if not any(r["tool"].startswith("xgboost") for r in json.load(f).get("rows", [])):
            return
    wait = SETTLE_SECONDS - (time.time() - os.path.getmtime(record))
    if wait > 0:
        print("waiting %.0f s: the previous sparse run's XGBoost (16 GB) ended %.0f s ago and "
              "slows this VM for minutes after (--no-settle skips)"
              % (wait, SETTLE_SECONDS - wait), flush=True)
        time.sleep(wait)


def warm_page_cache(paths):
    """Reads the data files once, so that every tool's load reads them from the page cache: a
    previous tool's peak memory (XGBoost's 16 GB on the sparse set) can evict them, and the next
    tool would then pay the disk where the one after it does not."""
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 23):
                pass


def uptime():
    with open("/proc/loadavg") as f:
        return "load average %s" % " ".join(f.read().split()[:3])


def bench_set(args, set_name, work_dir):
    train, test = ensure_data(set_name)
    status = 0
    tools = []
    if not args.no_ringboost:
        tools.append(("ringboost", lambda: run_ringboost(args, train, test, work_dir)))
        if args.low_bit:
            tools.append(("ringboost low-bit", lambda: run_ringboost(
                args, train, test, work_dir, "ringboost low-bit", ["quantized_grad = on"])))
    for tool, (kind, python) in PEER_TOOLS.items():
        if getattr(args, "no_" + tool.replace("-", "_").replace(".", "")):
            continue
        if set_name == "sparse" and tool in SPARSE_OPT_IN and not args.every_peer_sparse:
            print("sparse: %s skipped (%s; --every-peer-sparse runs it)"
                  % (tool, SPARSE_OPT_IN[tool]), flush=True)
            continue
        if not has_module(python or args.python, kind):
            print("error: %s cannot import %s (--setup-peers)" % (python or args.python, kind),
                  file=sys.stderr)
            status = 1
            continue
        tools.append((tool, lambda tool=tool: run_worker(args, tool, train, test)))
    if args.xgboost_cli:
        tools.append(("xgboost-cli", lambda: run_xgboost_cli(args, train, test, work_dir)))
    load_before = uptime()
    passes = []
    for p in range(args.repeat):
        rows = []
        for name, run in tools:
            print("%s: %s%s ... (%s)" % (set_name, name, " (pass %d of %d)" % (
                p + 1, args.repeat) if args.repeat > 1 else "", uptime()), flush=True)
            warm_page_cache([train, test])
            try:
                row = run()
                row["pass"] = p
                rows.append(row)
            except (RuntimeError, subprocess.TimeoutExpired) as err:
                print("error: %s" % err, file=sys.stderr)
                status = 1
        passes.append(rows)
        if args.repeat > 1:
            print_table("%s, pass %d of %d" % (set_name, p + 1, args.repeat), rows, args.rounds)
    load_after = uptime()
    if args.repeat == 1:
        print_table(set_name, passes[0], args.rounds)
    else:
        print_passes(set_name, passes)
    rows = [row for rows in passes for row in rows]
    print("- machine: %s before, %s after" % (load_before, load_after))
    for tool, (kind, python) in PEER_TOOLS.items():
        if any(r["tool"].startswith(kind + " ") for r in rows) and tool == kind:
            print("- python baseline (%s imported, nothing else): %.0f MiB"
                  % (kind, python_baseline(python or args.python, kind)))
    os.makedirs(RESULTS_DIR, exist_ok=True)
    record = os.path.join(RESULTS_DIR, "speed-%s.json" % set_name)
    with open(record, "w") as f:
        json.dump({"set": set_name, "rounds": args.rounds, "params": PARAMS, "rows": rows,
                   "passes": args.repeat,
                   "load_before": load_before, "load_after": load_after,
                   "time": time.strftime("%Y-%m-%d %H:%M:%S")}, f, indent=1)
    print("- record: %s" % os.path.relpath(record, ROOT))
    return status


def main():
    args = parse_args()
    if args.worker:
        kind, train, test, rounds = args.worker
        print(json.dumps(WORKERS[kind](train, test, int(rounds))))
        return 0
    if args.setup_peers or not os.access(os.path.join(VENV, "bin", "python"), os.X_OK):
        setup_peers()
        if args.setup_peers:
            return 0
    if not args.no_ringboost and not os.access(args.ringboost, os.X_OK):
        print("error: %s is not an executable; build it (bash scripts/setup), pass "
              "--ringboost PATH, or use --no-ringboost" % args.ringboost, file=sys.stderr)
        return 2
    if args.repeat < 1:
        print("error: --repeat must be at least 1, not %d" % args.repeat, file=sys.stderr)
        return 2
    ensure_time()
    sets = (([] if args.no_dense else ["dense"]) + (["sparse"] if args.sparse else []) +
            (["onehot"] if args.onehot else []))
    work_dir = tempfile.mkdtemp(prefix="rb-speed-")
    status = 0
    settle_after_sparse_run(args)
    try:
        for set_name in sets:
            status = max(status, bench_set(args, set_name, work_dir))
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
