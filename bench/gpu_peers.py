#!/usr/bin/env python3
"""The GPU peers of bench/gpu.sh, on the same card and the same data, in one run.

Runs on the GPU machine (the `device` tool), called by bench/gpu.sh after ringboost's runs:

  python3 bench/gpu_peers.py --train DIR --test FILE --rounds 100 500 --ringboost-pred P.txt

Reads the LibSVM parts of DIR (gen_dense.py's 10M x 28 set; every feature is written, so no
value is missing) and the test FILE (gen_dense.py 200000 3, the CPU bench's dense test set) into
float32 arrays, then for each peer that imports (XGBoost 3.x from the PyPI wheel the call
carries; CatBoost when a wheel is carried too) trains with ringboost's settings (depth 8,
256 bins, eta 0.1, binary:logistic, no evaluation during training) and prints, one line each:

  peer setup_s s_per_round(R) ... test_auc pred_rows_per_s

setup_s: building the peer's device matrix and its first round; s/round: the wall time of
rounds 2..R over R-1 (each peer's callback after every round, the device synchronized by the
peer's own bookkeeping; the total over many rounds is what counts); test_auc: of the R-round
model on the test set; pred_rows_per_s: the test set predicted from device memory (cupy
arrays) by the trained model, the median of 5 after a warm-up. With --ringboost-pred, the test
AUC of ringboost's predictions (one probability a line) is printed on the same scale.
"""
import argparse
import glob
import json
import os
import statistics
import sys
import time
from multiprocessing import Pool

import numpy as np


def load_part(path):
    from sklearn.datasets import load_svmlight_file
    x, y = load_svmlight_file(path, n_features=28, dtype=np.float32)
    return x.toarray(), y.astype(np.float32)


def load_dir(path_glob, processes):
    paths = sorted(glob.glob(path_glob))
    if not paths:
        sys.exit("no files match %s" % path_glob)
    with Pool(min(processes, len(paths))) as pool:
        parts = pool.map(load_part, paths)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def auc(y, p):
    from sklearn.metrics import roc_auc_score
    return float(roc_auc_score(y, p))


def median_seconds(fn, repeat=5):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run_xgboost(x, y, xt, yt, rounds):
    import xgboost as xgb
    import cupy as cp

    class Clock(xgb.callback.TrainingCallback):
        def __init__(self):
            super().__init__()
            self.stamps = []

        def after_iteration(self, model, epoch, evals_log):
            self.stamps.append(time.perf_counter())
            return False

    params = {"objective": "binary:logistic", "tree_method": "hist", "device": "cuda",
              "max_depth": 8, "max_bin": 256, "eta": 0.1, "base_score": 0.5, "seed": 0}
    out = {"peer": "xgboost " + xgb.__version__}
    for r in rounds:
        t0 = time.perf_counter()
        dtrain = xgb.QuantileDMatrix(x, y, max_bin=256)
        clock = Clock()
        booster = xgb.train(params, dtrain, num_boost_round=r, callbacks=[clock])
        out["setup_s(%d)" % r] = clock.stamps[0] - t0
        out["s_per_round(%d)" % r] = (clock.stamps[-1] - clock.stamps[0]) / (r - 1)
        del dtrain
    out["test_auc"] = auc(yt, booster.inplace_predict(xt))
    d_xt = cp.asarray(xt)
    seconds = median_seconds(lambda: (booster.inplace_predict(d_xt), cp.cuda.Device().synchronize()))
    out["pred_rows_per_s"] = len(yt) / seconds
    return out


def run_catboost(x, y, xt, yt, rounds):
    # CatBoost's GPU mode takes no user callbacks: each fit is timed whole, and a round is the
    # difference of two fits' times over the difference of their rounds (setup: the rest).
    import catboost as cb

    out = {"peer": "catboost " + cb.__version__}
    total = {}
    for r in rounds:
        t0 = time.perf_counter()
        model = cb.CatBoostClassifier(iterations=r, depth=8, border_count=256, learning_rate=0.1,
                                      task_type="GPU", random_seed=0, verbose=False)
        model.fit(x, y)
        total[r] = time.perf_counter() - t0
    lo, hi = min(rounds), max(rounds)
    if hi > lo:
        per_round = (total[hi] - total[lo]) / (hi - lo)
        out["s_per_round(%d-%d)" % (lo, hi)] = per_round
        out["setup_s"] = total[lo] - lo * per_round
    for r in rounds:
        out["fit_s(%d)" % r] = total[r]
    out["test_auc"] = auc(yt, model.predict_proba(xt)[:, 1])
    out["pred_rows_per_s"] = len(yt) / median_seconds(lambda: model.predict_proba(xt))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True, help="glob of the training LibSVM parts")
    ap.add_argument("--test", required=True)
    ap.add_argument("--rounds", type=int, nargs="+", default=[100, 500])
    ap.add_argument("--ringboost-pred", help="ringboost's predictions of the test set")
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--cache", help="an .npz of the loaded arrays: read when it exists, else "
                    "written (a later call on the same machine skips the LibSVM parsing)")
    ap.add_argument("--peers", nargs="+", default=["xgboost", "catboost"],
                    help="which peers to run (default both)")
    args = ap.parse_args()

    t = time.perf_counter()
    if args.cache and os.path.exists(args.cache):
        with np.load(args.cache) as z:
            x, y, xt, yt = z["x"], z["y"], z["xt"], z["yt"]
    else:
        x, y = load_dir(args.train, os.cpu_count() or 4)
        xt, yt = load_part(args.test)
        if args.cache:
            np.savez(args.cache, x=x, y=y, xt=xt, yt=yt)
    print("loaded %d x %d train, %d test rows in %.1f s" % (x.shape[0], x.shape[1], len(yt),
                                                           time.perf_counter() - t), flush=True)
    results = []
    if args.ringboost_pred:
        p = np.loadtxt(args.ringboost_pred, dtype=np.float64)
        results.append({"peer": "ringboost", "test_auc": auc(yt, p)})
    for name, fn in (("xgboost", run_xgboost), ("catboost", run_catboost)):
        if name not in args.peers:
            continue
        try:
            __import__(name)
        except ImportError:
            print("%s: not importable, skipped" % name, flush=True)
            continue
        try:
            results.append(fn(x, y, xt, yt, args.rounds))
        except Exception as e:  # a peer's failure must not hide the others' numbers
            print("%s failed: %s" % (name, e), flush=True)
    for r in results:
        print("  ".join("%s=%s" % (k, ("%.6g" % v) if isinstance(v, float) else v)
                        for k, v in r.items()), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
