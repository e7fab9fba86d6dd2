#!/usr/bin/python3
"""Wide one-hot binary classification generator -> LibSVM (EFB's case: exclusive features).

N rows x 10,000 features in 40 blocks of 250 (0-based ids, block b holds b*250 .. b*250+249).
Per row and block: absent with probability 0.05 (missing), else one member, drawn with
popularity p(j) ~ 1/(j+5) inside the block, with value 1 (an indicator, as a one-hot coded
categorical column). So about 38 stored values a row, and the features of a block are never
present together. Label ~ Bernoulli(sigmoid(g)), g = a fixed random weight per member of
blocks 0..7 + 1.0 * [block 0's member even and block 1's member < 20] - 0.5, centred.

usage: gen_onehot.py N SEED OUT.libsvm
"""
import sys
import numpy as np

BLOCKS, WIDTH = 40, 250


def main():
    n = int(sys.argv[1]); seed = int(sys.argv[2]); out = sys.argv[3]
    rng = np.random.default_rng(seed)
    weights = np.random.default_rng(1234).normal(0.0, 0.6, size=(8, WIDTH))
    pop = 1.0 / (np.arange(WIDTH) + 5.0)
    cdf = np.cumsum(pop / pop.sum())
    tokens = np.array(["%d:1" % f for f in range(BLOCKS * WIDTH)], dtype=object)
    chunk = 100_000
    with open(out, "w") as f:
        for s in range(0, n, chunk):
            m = min(chunk, n - s)
            member = np.minimum(np.searchsorted(cdf, rng.uniform(size=(m, BLOCKS))), WIDTH - 1)
            present = rng.uniform(size=(m, BLOCKS)) >= 0.05
            g = np.zeros(m)
            for b in range(8):
                g += np.where(present[:, b], weights[b, member[:, b]], 0.0)
            g += 1.0 * ((member[:, 0] % 2 == 0) & (member[:, 1] < 20)) - 0.5
            y = (rng.uniform(size=m) < 1.0 / (1.0 + np.exp(-g))).astype(int)
            ids = member + np.arange(BLOCKS)[None, :] * WIDTH
            lines = []
            for r in range(m):
                lines.append(str(y[r]) + " " + " ".join(tokens[ids[r][present[r]]]) + "\n")
            f.write("".join(lines))
    sys.stderr.write("%s: n=%d\n" % (out, n))


if __name__ == "__main__":
    main()
