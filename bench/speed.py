#!/usr/bin/python3
"""Training speed and memory of ringboost against XGBoost 1.7.4 (and LightGBM when importable).

  /usr/bin/python3 bench/speed.py                 # dense 1M x 28 set, 100 rounds
  /usr/bin/python3 bench/speed.py --sparse        # also the sparse 1M x 10k set (XGBoost: ~16 GiB)
  /usr/bin/python3 bench/speed.py --rounds 20 --no-xgboost
  /usr/bin/python3 bench/speed.py --setup-lightgbm  # once: venv bench/data/venv with lightgbm

The data sets are generated on first use into bench/data/ (ignored by git) with the shared
generators (../shared/bench/gen_dense.py, gen_sparse.py; they need numpy). Every tool runs in its
own process under `/usr/bin/time -v` ("Maximum resident set size" = peak RSS) with the same
settings (PARAMS below) and the AUC on the test set evaluated every round.

What each tool reports:
  ringboost  verbosity=2 lines on stderr: `[ringboost] info: setup: load X s, cuts Y s, binning
             Z s`, `[ringboost] info: round I: T s`, `[ringboost] info: training: N rounds in
             T s`; test AUC from the eval log on stdout.
  xgboost    the Python package in a child process: load = building both DMatrix; XGBoost
             builds its cuts and bins lazily inside the first round, so they are part of
             "first round"; round times from a training callback (evaluation included). The
             child's RSS includes the Python interpreter (the "python baseline" line says how
             much). --xgboost-cli also runs Debian's /usr/bin/xgboost for a whole-process RSS.
  lightgbm   same child-process scheme; load includes its binning (Dataset.construct()).
Output: a markdown table per data set, the ratios ringboost/xgboost, and a JSON record in
bench/results/.
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
VENV = os.path.join(DATA_DIR, "venv")
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
            print("generating %s (%s %d %d)" % (path, generator, rows, seed), flush=True)
            tmp = path + ".tmp"
            subprocess.run(["/usr/bin/python3", gen, str(rows), str(seed), tmp], check=True)
            os.replace(tmp, path)
        paths.append(path)
    return paths


def run_measured(cmd, timeout, env=None):
    """Runs cmd under /usr/bin/time -v; returns (returncode, stdout, stderr, peak RSS MiB, s)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as time_out:
        start = time.perf_counter()
        proc = subprocess.run([TIME, "-v", "-o", time_out.name] + cmd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout, env=env)
        wall = time.perf_counter() - start
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", time_out.read())
    rss = int(match.group(1)) / 1024.0 if match else float("nan")
    return proc.returncode, proc.stdout, proc.stderr, rss, wall


def worker_env(threads):
    return dict(os.environ, OMP_NUM_THREADS=str(threads))


def fail_tail(tool, proc_out, proc_err, rc):
    tail = (proc_out + proc_err).strip().splitlines()[-8:]
    return "%s exited %d:\n  %s" % (tool, rc, "\n  ".join(tail))


