#!/usr/bin/env python3
"""XGBoost 3.x's collective in the simulated cluster, for bench/cluster.py: started on the head
host, it runs XGBoost's RabitTracker there and starts --workers copies of itself, each in its
own host through $ENTER_HOST (tests/cluster/enter_host, DMLC_TASK_ID=i). Each worker times
xgboost.collective.allreduce (sum of float64, in place semantics as XGBoost's own callers use
it) the way bench/allreduce_timing.h does: 3 probe calls, then max(5, seconds / estimate) timed
calls; rank 0 prints {"bytes", "seconds_per_op" (median), "iters", "world", "impl"}.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def worker(args):
    import numpy as np
    from xgboost import collective

    tracker_args = json.loads(os.environ["RB_XGB_TRACKER_ARGS"])
    with collective.CommunicatorContext(dmlc_task_id=os.environ["DMLC_TASK_ID"], **tracker_args):
        rank, world = collective.get_rank(), collective.get_world_size()
        n = max(args.bytes // 8, 1)
        buf = np.full(n, rank + 1.0)
        out = collective.allreduce(buf, collective.Op.SUM)
        if out[0] != world * (world + 1) / 2:
            print("rank %d: wrong sum %r" % (rank, out[0]), flush=True)
            return 2
        buf = np.zeros(n)
        start = time.perf_counter()
        for k in range(3):
            if k == 1:
                start = time.perf_counter()
            collective.allreduce(buf, collective.Op.SUM)
        estimate = (time.perf_counter() - start) / 2
        iters = np.array([max(5.0, min(2000.0, args.seconds / max(estimate, 1e-9)))])
        iters = int(collective.broadcast(iters, 0)[0])
        times = []
        for _ in range(iters):
            t0 = time.perf_counter()
            collective.allreduce(buf, collective.Op.SUM)
            times.append(time.perf_counter() - t0)
        if rank == 0:
            print(json.dumps({"bytes": n * 8, "seconds_per_op": statistics.median(times),
                              "iters": iters, "world": world, "impl": "xgboost-collective"}),
                  flush=True)
    return 0


def head(args):
    from xgboost.tracker import RabitTracker

    tracker = RabitTracker(host_ip=args.tracker, n_workers=args.workers, sortby="task")
    tracker.start()
    env = dict(os.environ, RB_XGB_TRACKER_ARGS=json.dumps(tracker.worker_args()))
    children = []
    for i in range(args.workers):
        argv = [os.environ["ENTER_HOST"], sys.executable, os.path.abspath(__file__), "--worker",
                "--bytes", str(args.bytes), "--seconds", str(args.seconds)]
        children.append(subprocess.Popen(argv, env=dict(env, DMLC_TASK_ID=str(i))))
    codes = [c.wait() for c in children]
    tracker.wait_for(timeout=60)
    return max(codes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--tracker", default="127.0.0.1")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--bytes", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=0.3)
    args = ap.parse_args()
    return worker(args) if args.worker else head(args)


if __name__ == "__main__":
    sys.exit(main())
