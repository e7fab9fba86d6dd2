#!/usr/bin/python3
"""A simulated cluster on one machine: N hosts, each a network namespace with one veth link to a
bridge, the links shaped with tc. Used by the CI test (tests/cluster) and the benchmarks
(bench/cluster.py); docs/collective.md, "The simulated cluster", says what it models.

    netns_cluster.py --workers N [--rate 1gbit] [--mpi | --xgboost VENV_PYTHON] -- COMMAND ...

Layout (SUBNET is 10.a.b, chosen at random per cluster so that runs side by side do not meet):
  PREFIX-br   holds the bridge br0 and the host ends of every veth (nothing else runs there);
  PREFIX-h    the head host, SUBNET.1: ringboost-submit and its tracker, mpirun, XGBoost's tracker;
  PREFIX-wI   worker host I, address 10.a.(b + (I + 2) / 256).((I + 2) % 256) in a /16.
Every link is shaped in both directions with tbf at --rate (egress of the host's eth0 and of the
bridge's end). Latency: this kernel has no netem, so no delay is added; a link's latency is the
veth's own (a few microseconds plus the scheduler on a loaded machine), measured as the alpha
term of the cost model (bench/cluster.py) and stated beside every number.

Workers enter their host through tests/cluster/enter_host (DMLC_TASK_ID -> PREFIX-wI) for
ringboost-submit and XGBoost's tracker, and through it as Open MPI's rsh agent for mpirun.

Teardown (on exit, on errors and on SIGTERM / SIGINT / SIGHUP): every process in the cluster's
namespaces is killed, then the namespaces are deleted, which removes the veths and the bridge.
Exit status: the command's; 77 when this machine cannot make namespaces (not root, no ip/tc).
"""

import argparse
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
ENTER = os.path.join(HERE, "enter_host")
TOOL_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
NS_DIR = "/run/netns"


class Skip(Exception):
    """This machine cannot run the simulated cluster."""


class ClusterError(Exception):
    """A setup command failed; the message names it."""


class Interrupted(Exception):
    """SIGTERM / SIGINT / SIGHUP arrived."""


def run(argv, what, stdin=None, check=True):
    p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=TOOL_ENV)
    if check and p.returncode != 0:
        raise ClusterError("%s failed (%s): %s" % (what, " ".join(argv[:6]), p.stderr.strip()))
    return p


def rate_bits(rate):
    """'10gbit' -> 1e10; also mbit, kbit, bare bits per second."""
    units = {"gbit": 1e9, "mbit": 1e6, "kbit": 1e3, "bit": 1}
    for unit, scale in units.items():
        if rate.endswith(unit):
            return float(rate[:-len(unit)]) * scale
    return float(rate)


def burst_bytes(rate):
    """The tbf bucket of a link at `rate` (see tbf_args)."""
    return max(65536 + 1514, int(rate_bits(rate) / 8 / 1000))


def tbf_args(rate):
    """tbf at `rate`: a bucket of 1 ms worth (at least 64 KB + a frame, GSO's segment) and 50 ms
    of queue, so a shaped link paces and drops nothing. A link idle for 1 ms passes its next
    burst_bytes() at the veth's own speed; the cost model (bench/cluster.py) counts that. A
    smaller bucket was tried: with the qdisc's timer late by a millisecond on this loaded
    machine, a 16 KiB bucket cut 1 Gbit/s links to a tenth."""
    bits = rate_bits(rate)
    burst = burst_bytes(rate)
    limit = max(2 * burst, int(bits / 8 * 0.05))
    return ["tbf", "rate", rate, "burst", str(burst), "limit", str(limit)]


