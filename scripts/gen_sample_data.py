#!/usr/bin/env python3
"""Writes the small sample data sets of data/libsvm/ that the examples and the demo use.

Deterministic: Python's own Mersenne Twister (random.Random) with fixed seeds and fixed decimal
formatting, standard library only, so every machine writes the same bytes.

  python3 scripts/gen_sample_data.py                 # (re)writes data/libsvm/
  python3 scripts/gen_sample_data.py --out DIR       # writes elsewhere
  python3 scripts/gen_sample_data.py --check         # exit 1 if data/libsvm/ differs

Every file is LibSVM text with 0-based feature ids (XGBoost's default, indexing_mode=0). Absent
entries are missing values. Labels come from a fixed rule plus noise, the same rule for the
train and test file of a set, so a model trained on one scores well on the other.
"""

import argparse
import filecmp
import math
import os
import random
import sys
import tempfile

# name: (rows in train, rows in test); ranking counts queries.
BINARY_ROWS = (2000, 500)
BINARY_FEATURES = 12
BINARY_PRESENT = 0.6  # chance that an entry is stored; the rest are missing
REGRESSION_ROWS = (2000, 500)
REGRESSION_FEATURES = 8
MULTICLASS_ROWS = (1500, 500)
MULTICLASS_FEATURES = 6
MULTICLASS_CLASSES = 3
RANK_QUERIES = (100, 30)
RANK_DOCS = (5, 15)  # documents per query, inclusive range
RANK_FEATURES = 10


def fmt(x):
    """Three decimals, no trailing zeros: short lines and identical bytes everywhere."""
    text = "%.3f" % x
    text = text.rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def libsvm_line(label, features):
    """features: list of (id, value) in ascending id order."""
    parts = [fmt(label)] + ["%d:%s" % (i, fmt(v)) for i, v in features]
    return " ".join(parts)


def sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


def binary_rows(rng, n):
    """Sparse rows; a missing f0 raises the odds of class 1, so the learned default direction
    of missing values matters."""
    for _ in range(n):
        x = [rng.uniform(-1.0, 1.0) for _ in range(BINARY_FEATURES)]
        present = [rng.random() < BINARY_PRESENT for _ in range(BINARY_FEATURES)]
        z = 0.0
        z += 2.5 * x[0] if present[0] else 1.5
        z += 2.0 * x[1] * x[2] if present[1] and present[2] else 0.0
        z += -1.5 * abs(x[3]) + 0.75 if present[3] else 0.0
        z += 1.0 * x[4] if present[4] else -0.5
        label = 1 if rng.random() < sigmoid(2.0 * z) else 0
        features = [(i, x[i]) for i in range(BINARY_FEATURES) if present[i]]
        yield libsvm_line(label, features)


def regression_rows(rng, n):
    """Dense rows, every feature written; a smooth nonlinear target plus Gaussian noise."""
    for _ in range(n):
        x = [rng.uniform(0.0, 1.0) for _ in range(REGRESSION_FEATURES)]
        y = (10.0 * math.sin(math.pi * x[0] * x[1]) + 20.0 * (x[2] - 0.5) ** 2 + 10.0 * x[3]
             + 5.0 * x[4] + rng.gauss(0.0, 1.0))  # Friedman #1
        yield libsvm_line(y, list(enumerate(x)))


def multiclass_rows(rng, n):
    """Dense rows; the class is the largest of three noisy scores."""
    for _ in range(n):
        x = [rng.gauss(0.0, 1.0) for _ in range(MULTICLASS_FEATURES)]
        scores = [
            1.5 * x[0] - x[1] + rng.gauss(0.0, 0.5),
            1.5 * x[1] + x[2] * x[3] + rng.gauss(0.0, 0.5),
            -1.5 * x[0] + 0.5 * x[4] + rng.gauss(0.0, 0.5),
        ]
        label = max(range(MULTICLASS_CLASSES), key=lambda k: scores[k])
        yield libsvm_line(label, list(enumerate(x)))


def rank_rows(rng, queries):
    """Yields (group size, lines) per query: relevance 0..4 from a per-query shifted score."""
    for _ in range(queries):
        size = rng.randint(RANK_DOCS[0], RANK_DOCS[1])
        shift = rng.gauss(0.0, 1.0)  # queries differ in level; only order within one matters
        lines = []
        for _ in range(size):
            x = [rng.uniform(0.0, 1.0) for _ in range(RANK_FEATURES)]
            score = 3.0 * x[0] + 2.0 * x[1] * x[2] - x[3] + shift + rng.gauss(0.0, 0.3)
            label = min(4, max(0, int(score - shift + 1.0)))
            x[5] = x[5] + shift  # a feature that carries the query level, not relevance
            lines.append(libsvm_line(label, list(enumerate(x))))
        yield size, lines


def write_lines(path, lines):
    with open(path, "w", newline="\n") as out:
        for line in lines:
            out.write(line + "\n")


def generate(out_dir):
    """Writes every file into out_dir; returns their names."""
    os.makedirs(out_dir, exist_ok=True)
    names = []
    sets = [("binary", binary_rows, BINARY_ROWS, 1),
            ("regression", regression_rows, REGRESSION_ROWS, 3),
            ("multiclass", multiclass_rows, MULTICLASS_ROWS, 5)]
    for name, rows, counts, seed in sets:
        for part, n, offset in (("train", counts[0], 0), ("test", counts[1], 1)):
            rng = random.Random(seed * 100 + offset)
            file_name = "%s.%s" % (name, part)
            write_lines(os.path.join(out_dir, file_name), rows(rng, n))
            names.append(file_name)
    for part, queries, seed in (("train", RANK_QUERIES[0], 700), ("test", RANK_QUERIES[1], 701)):
        rng = random.Random(seed)
        sizes, lines = [], []
        for size, group in rank_rows(rng, queries):
            sizes.append(str(size))
            lines.extend(group)
        file_name = "rank.%s" % part
        write_lines(os.path.join(out_dir, file_name), lines)
        write_lines(os.path.join(out_dir, file_name + ".query"), sizes)
        names += [file_name, file_name + ".query"]
    return names


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "data", "libsvm"),
                        help="output folder (default: data/libsvm of this repo)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary folder and compare with --out")
    args = parser.parse_args()
    if not args.check:
        names = generate(args.out)
        total = sum(os.path.getsize(os.path.join(args.out, n)) for n in names)
        print("wrote %d files (%d bytes) to %s" % (len(names), total, args.out))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        names = generate(tmp)
        _, mismatch, errors = filecmp.cmpfiles(tmp, args.out, names, shallow=False)
        if mismatch or errors:
            print("differs from the generator: %s" % " ".join(sorted(mismatch + errors)))
            return 1
    print("%s matches the generator (%d files)" % (args.out, len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