def summary(tool, load, cuts_bin, rounds, rss, auc, wall, note=""):
    """One table row: rounds = seconds of each round in order."""
    first = rounds[0] if rounds else float("nan")
    rest = statistics.mean(rounds[1:]) if len(rounds) > 1 else float("nan")
    setup = load + (cuts_bin if cuts_bin == cuts_bin else 0.0)  # NaN-safe
    return {"tool": tool, "load_s": load, "cuts_bin_s": cuts_bin, "first_round_s": first,
            "mean_round_s": rest, "train_s": sum(rounds) if rounds else float("nan"), "to_first_tree_s": setup + first,
            "peak_rss_mib": rss, "test_auc": auc, "process_s": wall, "rounds": len(rounds),
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


def run_ringboost(args, train, test, work_dir):
    conf = os.path.join(work_dir, "speed.conf")
    lines = ["%s = %s" % kv for kv in PARAMS.items()]
    lines += ["num_round = %d" % args.rounds, "verbosity = 2",
              'data = "%s?format=libsvm"' % train, 'eval[test] = "%s?format=libsvm"' % test,
              'model_out = "%s"' % os.path.join(work_dir, "ringboost.model")]
    with open(conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, out, err, rss, wall = run_measured([args.ringboost, "train", conf], args.timeout,
                                           worker_env(PARAMS["nthread"]))
    if rc != 0:
        raise RuntimeError(fail_tail("ringboost", out, err, rc))
    setup = SETUP_LINE.search(err)
    load, cuts, binning = map(float, setup.groups()) if setup else (float("nan"),) * 3
    rounds = [float(m.group(2)) for m in map(ROUND_LINE.search, err.splitlines()) if m]
    note = "" if setup and rounds else "timing lines missing on stderr (verbosity=2)"
    total = TRAIN_LINE.search(err)
    if not rounds and total:  # only the total: spread it evenly
        n, secs = int(total.group(1)), float(total.group(2))
        rounds = [secs / n] * n
    return summary("ringboost", load, cuts + binning, rounds, rss, last_auc(out), wall, note)


# ---- XGBoost and LightGBM in a child process -----------------------------------------------
def worker_xgboost(train, test, rounds):
    import xgboost as xgb

    start = time.perf_counter()
    dtrain = xgb.DMatrix(train + "?format=libsvm", silent=True)
    dtest = xgb.DMatrix(test + "?format=libsvm", silent=True)
    load = time.perf_counter() - start
    stamps = []

    class Stamp(xgb.callback.TrainingCallback):
        def before_training(self, model):
            stamps.append(time.perf_counter())
            return model

        def after_iteration(self, model, epoch, evals_log):
            stamps.append(time.perf_counter())  # after this round's evaluation
            return False

    log = {}
    xgb.train(dict(PARAMS), dtrain, rounds, evals=[(dtest, "test")], evals_result=log,
              verbose_eval=False, callbacks=[Stamp()])
    round_s = [b - a for a, b in zip(stamps, stamps[1:])]
    return {"load_s": load, "rounds": round_s, "auc": log["test"]["auc"][-1],
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
    stamps, log = [time.perf_counter()], {}

    def stamp(env):
        stamps.append(time.perf_counter())

    lgb.train(params, dtrain, rounds, valid_sets=[dtest], valid_names=["test"],
              callbacks=[stamp, lgb.record_evaluation(log)])
    round_s = [b - a for a, b in zip(stamps, stamps[1:])]
    return {"load_s": load, "rounds": round_s, "auc": log["test"]["auc"][-1],
            "version": lgb.__version__}


def run_worker(args, kind, train, test):
    cmd = [args.python, os.path.abspath(__file__), "--worker", kind, train, test,
           str(args.rounds)]
    rc, out, err, rss, wall = run_measured(cmd, args.timeout, worker_env(PARAMS["nthread"]))
    if rc != 0:
        raise RuntimeError(fail_tail(kind, out, err, rc))
    res = json.loads(out.strip().splitlines()[-1])
    cuts_bin = float("nan")  # xgboost: inside the first round; lightgbm: inside load
    row = summary("%s %s" % (kind, res["version"]), res["load_s"], cuts_bin, res["rounds"],
                  rss, res["auc"], wall, "RSS includes the Python interpreter")
    return row


def python_baseline(args, kind):
    """Peak RSS of the worker's interpreter after importing the library alone."""
    module = "xgboost" if kind == "xgboost" else "lightgbm"
    rc, _, _, rss, _ = run_measured([args.python, "-c", "import %s" % module], 120)
    return rss if rc == 0 else float("nan")


def run_xgboost_cli(args, train, test, work_dir):
    conf = os.path.join(work_dir, "xgb.conf")
    lines = ["%s = %s" % kv for kv in PARAMS.items()]
    lines += ["num_round = %d" % args.rounds, 'data = "%s?format=libsvm"' % train,
              'eval[test] = "%s?format=libsvm"' % test,
              'model_out = "%s"' % os.path.join(work_dir, "xgb.model")]
    with open(conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, out, err, rss, wall = run_measured(["/usr/bin/xgboost", conf], args.timeout)
    if rc != 0:
        raise RuntimeError(fail_tail("xgboost-cli", out, err, rc))
    nan = float("nan")
    row = summary("xgboost-cli", nan, nan, [], rss, last_auc(err), wall,
                  "whole process only (log has 1 s resolution)")
    return row


# ---- report ----------------------------------------------------------------------------------
COLUMNS = [("load s", "load_s", "%.2f"), ("cuts+bin s", "cuts_bin_s", "%.2f"),
           ("first round s", "first_round_s", "%.3f"), ("s/round (rest)", "mean_round_s", "%.4f"),
           ("to first tree s", "to_first_tree_s", "%.2f"), ("train s", "train_s", "%.2f"),
           ("process s", "process_s", "%.1f"), ("peak RSS MiB", "peak_rss_mib", "%.0f"),
           ("test AUC", "test_auc", "%.5f")]


def cell(fmt, value):
    return "-" if value != value else fmt % value  # NaN -> "-"


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
    rb = next((r for r in rows if r["tool"] == "ringboost"), None)
    xg = next((r for r in rows if r["tool"].startswith("xgboost ")), None)
    if rb and xg:
        print("\nratios ringboost/xgboost: " + ", ".join(
            "%s %s" % (name, cell("%.2f", rb[key] / xg[key] if xg[key] else float("nan")))
            for name, key in (("to first tree", "to_first_tree_s"),
                              ("first round", "first_round_s"),
                              ("s/round (rest)", "mean_round_s"), ("train", "train_s"),
                              ("peak RSS", "peak_rss_mib")))
            + "; AUC diff %+.5f" % (rb["test_auc"] - xg["test_auc"]))


# ---- main ------------------------------------------------------------------------------------
def default_python():
    venv_python = os.path.join(VENV, "bin", "python")
    return venv_python if os.access(venv_python, os.X_OK) else "/usr/bin/python3"


def setup_lightgbm():
    """A venv that sees Debian's packages (xgboost, numpy) and adds LightGBM from PyPI."""
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", VENV],
                   check=True)
    subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "lightgbm"], check=True)
    print("LightGBM installed in %s" % VENV)


def has_module(python, module):
    return subprocess.run([python, "-c", "import %s" % module], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=NUM_ROUND)
    parser.add_argument("--sparse", action="store_true", help="also the sparse 1M x 10k set")
    parser.add_argument("--no-dense", action="store_true", help="skip the dense set")
    parser.add_argument("--ringboost", default=os.path.join(ROOT, "build", "ringboost"))
    parser.add_argument("--no-ringboost", action="store_true")
    parser.add_argument("--no-xgboost", action="store_true")
    parser.add_argument("--no-lightgbm", action="store_true")
    parser.add_argument("--xgboost-cli", action="store_true",
                        help="also run /usr/bin/xgboost for its whole-process peak RSS")
    parser.add_argument("--python", default=default_python(),
                        help="interpreter for the XGBoost/LightGBM children")
    parser.add_argument("--setup-lightgbm", action="store_true",
                        help="create %s with LightGBM and exit" % VENV)
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per tool run")
    parser.add_argument("--no-settle", action="store_true",
                        help="start at once even right after a sparse run")
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


def bench_set(args, set_name, work_dir):
    train, test = ensure_data(set_name)
    rows, status = [], 0
    tools = []
    if not args.no_ringboost:
        tools.append(("ringboost", lambda: run_ringboost(args, train, test, work_dir)))
    if not args.no_xgboost:
        tools.append(("xgboost", lambda: run_worker(args, "xgboost", train, test)))
        if args.xgboost_cli:
            tools.append(("xgboost-cli", lambda: run_xgboost_cli(args, train, test, work_dir)))
    if not args.no_lightgbm and has_module(args.python, "lightgbm"):
        tools.append(("lightgbm", lambda: run_worker(args, "lightgbm", train, test)))
    for name, run in tools:
        print("%s: %s ..." % (set_name, name), flush=True)
        warm_page_cache([train, test])
        try:
            rows.append(run())
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            print("error: %s" % err, file=sys.stderr)
            status = 1
    print_table(set_name, rows, args.rounds)
    for kind in ("xgboost", "lightgbm"):
        if any(r["tool"].startswith(kind + " ") for r in rows):
            print("- python baseline (%s imported, nothing else): %.0f MiB"
                  % (kind, python_baseline(args, kind)))
    os.makedirs(RESULTS_DIR, exist_ok=True)
    record = os.path.join(RESULTS_DIR, "speed-%s.json" % set_name)
    with open(record, "w") as f:
        json.dump({"set": set_name, "rounds": args.rounds, "params": PARAMS, "rows": rows,
                   "time": time.strftime("%Y-%m-%d %H:%M:%S")}, f, indent=1)
    print("- record: %s" % os.path.relpath(record, ROOT))
    return status


def main():
    args = parse_args()
    if args.worker:
        kind, train, test, rounds = args.worker
        work = worker_xgboost if kind == "xgboost" else worker_lightgbm
        print(json.dumps(work(train, test, int(rounds))))
        return 0
    if args.setup_lightgbm:
        setup_lightgbm()
        return 0
    if not args.no_ringboost and not os.access(args.ringboost, os.X_OK):
        print("error: %s is not an executable; build it (bash scripts/setup), pass "
              "--ringboost PATH, or use --no-ringboost" % args.ringboost, file=sys.stderr)
        return 2
    ensure_time()
    sets = ([] if args.no_dense else ["dense"]) + (["sparse"] if args.sparse else [])
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