class Cluster:
    """N hosts on one bridge. Use as a context manager; teardown always runs."""

    def __init__(self, workers, rate=None):
        self.n = workers
        self.rate = rate
        self.rid = "%x%03x" % (os.getpid() % 0x1000, random.randrange(0x1000))
        self.prefix = "rbc" + self.rid
        self.subnet = (random.randrange(128, 192), random.randrange(0, 256, 8))
        self.made = []  # namespaces made, deleted in teardown
        self.tmpdir = None  # the hosts' TMPDIRs live below it (enter_host), removed in teardown
        self.old_handlers = {}

    # -- names ------------------------------------------------------------------------------
    def ns(self, i):
        """Worker host i's namespace; -1 is the head."""
        return "%s-h" % self.prefix if i < 0 else "%s-w%d" % (self.prefix, i)

    def ip(self, i):
        """Worker host i's address; -1 is the head (SUBNET.1)."""
        a, b = self.subnet
        k = 1 if i < 0 else i + 2
        return "10.%d.%d.%d" % (a, b + k // 256, k % 256)

    def mac(self, i):
        """Worker host i's hardware address (-1: the head), locally administered."""
        k = i + 1
        return "02:72:62:%02x:%02x:%02x" % ((k >> 16) & 255, (k >> 8) & 255, k & 255)

    def head_argv(self, argv):
        """argv run on the head host."""
        return ["nsenter", "--net=%s/%s" % (NS_DIR, self.ns(-1)), "--"] + list(argv)

    def env(self):
        """What enter_host needs: the prefix of the worker namespaces, the subnet (to map an
        address to its host) and the folder below which each host has its own TMPDIR."""
        return {"RB_CLUSTER_PREFIX": self.prefix, "RB_CLUSTER_SUBNET_B": str(self.subnet[1]),
                "RB_CLUSTER_TMPDIR": self.tmpdir}

    # -- setup ------------------------------------------------------------------------------
    def __enter__(self):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            self.old_handlers[sig] = signal.signal(sig, self._on_signal)
        try:
            self.setup()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(self, *exc):
        self.teardown()
        for sig, handler in self.old_handlers.items():
            signal.signal(sig, handler)
        return False

    def _on_signal(self, signum, frame):
        raise Interrupted("signal %d" % signum)

    def setup(self):
        if os.geteuid() != 0:
            raise Skip("the simulated cluster needs root (network namespaces)")
        for tool in ("ip", "tc", "nsenter"):
            if run(["sh", "-c", "command -v " + tool], tool, check=False).returncode != 0:
                raise Skip("the simulated cluster needs %s" % tool)
        self.tmpdir = tempfile.mkdtemp(prefix=self.prefix + "-tmp-")
        br = "%s-br" % self.prefix
        names = [br, self.ns(-1)] + [self.ns(i) for i in range(self.n)]
        # One `ip -batch` for every namespace and veth pair: a process per command would cost
        # seconds at 128 hosts.
        p = run(["ip", "netns", "add", br], "ip netns add", check=False)
        if p.returncode != 0:
            raise Skip("cannot create a network namespace (ip netns add): " + p.stderr.strip())
        self.made.append(br)
        lines = []
        for name in names[1:]:
            lines.append("netns add %s" % name)
        run(["ip", "-batch", "-"], "ip netns add", "\n".join(lines) + "\n")
        self.made += names[1:]
        lines = ["link add br0 netns %s type bridge" % br]
        for k, name in enumerate(names[1:]):
            lines.append("link add v%d netns %s type veth peer name eth0 address %s netns %s" %
                         (k, br, self.mac(k - 1), name))
        run(["ip", "-batch", "-"], "veth pairs", "\n".join(lines) + "\n")
        lines = ["link set br0 up"]
        for k in range(len(names) - 1):
            lines.append("link set v%d master br0 up" % k)
        run(["ip", "-n", br, "-batch", "-"], "bridge ports", "\n".join(lines) + "\n")
        # Every host knows every other's hardware address (permanent neighbour entries), as on
        # a network whose ARP caches are warm: with 32-64 hosts busy on 2 cores, ARP replies came
        # too late and connects failed with "No route to host" (XGBoost's bootstrap gave up;
        # a ringboost worker's connect to the tracker timed out).
        neighbours = ["neigh replace %s lladdr %s dev eth0 nud permanent" %
                      (self.ip(i), self.mac(i)) for i in range(-1, self.n)]
        for k, name in enumerate(names[1:]):
            ip = self.ip(k - 1)
            script = ("addr add %s/16 dev eth0\nlink set eth0 up\nlink set lo up\n" % ip +
                      "\n".join(n for n in neighbours if (" %s " % ip) not in n) + "\n")
            run(["ip", "-n", name, "-batch", "-"], "host " + name, script)
        if self.rate:
            self.shape(br, names[1:])

    def shape(self, br, hosts):
        """tbf at self.rate both ways on every worker's link (the head's link is not shaped:
        it carries only the tracker's and the launchers' few bytes)."""
        qdisc = tbf_args(self.rate)
        lines = []
        for k in range(1, len(hosts)):
            lines.append(" ".join(["qdisc", "add", "dev", "v%d" % k, "root"] + qdisc))
        p = run(["tc", "-n", br, "-batch", "-"], "tc", "\n".join(lines) + "\n", check=False)
        if p.returncode != 0:
            raise Skip("tc cannot shape a veth here (tbf): " + p.stderr.strip())
        for name in hosts[1:]:
            run(["tc", "-n", name, "qdisc", "add", "dev", "eth0", "root"] + qdisc, "tc " + name)

    # -- teardown ---------------------------------------------------------------------------
    def pids(self):
        """Every process inside the cluster's namespaces."""
        found = set()
        for name in self.made:
            p = run(["ip", "netns", "pids", name], "ip netns pids", check=False)
            found.update(int(x) for x in p.stdout.split() if x.isdigit())
        return found

    def kill_all(self):
        for _ in range(20):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)

    def teardown(self):
        # Signals arriving now must not cut the teardown short.
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        try:
            self.kill_all()
            if self.made:
                lines = ["netns del %s" % name for name in reversed(self.made)]
                run(["ip", "-force", "-batch", "-"], "ip netns del", "\n".join(lines) + "\n",
                    check=False)
            self.made = []
            if self.tmpdir:
                shutil.rmtree(self.tmpdir, ignore_errors=True)
                self.tmpdir = None
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, self._on_signal)

    # -- running ----------------------------------------------------------------------------
    def link(self, i, up):
        """Cuts (up=False) or restores worker host i's link, from the bridge's side and its own."""
        state = "up" if up else "down"
        run(["ip", "-n", "%s-br" % self.prefix, "link", "set", "v%d" % (i + 1), state], "link")
        run(["ip", "-n", self.ns(i), "link", "set", "eth0", state], "link")

    def submit_argv(self, submit, command, extra=()):
        """ringboost-submit on the head host, its tracker on the head's address, each worker
        entering its own host through enter_host."""
        return self.head_argv([submit, "--cluster", "local", "--num-workers", str(self.n),
                               "--host-ip", self.ip(-1)] + list(extra) + [ENTER] + list(command))

    def mpi_hostfile(self, path, slots=1):
        """Open MPI's host file: one line per worker host, named by its address; enter_host
        maps the address to the namespace when mpirun's rsh agent starts orted there."""
        with open(path, "w") as f:
            for i in range(self.n):
                f.write("%s slots=%d\n" % (self.ip(i), slots))

    def mpirun_args(self, hostfile):
        """mpirun flags that run one rank per worker host through enter_host, over tcp on the
        hosts' eth0 (the shaped links)."""
        a, b = self.subnet
        net = "10.%d.%d.0/16" % (a, b)
        return ["--hostfile", hostfile, "--mca", "plm_rsh_agent", ENTER,
                "--mca", "plm_rsh_no_tree_spawn", "1",
                "--mca", "pml", "ob1", "--mca", "btl", "self,tcp",
                "--mca", "btl_tcp_if_include", net, "--mca", "oob_tcp_if_include", net,
                "--mca", "orte_keep_fqdn_hostnames", "1",
                "--mca", "mpi_yield_when_idle", "1", "--bind-to", "none", "--oversubscribe",
                "-x", "OMPI_MCA_mpi_yield_when_idle=1"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, required=True)
    ap.add_argument("--rate", default=None, help="tbf rate per link, e.g. 10gbit, 1gbit")
    ap.add_argument("--hold", action="store_true", help="keep the cluster until a signal")
    ap.add_argument("command", nargs=argparse.REMAINDER,
                    help="-- COMMAND: run on the head host with RB_CLUSTER_PREFIX set")
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    try:
        with Cluster(args.workers, args.rate) as c:
            print("[cluster] %d hosts %s..%s on %s, prefix %s, links %s" % (
                args.workers, c.ip(0), c.ip(args.workers - 1), c.ip(-1), c.prefix,
                args.rate or "unshaped"), flush=True)
            code = 0
            if command:
                env = dict(os.environ, **c.env(), RB_CLUSTER_HEAD=c.ip(-1))
                code = subprocess.call(c.head_argv(command), env=env)
            while args.hold:
                time.sleep(3600)
            return code
    except Skip as e:
        print("[cluster] skip: %s" % e, flush=True)
        return SKIP
    except Interrupted as e:
        print("[cluster] %s: torn down" % e, flush=True)
        return 130
    except ClusterError as e:
        print("[cluster] error: %s" % e, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
