#!/usr/bin/python3
"""CI test of the simulated cluster (netns_cluster.py): 8 hosts on 1 Gbit/s shaped links.

    test_cluster.py RINGBOOST RINGBOOST_SUBMIT [--mpi]

1. ringboost-submit on the head host starts 8 workers, each in its own host (namespace); the
   model must equal, byte for byte, the model of one `ringboost train` process.
2. With --mpi: mpirun on the head host starts 8 ranks through the rsh agent enter_host; the same
   model again.
3. Nothing is left behind: no namespace of the cluster, no process in one.
Before 1: every host has a permanent neighbour entry for every other, and its own TMPDIR.
Exit status 0 on success, 1 on a failure (the message says which), 77 (skip) where this machine
cannot make namespaces.
"""

import filecmp
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns_cluster  # noqa: E402

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKERS = 8
RATE = "1gbit"
CONF = """objective = binary:logistic
max_depth = 4
num_round = 4
subsample = 0.8
colsample_bynode = 0.8
seed = 3
eval_metric = auc
data = "{data}/binary.train"
eval[test] = "{data}/binary.test"
"""


def fail(message, output=""):
    print("FAIL: " + message)
    if output:
        print(output[-4000:])
    sys.exit(1)


def run(argv, env=None, timeout=60):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout


def leftovers(prefix):
    p = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, text=True)
    return [line.split()[0] for line in p.stdout.splitlines() if line.startswith(prefix)]


def check_hosts(cluster, env):
    """What the harness promises each host: a permanent neighbour entry for every other host (no
    ARP on a busy box) and, entered as Open MPI's rsh agent, a TMPDIR of its own (orted's session
    directory)."""
    for i in (-1, 0, cluster.n - 1):
        p = subprocess.run(["ip", "-n", cluster.ns(i), "neigh", "show", "nud", "permanent"],
                           stdout=subprocess.PIPE, text=True)
        known = {line.split()[0] for line in p.stdout.splitlines() if line.strip()}
        others = {cluster.ip(k) for k in range(-1, cluster.n) if k != i}
        if known != others:
            fail("host %d's permanent neighbours are %s, not every other host" % (i, sorted(known)))
    dirs = set()
    for i in range(cluster.n):
        code, out = run([netns_cluster.ENTER, cluster.ip(i), 'test -d "$TMPDIR" && echo $TMPDIR'],
                        env=env)
        if code != 0 or not out.strip():
            fail("enter_host %s gave no TMPDIR of its own" % cluster.ip(i), out)
        dirs.add(out.strip())
    if len(dirs) != cluster.n:
        fail("%d hosts share %d TMPDIRs" % (cluster.n, len(dirs)))
    print("ok: every host knows every other's address, and has its own TMPDIR")


def cut_link(ringboost, submit, conf):
    """4 hosts; once every link is up and training runs, host 2's link goes down (both ends, as
    a pulled cable): the job must end with the heartbeat's error naming the silent peer."""
    import time
    cluster = netns_cluster.Cluster(4, RATE)
    with cluster:
        env = dict(os.environ, **cluster.env())
        argv = cluster.submit_argv(submit, [ringboost, "train", conf, "num_round=100000",
                                            "max_depth=2", "rabit_heartbeat_sec=0.5",
                                            "rabit_peer_timeout_sec=2", "model_out=/dev/null"])
        p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, stdin=subprocess.DEVNULL)
        lines = []
        for line in p.stdout:
            lines.append(line)
            if "[10]" in line:  # rank 0's eval line of round 10: training runs
                break
        cluster.link(2, False)
        cut = time.monotonic()
        try:
            rest, _ = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("the job did not end within 60 s of the cut", "".join(lines))
        took = time.monotonic() - cut
        out = "".join(lines) + rest
        if p.returncode == 0:
            fail("the job ended well although a host was cut off", out)
        reports = [line for line in out.splitlines() if "no heartbeat for" in line]
        if not reports:
            fail("no worker reported the silent peer (no heartbeat)", out)
        print("ok: host 2's link cut, the job ended %.1f s later: %s" % (took, reports[0][:300]))
    return cluster


def main():
    ringboost, submit = sys.argv[1], sys.argv[2]
    if "--cut" in sys.argv[3:]:
        work = tempfile.mkdtemp(prefix="rb-cluster-test-")
        conf = os.path.join(work, "a.conf")
        with open(conf, "w") as f:
            f.write(CONF.format(data=os.path.join(SOURCE, "data", "libsvm")))
        try:
            cluster = cut_link(ringboost, submit, conf)
        except netns_cluster.Skip as e:
            print("SKIP: %s" % e)
            return netns_cluster.SKIP
        subprocess.run(["rm", "-rf", work])
        left = leftovers(cluster.prefix)
        if left:
            fail("namespaces left behind: %s" % " ".join(left))
        return 0
    with_mpi = "--mpi" in sys.argv[3:]
    work = tempfile.mkdtemp(prefix="rb-cluster-test-")
    conf = os.path.join(work, "a.conf")
    with open(conf, "w") as f:
        f.write(CONF.format(data=os.path.join(SOURCE, "data", "libsvm")))
    one = os.path.join(work, "one.json")
    code, out = run([ringboost, "train", conf, "model_out=" + one])
    if code != 0:
        fail("one process failed", out)
    try:
        cluster = netns_cluster.Cluster(WORKERS, RATE)
        with cluster:
            env = dict(os.environ, **cluster.env())
            check_hosts(cluster, env)
            model = os.path.join(work, "submit.json")
            code, out = run(cluster.submit_argv(
                submit, [ringboost, "train", conf, "model_out=" + model]), env=env)
            if code != 0:
                fail("ringboost-submit in the cluster failed", out)
            if "tracker on %s:" % cluster.ip(-1) not in out:
                fail("the tracker did not run on the head host", out)
            if not filecmp.cmp(one, model, shallow=False):
                fail("the model of %d workers differs from one process's" % WORKERS)
            print("ok: %d workers on %s links (ringboost-submit), model identical" %
                  (WORKERS, RATE))
            if with_mpi:
                hostfile = os.path.join(work, "hosts")
                cluster.mpi_hostfile(hostfile)
                model = os.path.join(work, "mpi.json")
                env["OMPI_ALLOW_RUN_AS_ROOT"] = env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
                code, out = run(cluster.head_argv(
                    ["mpirun", "-np", str(WORKERS)] + cluster.mpirun_args(hostfile) +
                    ["-x", "OMP_NUM_THREADS=1", ringboost, "train", conf,
                     "communicator=mpi", "model_out=" + model]), env=env)
                if code != 0:
                    fail("mpirun in the cluster failed", out)
                if not filecmp.cmp(one, model, shallow=False):
                    fail("the model of %d MPI ranks differs from one process's" % WORKERS)
                print("ok: %d MPI ranks across the hosts, model identical" % WORKERS)
    except netns_cluster.Skip as e:
        print("SKIP: %s" % e)
        return netns_cluster.SKIP
    left = leftovers(cluster.prefix)
    if left:
        fail("namespaces left behind: %s" % " ".join(left))
    print("ok: torn down, no namespace of %s left" % cluster.prefix)
    subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
