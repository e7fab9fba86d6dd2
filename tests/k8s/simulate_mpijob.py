#!/usr/bin/python3
"""Runs a Kubeflow MPIJob (kubeflow.org/v2beta1, OpenMPI) on this machine the way the MPI
Operator and the kubelet would run it, without a cluster.

    simulate_mpijob.py JOB.yaml --pvc CLAIM=HOSTDIR --ringboost EXE [options]

Each pod gets its own network (veth to a bridge in a namespace of its own), UTS and mount
namespace with a private root; workers run sshd as mpiuser, then the launcher runs its command
as mpiuser with the operator's environment. docs/submit.md, "Simulated operator runtime
(tests/k8s)", says what is simulated and how.

Exit status: the (last) launcher's status; 77 when this machine lacks root or namespaces (the
tests skip then); 2 for a manifest the simulator cannot run. Everything it made (namespaces,
veths, processes, mounts, its temp folder) is removed on exit, also on errors, SIGTERM, SIGINT.
"""

import argparse
import ctypes
import fcntl
import os
import pwd
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import yaml

SKIP = 77
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
USER = "mpiuser"
HOME = "/home/mpiuser"
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TOOL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
HOST_DIRS = ("usr", "opt", "var", "srv")  # bind-mounted read-write from the host
LINK_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
LIBC = ctypes.CDLL(None, use_errno=True)


class Skip(Exception):
    """This machine cannot run the simulation (no root, no namespaces)."""


class SimError(Exception):
    """The manifest or the simulation failed; the message says why."""


class Interrupted(Exception):
    """SIGTERM / SIGINT / SIGHUP arrived."""


def log(message):
    print("[sim] " + message, flush=True)


def run(argv, what, check=True):
    """Runs a setup command, raising SimError with its stderr on failure."""
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env={"PATH": TOOL_PATH})
    if check and p.returncode != 0:
        raise SimError("%s failed (%s): %s" % (what, " ".join(argv), p.stderr.strip()))
    return p


def die_with_parent():
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# ----------------------------------------------------------------------------------- the manifest

class Job:
    """What the simulation needs from an MPIJob, checked as the operator would."""

    def __init__(self, path):
        try:
            with open(path) as f:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            raise SimError("%s: %s" % (path, e))
        if len(docs) != 1 or not isinstance(docs[0], dict):
            raise SimError("%s: expected one MPIJob document" % path)
        job = docs[0]
        if job.get("apiVersion") != "kubeflow.org/v2beta1" or job.get("kind") != "MPIJob":
            raise SimError("%s: not a kubeflow.org/v2beta1 MPIJob" % path)
        meta, spec = job.get("metadata") or {}, job.get("spec") or {}
        self.name = meta.get("name") or ""
        self.namespace = meta.get("namespace") or "default"
        self.slots = int(spec.get("slotsPerWorker", 1))
        if spec.get("mpiImplementation", "OpenMPI") != "OpenMPI":
            raise SimError("%s: only mpiImplementation OpenMPI is simulated" % path)
        self.ssh_path = spec.get("sshAuthMountPath", "/root/.ssh")
        self.creation_policy = spec.get("launcherCreationPolicy", "AtStartup")
        replicas = spec.get("mpiReplicaSpecs") or {}
        if set(replicas) != {"Launcher", "Worker"}:
            raise SimError("%s: mpiReplicaSpecs must hold Launcher and Worker" % path)
        self.launcher = Replica(replicas["Launcher"], "Launcher", path)
        self.worker = Replica(replicas["Worker"], "Worker", path)
        if self.launcher.replicas != 1 or self.worker.replicas < 1:
            raise SimError("%s: one launcher and at least one worker are needed" % path)
        if not self.worker.command:  # the operator's default worker command
            self.worker.command = ["/usr/sbin/sshd", "-De"]
        if not self.launcher.command:
            raise SimError("%s: the launcher has no command (the image's is unknown here)" % path)

    def worker_name(self, i):
        return "%s-worker-%d" % (self.name, i)

    def service(self):  # the workers' headless Service, also every pod's subdomain
        return self.name + "-worker"

    def hostfile(self):
        """/etc/mpi/hostfile as the operator's newConfigMap writes it for OpenMPI."""
        return "".join("%s.%s.%s.svc slots=%d\n" % (self.worker_name(i), self.service(),
                                                    self.namespace, self.slots)
                       for i in range(self.worker.replicas))

    def discover_hosts(self):
        return "#!/bin/sh\n" + "".join(
            "echo %s.%s.%s.svc\n" % (self.worker_name(i), self.service(), self.namespace)
            for i in range(self.worker.replicas))

    def launcher_env(self):
        """newLauncherPodTemplate: the container's env, then the operator's variables."""
        env = dict(self.launcher.env)
        env["K_MPI_JOB_ROLE"] = "launcher"
        env["OMPI_MCA_orte_keep_fqdn_hostnames"] = "true"
        env["OMPI_MCA_orte_default_hostfile"] = "/etc/mpi/hostfile"
        env["OMPI_MCA_plm_rsh_args"] = "-o ConnectionAttempts=10"
        env["OMPI_MCA_orte_set_default_slots"] = str(self.slots)
        env["NVIDIA_VISIBLE_DEVICES"] = ""  # the launcher must not use GPUs
        env["NVIDIA_DRIVER_CAPABILITIES"] = ""
        return env

    def worker_env(self):
        env = dict(self.worker.env)
        env["K_MPI_JOB_ROLE"] = "worker"
        return env


