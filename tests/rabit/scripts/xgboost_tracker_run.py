"""Starts XGBoost's own RabitTracker (Debian's python3-xgboost) on 127.0.0.1 and N copies of a
worker command under it, as dmlc's launchers do: DMLC_TRACKER_URI/PORT, DMLC_TASK_ID=i,
DMLC_NUM_WORKER=N, DMLC_ROLE=worker. Prints each worker's output prefixed with its task id and
exits with the first non-zero worker exit code (0 when all succeed).

  /usr/bin/python3 xgboost_tracker_run.py N TIMEOUT_S COMMAND [ARGS...]

Exit code 77 when xgboost cannot be imported (the caller skips).
"""
import os
import subprocess
import sys

try:
    from xgboost.tracker import RabitTracker
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"cannot import xgboost.tracker: {e}")
    sys.exit(77)


def main():
    n, timeout = int(sys.argv[1]), float(sys.argv[2])
    command = sys.argv[3:]
    tracker = RabitTracker(host_ip="127.0.0.1", n_workers=n, sortby="task")
    tracker.start(n)
    env_base = dict(os.environ)
    for k, v in tracker.worker_envs().items():
        env_base[k] = str(v)
    procs = []
    for i in range(n):
        env = dict(env_base, DMLC_TASK_ID=str(i), DMLC_NUM_WORKER=str(n), DMLC_ROLE="worker")
        procs.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    code = 0
    for i, p in enumerate(procs):
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            out += "\n(killed: no exit within the timeout)"
            p.returncode = 124
        for line in out.splitlines():
            print(f"[task {i}] {line}")
        if p.returncode != 0 and code == 0:
            code = p.returncode
    if code == 0:
        tracker.join()
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
