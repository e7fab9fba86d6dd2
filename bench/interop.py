#!/usr/bin/env python3
"""ringboost models in XGBoost 3.x: export, load, compare predictions and SHAP values.

For every objective ringboost has, trains a small model with ringboost on generated data with
missing values (multiclass and ranking included), exports it with `ringboost export --format
xgboost-json` and `xgboost-ubj`, loads each file with XGBoost's Booster, and prints a markdown
table objectives x formats of the largest absolute differences between ringboost and XGBoost:
margin, transformed prediction, and TreeSHAP contributions (pred_contribs).

    /usr/bin/python3 bench/interop.py            # makes bench/data/venv-xgb3 on first use
    options: --ringboost PATH (default build/ringboost)  --rounds N (default 10)
             --venv DIR  --keep (keep bench/data/interop)

XGBoost comes from PyPI (`pip install xgboost-cpu numpy`) into its own venv; the script
re-runs itself with that venv's python.
"""
import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(ROOT, "bench", "data")

# objective -> (extra config lines, label kind)
OBJECTIVES = [
    ("reg:squarederror", "", "real"),
    ("reg:squaredlogerror", "", "positive"),
    ("reg:logistic", "", "unit"),
    ("reg:pseudohubererror", "huber_slope = 1.5", "real"),
    ("reg:absoluteerror", "", "real"),
    ("reg:quantileerror", "quantile_alpha = 0.8", "real"),
    ("reg:gamma", "", "positive"),
    ("reg:tweedie", "tweedie_variance_power = 1.3", "positive"),
    ("count:poisson", "", "count"),
    ("survival:cox", "", "survival"),
    ("binary:logistic", "", "binary"),
    ("binary:logitraw", "", "binary"),
    ("binary:hinge", "", "binary"),
    ("multi:softmax", "num_class = 4", "class"),
    ("multi:softprob", "num_class = 4", "class"),
    ("rank:pairwise", "", "rank"),
    ("rank:ndcg", "", "rank"),
]
FORMATS = ["xgboost-json", "xgboost-ubj"]


def ensure_xgboost(venv):
    """Re-runs this script under a venv with XGBoost 3.x unless this python has it."""
    try:
        import xgboost  # noqa: F401
        if int(xgboost.__version__.split(".")[0]) >= 3:
            return
    except ImportError:
        pass
    python = os.path.join(venv, "bin", "python")
    if os.environ.get("RINGBOOST_INTEROP_CHILD"):
        sys.exit("the venv %s has no XGBoost 3.x" % venv)
    if not os.access(python, os.X_OK):
        print("making %s with xgboost-cpu and numpy from PyPI" % venv, file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "xgboost-cpu", "numpy"],
                       check=True)
    env = dict(os.environ, RINGBOOST_INTEROP_CHILD="1")
    os.execve(python, [python, os.path.abspath(__file__)] + sys.argv[1:], env)


def labels(kind, x, rng, np):
    """Labels of `kind` from a fixed rule of the first features (NaN read as 0)."""
    z = np.nan_to_num(x[:, 0]) + 0.5 * np.nan_to_num(x[:, 1]) - 0.3 * np.nan_to_num(x[:, 2])
    z = z + 0.3 * rng.standard_normal(len(z))
    if kind == "real":
        return z
    if kind == "positive":
        return np.exp(0.5 * z) + 0.01
    if kind == "unit":
        return 1 / (1 + np.exp(-z))
    if kind == "count":
        return rng.poisson(np.exp(0.4 * z)).astype(float)
    if kind == "survival":  # negative = censored at that time
        t = np.exp(-0.5 * z) + 0.05
        return np.where(rng.random(len(z)) < 0.2, -t, t)
    if kind == "binary":
        return (z > 0).astype(float)
    if kind == "class":
        return np.digitize(z, [-0.7, 0.0, 0.7]).astype(float)
    if kind == "rank":
        return np.clip(np.round(z + 1.5), 0, 4)
    raise ValueError(kind)


def write_libsvm(path, x, y):
    with open(path, "w") as f:
        for row, label in zip(x, y):
            items = ["%d:%.6g" % (j, v) for j, v in enumerate(row) if v == v]
            f.write("%.9g %s\n" % (label, " ".join(items)))