class Replica:
    """One mpiReplicaSpecs entry: replicas, restartPolicy and its first container."""

    def __init__(self, spec, role, path):
        self.replicas = int(spec.get("replicas", 1))
        self.restart_policy = spec.get("restartPolicy", "Never")
        pod = (spec.get("template") or {}).get("spec") or {}
        containers = pod.get("containers") or []
        if not containers:
            raise SimError("%s: the %s template has no container" % (path, role))
        c = containers[0]
        self.command = list(c.get("command") or []) + list(c.get("args") or [])
        self.working_dir = c.get("workingDir") or "/"
        self.env = []
        for e in c.get("env") or []:
            if "valueFrom" in e:
                raise SimError("%s: %s env %s: valueFrom is not simulated" % (path, role,
                                                                             e.get("name")))
            self.env.append((e["name"], str(e.get("value", ""))))
        volumes = {v.get("name"): v for v in pod.get("volumes") or []}
        self.mounts = []  # (volume, mountPath, readOnly)
        for m in c.get("volumeMounts") or []:
            if m.get("name") not in volumes:
                raise SimError("%s: %s volumeMount %s names no volume" % (path, role,
                                                                         m.get("name")))
            self.mounts.append((volumes[m["name"]], m["mountPath"], bool(m.get("readOnly"))))
        self.run_as = (pod.get("securityContext") or {}).get("runAsUser")


# ----------------------------------------------------------------------------------- the pods

class Pod:
    def __init__(self, name, role, replica, ip, netns):
        self.name, self.role, self.replica, self.ip, self.netns = name, role, replica, ip, netns
        self.holder = None   # the sandbox ("pause") process: owns the UTS and mount namespaces
        self.root = None     # its root folder, as seen inside its mount namespace
        self.main = None     # the container's main process (Popen)
        self.log_path = None


class Simulation:
    def __init__(self, job, args):
        self.job, self.args = job, args
        self.rid = "%x%04x" % (os.getpid() % 0x10000, random.randrange(0x10000))
        self.prefix = "rbsim-" + self.rid
        self.netns = []    # every namespace created, removed in teardown
        self.pods = []
        self.dir = None
        self.claims = dict(args.pvc)
        self.subnet = "10.%d.%d" % (random.randrange(64, 128), random.randrange(256))
        self.bridge_ns = self.prefix + "-bridge"

    # -- setup --------------------------------------------------------------------------------
    def setup(self):
        self.dir = tempfile.mkdtemp(prefix=self.prefix + "-")
        os.chmod(self.dir, 0o755)
        self.uid, self.gid = ensure_user()
        if self.job.launcher.run_as not in (None, self.uid):
            log("the manifest runs as uid %s, the image's %s; here %s is uid %d" % (
                self.job.launcher.run_as, USER, USER, self.uid))
        self.make_secret()
        for _, host_dir in self.claims.items():
            run(["chown", "-R", "%d:%d" % (self.uid, self.gid), host_dir], "chown of a claim")
        self.add_netns(self.bridge_ns)
        run(["ip", "-n", self.bridge_ns, "link", "add", "br0", "type", "bridge"], "bridge")
        run(["ip", "-n", self.bridge_ns, "addr", "add", self.subnet + ".1/24", "dev", "br0"],
            "bridge address")
        run(["ip", "-n", self.bridge_ns, "link", "set", "br0", "up"], "bridge up")
        job = self.job
        self.pods.append(Pod(job.name + "-launcher", "launcher", job.launcher,
                             self.subnet + ".2", self.prefix + "-launcher"))
        for i in range(job.worker.replicas):
            self.pods.append(Pod(job.worker_name(i), "worker", job.worker,
                                 "%s.%d" % (self.subnet, 3 + i), "%s-worker-%d" % (self.prefix, i)))
        hosts = self.hosts_file()
        for k, pod in enumerate(self.pods):
            self.make_network(pod, k)
            self.make_sandbox(pod, hosts)
        log("pods %s on %s.0/24; the launcher's /etc/mpi/hostfile:\n%s" % (
            ", ".join(p.name for p in self.pods), self.subnet, job.hostfile().rstrip()))

    def add_netns(self, name):
        p = run(["ip", "netns", "add", name], "ip netns add", check=False)
        if p.returncode != 0:
            raise Skip("cannot create a network namespace (ip netns add): " + p.stderr.strip())
        self.netns.append(name)

    def make_secret(self):
        """The operator's Secret: an ECDSA P-521 key in PEM, items id_rsa, id_rsa.pub and
        authorized_keys; mode 0644 unless mounted at /root/.ssh (then 0600), owned by root."""
        secret = os.path.join(self.dir, "secret")
        os.mkdir(secret, 0o755)
        key = os.path.join(secret, "id_rsa")
        run(["ssh-keygen", "-q", "-t", "ecdsa", "-b", "521", "-m", "PEM", "-N", "", "-C", "",
             "-f", key], "ssh-keygen")
        shutil.copyfile(key + ".pub", os.path.join(secret, "authorized_keys"))
        mode = 0o600 if self.job.ssh_path == "/root/.ssh" else 0o644
        for name in ("id_rsa", "id_rsa.pub", "authorized_keys"):
            os.chmod(os.path.join(secret, name), mode)
        self.secret = secret

    def hosts_file(self):
        """Every pod's names, as the headless Service's DNS would answer them."""
        job = self.job
        lines = ["# simulate_mpijob.py: the pods of MPIJob %s" % job.name,
                 "127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback"]
        for pod in self.pods:
            names = []
            for sub in (job.service(), job.name):  # current and pre-0.4 operator subdomains
                fq = "%s.%s.%s.svc" % (pod.name, sub, job.namespace)
                names += [fq + ".cluster.local", fq, "%s.%s.%s" % (pod.name, sub, job.namespace),
                          "%s.%s" % (pod.name, sub)]
            lines.append("%s\t%s\t%s" % (pod.ip, " ".join(names), pod.name))
        return "\n".join(lines) + "\n"

    def make_network(self, pod, k):
        self.add_netns(pod.netns)
        peer = "v%d" % k
        run(["ip", "-n", self.bridge_ns, "link", "add", peer, "type", "veth", "peer", "name",
             "eth0", "netns", pod.netns], "veth")
        run(["ip", "-n", self.bridge_ns, "link", "set", peer, "master", "br0", "up"], "veth up")
        run(["ip", "-n", pod.netns, "addr", "add", pod.ip + "/24", "dev", "eth0"], "pod address")
        run(["ip", "-n", pod.netns, "link", "set", "eth0", "up"], "pod eth0 up")
        run(["ip", "-n", pod.netns, "link", "set", "lo", "up"], "pod lo up")

    def make_sandbox(self, pod, hosts):
        """The pod's pause process (UTS + mount namespaces) and its private root."""
        pod_dir = os.path.join(self.dir, pod.name)
        os.makedirs(os.path.join(pod_dir, "root"))
        os.makedirs(os.path.join(pod_dir, "scratch"))
        pod.root = os.path.join(pod_dir, "root")
        pod.log_path = os.path.join(pod_dir, "container.log")
        pod.holder = subprocess.Popen(
            ["nsenter", "--net=/run/netns/" + pod.netns, "unshare", "--uts", "--mount",
             "--propagation", "private", "sh", "-c", "echo ready; exec sleep infinity"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={"PATH": TOOL_PATH}, preexec_fn=die_with_parent, start_new_session=True,
            text=True)
        if pod.holder.stdout.readline().strip() != "ready":
            pod.holder.kill()
            raise Skip("cannot create UTS and mount namespaces (unshare): " +
                       pod.holder.stderr.read().strip())
        files = {"hosts": hosts, "hostname": pod.name + "\n"}
        if pod.role == "launcher":
            files["hostfile"] = self.job.hostfile()
            files["discover_hosts.sh"] = self.job.discover_hosts()
        for name, text in files.items():
            with open(os.path.join(pod_dir, name), "w") as f:
                f.write(text)
        script = self.sandbox_script(pod, pod_dir)
        p = run(["nsenter", "-t", str(pod.holder.pid), "--mount", "--uts", "sh", "-euc", script],
                "the root of pod " + pod.name, check=False)
        if p.returncode != 0:
            raise SimError("setting up pod %s failed: %s" % (pod.name, p.stderr.strip()))

    def sandbox_script(self, pod, pod_dir):
        """Shell run inside the pod's mount namespace as root: builds its root folder."""
        q = shlex.quote
        r, s = q(pod.root), q(os.path.join(pod_dir, "scratch"))
        deploy = self.args.deploy
        lines = ["echo %s > /proc/sys/kernel/hostname" % q(pod.name),
                 "mount -t tmpfs -o mode=0755 rbsim-scratch %s" % s,
                 "mount -t tmpfs -o mode=0755 rbsim-root %s" % r]
        for d in HOST_DIRS + ("dev", "proc", "sys"):
            lines.append("if [ -d /%s ]; then mkdir %s/%s; mount --rbind /%s %s/%s; fi" %
                         (d, r, d, d, r, d))
        for d in LINK_DIRS:
            lines.append("if [ -L /%s ]; then cp -P /%s %s/%s; elif [ -d /%s ]; then mkdir %s/%s;"
                         " mount --rbind /%s %s/%s; fi" % (d, d, r, d, d, r, d, d, r, d))
        lines += [
            "mount -t tmpfs -o mode=1777 shm %s/dev/shm" % r,
            "mkdir %s/tmp %s/run %s/etc %s/home %s/mnt %s/media" % ((r,) * 6),
            "mkdir -m 0700 %s/root" % r,
            "mount -t tmpfs -o mode=1777 tmp %s/tmp" % r,
            "mount -t tmpfs -o mode=0755 run %s/run" % r,
            "mkdir %s/etc-upper %s/etc-work" % (s, s),
            "mount -t overlay overlay -o lowerdir=/etc,upperdir=%s/etc-upper,workdir=%s/etc-work"
            " %s/etc" % (s, s, r),
            # the image's content: ringboost, the ssh client config, mpiuser's sshd config
            "mount -t tmpfs -o mode=0755 localbin %s/usr/local/bin" % r,
            "touch %s/usr/local/bin/ringboost" % r,
            "mount --bind %s %s/usr/local/bin/ringboost" % (q(self.args.ringboost), r),
            "mkdir -p %s/etc/ssh/ssh_config.d %s/etc/openmpi" % (r, r),
            "install -m 0644 %s %s/etc/ssh/ssh_config.d/ringboost.conf" % (
                q(os.path.join(deploy, "ssh_config")), r),
            "echo 'btl_vader_single_copy_mechanism = none' >> %s/etc/openmpi/"
            "openmpi-mca-params.conf" % r,
            "install -d -o %d -g %d -m 0755 %s%s" % (self.uid, self.gid, r, HOME),
            "install -o %d -g %d -m 0644 %s %s%s/.sshd_config" % (
                self.uid, self.gid, q(os.path.join(deploy, "sshd_config")), r, HOME),
            # the kubelet's files and the operator's volumes
            "install -m 0644 %s %s/etc/hosts" % (q(os.path.join(pod_dir, "hosts")), r),
            "install -m 0644 %s %s/etc/hostname" % (q(os.path.join(pod_dir, "hostname")), r),
        ]
        lines += self.bind_lines(r, q(self.secret), self.job.ssh_path, True)
        if pod.role == "launcher":
            lines += ["mkdir -p %s/etc/mpi" % r,
                      "install -m 0444 %s %s/etc/mpi/hostfile" % (
                          q(os.path.join(pod_dir, "hostfile")), r),
                      "install -m 0555 %s %s/etc/mpi/discover_hosts.sh" % (
                          q(os.path.join(pod_dir, "discover_hosts.sh")), r)]
        for volume, mount_path, read_only in pod.replica.mounts:
            lines += self.bind_lines(r, q(self.volume_dir(volume, pod_dir)), mount_path,
                                     read_only)
        return "\n".join(lines)

    def bind_lines(self, r, source, mount_path, read_only):
        if not mount_path.startswith("/") or ".." in mount_path.split("/"):
            raise SimError("mountPath %s: must be an absolute path" % mount_path)
        top = mount_path.strip("/").split("/")[0]
        if top in HOST_DIRS + LINK_DIRS + ("dev", "proc", "sys"):
            raise SimError("mountPath %s: the simulator shares /%s with the host; choose a path "
                           "under /data, /mnt, /home, /tmp or the like" % (mount_path, top))
        target = r + shlex.quote(mount_path)
        lines = ["mkdir -p %s" % target, "mount --bind %s %s" % (source, target)]
        if read_only:
            lines.append("mount -o remount,bind,ro %s" % target)
        return lines

    def volume_dir(self, volume, pod_dir):
        if "persistentVolumeClaim" in volume:
            claim = volume["persistentVolumeClaim"].get("claimName")
            if claim not in self.claims:
                raise SimError("the manifest mounts the claim %s: give --pvc %s=HOSTDIR" %
                               (claim, claim))
            return self.claims[claim]
        if "emptyDir" in volume:
            path = os.path.join(pod_dir, "emptydir-" + volume["name"])
            os.makedirs(path, exist_ok=True)
            os.chown(path, self.uid, self.gid)
            return path
        raise SimError("volume %s: only persistentVolumeClaim and emptyDir are simulated" %
                       volume.get("name"))

    # -- containers ---------------------------------------------------------------------------
    def start(self, pod, argv, env, out):
        """Runs argv in the pod as mpiuser, in its workingDir, with exactly `env` (plus what a
        container runtime adds: PATH from the image, HOME, HOSTNAME)."""
        full = {"PATH": IMAGE_PATH, "HOSTNAME": pod.name, "HOME": HOME}
        full.update(env)
        chain = ["nsenter", "-t", str(pod.holder.pid), "--net", "--uts", "--mount",
                 "chroot", pod.root,
                 "setpriv", "--reuid=%d" % self.uid, "--regid=%d" % self.gid, "--init-groups",
                 "env", "-i", "--chdir=" + pod.replica.working_dir]
        chain += ["%s=%s" % kv for kv in full.items()] + argv
        return subprocess.Popen(chain, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env={"PATH": TOOL_PATH},
                                start_new_session=True)

    def start_worker(self, pod):
        with open(pod.log_path, "a") as out:
            pod.main = self.start(pod, self.job.worker.command, self.job.worker_env(), out)

    def wait_ready(self, pods, timeout):
        """The readiness probe: tcpSocket 2222, from the bridge's namespace."""
        deadline = time.time() + timeout
        pending = list(pods)
        while pending:
            pending = [p for p in pending if not tcp_open(self.bridge_ns, p.ip, 2222)]
            for p in pending:
                if p.main.poll() is not None:
                    raise SimError("worker %s exited with status %d before it was ready:\n%s" %
                                   (p.name, p.main.returncode, tail(p.log_path)))
            if pending and time.time() > deadline:
                raise SimError("workers not ready after %d s: %s\n%s" % (
                    timeout, ", ".join(p.name for p in pending), tail(pending[0].log_path)))
            if pending:
                time.sleep(0.1)

    def pod_processes(self, pod, with_holder=False):
        ino = os.stat("/run/netns/" + pod.netns).st_ino
        want, found = "net:[%d]" % ino, []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or (int(entry) == pod.holder.pid and not with_holder):
                continue
            try:
                if os.readlink("/proc/%s/ns/net" % entry) == want:
                    found.append(int(entry))
            except OSError:
                pass
        return found

    def kill_pod(self, pod, with_holder=False):
        """kill -9 every process of the pod (its containers; the sandbox too if asked)."""
        killed = set()
        for _ in range(50):
            pids = self.pod_processes(pod, with_holder)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        for proc in (pod.main, pod.holder if with_holder else None):
            if proc is not None:
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        return killed

    def run_launcher(self, kill, workers_late=0):
        """Runs the launcher container to its end; kill = (worker index, checkpoints) or None;
        workers_late > 0: the workers' containers start that many seconds after it."""
        launcher = self.pods[0]
        env = self.job.launcher_env()
        log("launcher %s runs %s in %s" % (launcher.name, " ".join(
            shlex.quote(a) for a in self.job.launcher.command), self.job.launcher.working_dir))
        log("launcher environment: " + " ".join("%s=%s" % (k, shlex.quote(v))
                                                for k, v in env.items()))
        sys.stdout.flush()
        launcher.main = self.start(launcher, self.job.launcher.command, env, sys.stdout)
        deadline = time.time() + self.args.timeout
        workers_at = time.time() + workers_late if workers_late > 0 else None
        while launcher.main.poll() is None:
            if workers_at is not None and time.time() >= workers_at:
                for w in self.pods[1:]:
                    self.start_worker(w)
                log("workers' sshd started %g s after the launcher" % workers_late)
                workers_at = None
            if kill is not None and self.checkpoint_round() >= kill[1]:
                victim = self.pods[1 + kill[0]]
                log("killing worker pod %s: checkpoint_dir holds the checkpoint of round %d" %
                    (victim.name, self.checkpoint_round()))
                log("kill -9 of its %d processes" % len(self.kill_pod(victim)))
                kill = None
            if time.time() > deadline:
                log("the launcher ran past --timeout %d s: killed" % self.args.timeout)
                self.kill_pod(launcher)
                break
            time.sleep(0.05)
        code = launcher.main.wait()
        code = code if code >= 0 else 128 - code
        if kill is not None:
            log("the launcher ended before the checkpoint of round %d: nothing was killed" %
                kill[1])
        log("launcher exited with status %d" % code)
        return code

    def checkpoint_dir(self):
        """The host folder of the launcher command's checkpoint_dir= (None if absent)."""
        value = None
        for a in self.job.launcher.command:
            if a.startswith("checkpoint_dir="):
                value = a[len("checkpoint_dir="):]
        if value is None:
            return None
        path = os.path.normpath(os.path.join(self.job.launcher.working_dir, value))
        best = None
        for volume, mount_path, _ in self.job.launcher.mounts:
            mp = mount_path.rstrip("/") or "/"
            if (path == mp or path.startswith(mp + "/")) and "persistentVolumeClaim" in volume:
                if best is None or len(mp) > len(best[0]):
                    best = (mp, self.claims[volume["persistentVolumeClaim"]["claimName"]])
        if best is None:
            raise SimError("checkpoint_dir=%s is on no claim of the launcher" % value)
        return os.path.join(best[1], os.path.relpath(path, best[0]))

    def checkpoint_round(self):
        """The newest round in checkpoint_dir (ringboost keeps only the newest file), or 0."""
        rounds = [0]
        try:
            for name in os.listdir(self.ckpt_dir):
                m = re.fullmatch(r"checkpoint-(\d{6})\.model", name)
                if m:
                    rounds.append(int(m.group(1)))
        except OSError:
            pass
        return max(rounds)

    # -- the whole job ------------------------------------------------------------------------
    def run_job(self):
        args, workers = self.args, self.pods[1:]
        self.ckpt_dir = self.checkpoint_dir()
        kill = None
        if args.kill_worker is not None:
            if not 0 <= args.kill_worker < len(workers):
                raise SimError("--kill-worker %d: the job has %d workers" % (args.kill_worker,
                                                                            len(workers)))
            if self.ckpt_dir is None:
                raise SimError("--kill-after-checkpoints needs checkpoint_dir= in the launcher "
                               "command")
            kill = (args.kill_worker, args.kill_after_checkpoints)
        if args.workers_late > 0:  # launcherCreationPolicy AtStartup with slow workers
            log("the launcher starts first; the workers' sshd %g s later" % args.workers_late)
            code = self.run_launcher(kill, args.workers_late)
        else:  # WaitForWorkersReady
            for w in workers:
                self.start_worker(w)
            self.wait_ready(workers, 30)
            log("%d workers ready (sshd on port 2222)" % len(workers))
            code = self.run_launcher(kill)
        return self.maybe_rerun(code)

    def maybe_rerun(self, code):
        if code == 0 or not self.args.rerun:
            return code
        workers = self.pods[1:]
        for w in workers:  # restartPolicy OnFailure: the kubelet restarts failed containers
            if w.main is None or w.main.poll() is not None:
                if self.job.worker.restart_policy == "Never":
                    log("worker pod %s failed and its restartPolicy is Never: the MPIJob "
                        "fails" % w.name)
                    return code
                log("restarting the container of worker pod %s (restartPolicy %s)" %
                    (w.name, self.job.worker.restart_policy))
                self.start_worker(w)
        self.wait_ready(workers, 30)
        log("rerunning the launcher (restartPolicy %s)" % self.job.launcher.restart_policy)
        return self.run_launcher(None)

    # -- teardown -----------------------------------------------------------------------------
    def teardown(self):
        for pod in self.pods:
            if pod.holder is not None:
                try:
                    self.kill_pod(pod, with_holder=True)
                except OSError:
                    pass
        for name in reversed(self.netns):
            run(["ip", "netns", "del", name], "ip netns del", check=False)
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


def tcp_open(netns, ip, port):
    """Whether ip:port accepts a connection from inside the named network namespace."""
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open("/run/netns/" + netns, os.O_RDONLY)
            if LIBC.setns(fd, CLONE_NEWNET) != 0:
                os._exit(2)
            socket.create_connection((ip, port), timeout=1).close()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def tail(path, lines=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def ensure_user():
    """mpiuser (the image's non-root user), created with useradd when missing: uid 1000 when
    free, home /home/mpiuser (not created on the host: each pod has its own /home)."""
    with open(os.path.join(tempfile.gettempdir(), "ringboost-simulate-mpijob.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            user = pwd.getpwnam(USER)
        except KeyError:
            taken = any(p.pw_uid == 1000 for p in pwd.getpwall())
            argv = ["useradd", "--no-create-home", "--home-dir", HOME, "--shell", "/bin/bash",
                    "--user-group"] + ([] if taken else ["--uid", "1000"]) + [USER]
            run(argv, "useradd")
            user = pwd.getpwnam(USER)
            log("created the user %s (uid %d) for the pods' processes" % (USER, user.pw_uid))
    if user.pw_dir != HOME:
        raise SimError("the user %s exists with home %s; the image's is %s" % (USER, user.pw_dir,
                                                                               HOME))
    return user.pw_uid, user.pw_gid


def preflight():
    if os.geteuid() != 0:
        raise Skip("needs root (network, UTS and mount namespaces, useradd)")
    for tool in ("ip", "nsenter", "unshare", "setpriv", "chroot", "sshd", "ssh", "ssh-keygen",
                 "mpirun", "useradd"):
        if shutil.which(tool, path=TOOL_PATH) is None:
            raise Skip("%s is not installed" % tool)
    p = run(["unshare", "--net", "--uts", "--mount", "true"], "unshare", check=False)
    if p.returncode != 0:
        raise Skip("cannot create namespaces (unshare --net --uts --mount): " + p.stderr.strip())
    if "overlay" not in open("/proc/filesystems").read():
        raise Skip("the kernel has no overlay file system")


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest", help="the MPIJob YAML (ringboost-submit --cluster kubernetes -o)")
    ap.add_argument("--pvc", action="append", default=[], metavar="CLAIM=HOSTDIR",
                    help="the host folder that stands in for a persistentVolumeClaim")
    ap.add_argument("--ringboost", required=True, help="the ringboost executable of the image")
    ap.add_argument("--deploy", default=os.path.join(here, "..", "..", "deploy"),
                    help="the folder with the image's sshd_config and ssh_config")
    ap.add_argument("--workers-late", type=float, default=0, metavar="SECONDS",
                    help="start the launcher first and the workers' sshd this much later")
    ap.add_argument("--kill-worker", type=int, metavar="I",
                    help="kill -9 every process of worker pod I (with --kill-after-checkpoints)")
    ap.add_argument("--kill-after-checkpoints", type=int, default=1, metavar="K",
                    help="... once checkpoint_dir holds the checkpoint of round K")
    ap.add_argument("--rerun", action="store_true",
                    help="after a failed launcher, restart failed workers and the launcher")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per launcher run")
    args = ap.parse_args(argv)
    pvc = []
    for item in args.pvc:
        claim, sep, path = item.partition("=")
        if not sep or not os.path.isdir(path):
            ap.error("--pvc %s: expected CLAIM=HOSTDIR with an existing folder" % item)
        pvc.append((claim, os.path.abspath(path)))
    args.pvc = pvc
    args.ringboost = os.path.abspath(args.ringboost)
    args.deploy = os.path.abspath(args.deploy)
    if not os.access(args.ringboost, os.X_OK):
        ap.error("--ringboost %s: not an executable" % args.ringboost)
    return args


def on_signal(signum, _frame):
    raise Interrupted("signal %d" % signum)


def main(argv):
    args = parse_args(argv)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)
    sim = None
    try:
        job = Job(args.manifest)
        preflight()
        sim = Simulation(job, args)
        sim.setup()
        return sim.run_job()
    except Skip as e:
        log("skipped: " + str(e))
        return SKIP
    except SimError as e:
        log("error: " + str(e))
        return 2
    except Interrupted as e:
        log("interrupted by " + str(e) + "; tearing down")
        return 130
    finally:
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        if sim is not None:
            if sim.pods and any(p.main is not None for p in sim.pods[1:]):
                for p in sim.pods[1:]:
                    text = tail(p.log_path, 8)
                    if text:
                        log("%s log (tail):\n%s" % (p.name, text.rstrip()))
            sim.teardown()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