def make_data(work, kind, np):
    """train.libsvm / test.libsvm (and .query for ranking) with ~15% missing values."""
    rng = np.random.default_rng(11)
    n, m = 1200, 8
    x = rng.standard_normal((n, m)).astype(np.float32)
    x[rng.random((n, m)) < 0.15] = np.nan
    y = labels(kind, x, rng, np)
    split = 900
    write_libsvm(os.path.join(work, "train.libsvm"), x[:split], y[:split])
    write_libsvm(os.path.join(work, "test.libsvm"), x[split:], y[split:])
    if kind == "rank":
        for name, rows in (("train", split), ("test", n - split)):
            with open(os.path.join(work, name + ".libsvm.query"), "w") as f:
                f.write("".join("20\n" for _ in range(rows // 20)))


def ringboost(exe, work, *args):
    r = subprocess.run([exe] + list(args), cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("ringboost %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def read_numbers(path, np):
    with open(path) as f:
        return np.array(f.read().split(), dtype=np.float64)


def max_diff(a, b, np):
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        return "shape %s vs %s" % (a.shape, b.shape)
    return "%.1e" % float(np.max(np.abs(a - b))) if a.size else "-"


def compare(exe, work, objective, extra, rounds, np, xgb):
    conf = os.path.join(work, "c.conf")
    with open(conf, "w") as f:
        f.write("objective = %s\n%s\nmax_depth = 4\neta = 0.3\nnum_round = %d\nnthread = 2\n"
                "data = \"train.libsvm?format=libsvm\"\ntest:data = \"test.libsvm?format=libsvm\"\n"
                % (objective, extra, rounds))
    ringboost(exe, work, "train", "c.conf", "model_out=m.model")
    ringboost(exe, work, "predict", "c.conf", "model_in=m.model", "pred_margin=1",
              "pred_layout=row", "name_pred=margin.txt")
    ringboost(exe, work, "predict", "c.conf", "model_in=m.model", "pred_layout=row",
              "name_pred=pred.txt")
    ringboost(exe, work, "predict", "c.conf", "model_in=m.model", "pred_contribs=1",
              "name_pred=contribs.txt")
    ours = {k: read_numbers(os.path.join(work, k + ".txt"), np)
            for k in ("margin", "pred", "contribs")}
    dtest = xgb.DMatrix(os.path.join(work, "test.libsvm") + "?format=libsvm")
    row = {}
    for fmt in FORMATS:
        out = "m." + ("json" if fmt == "xgboost-json" else "ubj")
        ringboost(exe, work, "export", "m.model", "--format", fmt, "-o", out)
        booster = xgb.Booster(model_file=os.path.join(work, out))
        booster.set_param({"nthread": 2})
        row[fmt] = (max_diff(ours["margin"], booster.predict(dtest, output_margin=True), np),
                    max_diff(ours["pred"], booster.predict(dtest), np),
                    max_diff(ours["contribs"], booster.predict(dtest, pred_contribs=True), np))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ringboost", default=os.path.join(ROOT, "build", "ringboost"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--venv", default=os.path.join(DATA_DIR, "venv-xgb3"))
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    ensure_xgboost(args.venv)
    import warnings
    import numpy as np
    import xgboost as xgb
    warnings.filterwarnings("ignore", message=".*Text file input has been deprecated.*")

    exe = os.path.abspath(args.ringboost)
    work_root = os.path.join(DATA_DIR, "interop")
    os.makedirs(work_root, exist_ok=True)
    print("XGBoost %s, numpy %s; ringboost %s; %d rounds, depth 4, 1200 rows x 8 features "
          "(15%% missing), 300 test rows\n" % (xgb.__version__, np.__version__, exe, args.rounds))
    header = "| objective | " + " | ".join(
        "%s margin | %s transformed | %s SHAP" % (f, f, f) for f in FORMATS) + " |"
    print(header)
    print("|" + "---|" * (1 + 3 * len(FORMATS)))
    failed = False
    for objective, extra, kind in OBJECTIVES:
        work = os.path.join(work_root, objective.replace(":", "-"))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        make_data(work, kind, np)
        try:
            row = compare(exe, work, objective, extra, args.rounds, np, xgb)
            cells = [c for f in FORMATS for c in row[f]]
        except Exception as e:  # report the objective and go on with the others
            failed = True
            message = (str(e).splitlines() or [""])[0].replace("|", "/")
            cells = ["error: %s" % message[:160]] + [""] * (3 * len(FORMATS) - 1)
        print("| %s | %s |" % (objective, " | ".join(cells)), flush=True)
    if not args.keep:
        shutil.rmtree(work_root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
