// The kubernetes launcher: writes one Kubeflow MPI Operator (kubeflow.org/v2beta1) MPIJob and
// starts nothing; the user applies it with kubectl. In the cluster there is no ringboost tracker:
// the operator starts N worker pods running sshd (port 2222, as the non-root user mpiuser of the
// image deploy/Dockerfile builds), writes /etc/mpi/hostfile and an ssh key pair, and once the
// workers are ready (launcherCreationPolicy WaitForWorkersReady) a launcher pod runs
//   mpirun --hostfile /etc/mpi/hostfile -np N*S [-x K=V for each --env] COMMAND
// whose ranks use the mpi communicator (OMPI_COMM_WORLD_RANK/SIZE). So the tracker variables of
// the WorkerSpecs are not written; --env is. Every value the API server or the operator would
// refuse is refused here first, naming the flag, and nothing is written then.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "common/file_io.h"
#include "submit.h"
#include "yaml.h"

namespace ringboost::submit {
namespace {

// The image's user (deploy/Dockerfile) and where the operator mounts its files.
constexpr int kUserId = 1000;
constexpr const char* kHome = "/home/mpiuser";
constexpr const char* kHostfile = "/etc/mpi/hostfile";
constexpr int kSshPort = 2222;
// Launcher restarts (the Job's backoffLimit) before the MPIJob fails; with a --volume each
// restart resumes from the last checkpoint. 6 is the Kubernetes Job default.
constexpr int kBackoffLimit = 6;
constexpr long long kMaxInt32 = 2147483647;

// ---- checks: what the API server or the operator would refuse --------------------------------

bool IsLowerAlnum(char c) {
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
}

// DNS-1123 label (namespaces, pod host names): [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63.
bool IsDns1123Label(const std::string& s) {
  if (s.empty() || s.size() > 63 || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// DNS-1123 subdomain (claim names): labels joined by '.', at most 253 characters.
bool IsDns1123Subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  for (std::size_t dot; (dot = s.find('.', start)) != std::string::npos; start = dot + 1) {
    if (!IsDns1123Label(s.substr(start, dot - start))) return false;
  }
  return IsDns1123Label(s.substr(start));
}

// The MPIJob's name is also its headless Service's name (a DNS-1035 label: it starts with a
// letter), and the operator refuses a job whose last worker pod, <name>-worker-<N-1>, would
// not be a DNS label (63 characters at most).
Status CheckJobName(const std::string& name, int num_workers) {
  if (!IsDns1123Label(name) || !std::islower(static_cast<unsigned char>(name.front()))) {
    return Status::Fail("--jobname " + name +
                        ": a Kubernetes job name must be lower-case letters, digits and '-', "
                        "starting with a letter and ending with a letter or digit");
  }
  const std::string last = name + "-worker-" + std::to_string(num_workers - 1);
  if (last.size() > 63) {
    const std::size_t room = 63 - (last.size() - name.size());
    return Status::Fail("--jobname " + name + ": the last worker pod's name " + last + " has " +
                        std::to_string(last.size()) + " characters; Kubernetes allows 63 (with " +
                        std::to_string(num_workers) + " workers the name may have at most " +
                        std::to_string(room) + ")");
  }
  return Status::OK();
}

// --worker-memory in dmlc's spelling ("1g", "512m", "2gb") as a Kubernetes quantity ("1Gi");
// a quantity already in Kubernetes spelling ("2Gi", "1500M", "1073741824") passes unchanged.
// "K" is neither (Kubernetes spells a decimal kilo "k", a binary one "Ki"): refused.
Status MemoryQuantity(const std::string& memory, std::string* out) {
  std::size_t digits = 0;
  while (digits < memory.size() && std::isdigit(static_cast<unsigned char>(memory[digits]))) {
    ++digits;
  }
  const std::string number = memory.substr(0, digits), unit = memory.substr(digits);
  const bool positive = number.find_first_not_of('0') != std::string::npos;
  static const char* const kKubernetesUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "M", "G", "T"};
  for (const char* known : kKubernetesUnits) {
    if (positive && unit == known) {
      *out = memory;
      return Status::OK();
    }
  }
  std::string lower;
  for (char c : unit) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* dmlc : {"k", "m", "g", "t"}) {
    if (positive && unit != "K" && (lower == dmlc || lower == std::string(dmlc) + "b")) {
      *out = number + static_cast<char>(std::toupper(dmlc[0])) + "i";
      return Status::OK();
    }
  }
  return Status::Fail("--worker-memory " + memory +
                      ": expected a size above 0 such as 512m, 1g or 2Gi: a whole number and "
                      "one of k, m, g, t, kb, mb, gb, tb (dmlc's, binary: 1g is 1Gi), Ki, Mi, "
                      "Gi, Ti (binary) or M, G, T (decimal); not K");
}

// Paths the image or the operator provide, which the volume must neither hide nor sit inside.
const char* const kReservedPaths[] = {"/etc/mpi", "/home/mpiuser/.ssh",
                                      "/home/mpiuser/.sshd_config", "/usr/local/bin/ringboost"};
// The container's system folders, likewise: a volume there would hide the programs, libraries
// and kernel interfaces the pods run on (or be hidden by the runtime's own /proc, /sys, /dev).
const char* const kSystemPaths[] = {"/bin",   "/boot",  "/dev",    "/etc",     "/lib",
                                    "/lib32", "/lib64", "/libx32", "/proc",    "/run",
                                    "/sbin",  "/sys",   "/usr",    "/var/lib", "/var/run"};

// True when `path` is `reserved`, above it, or inside it.
bool Collides(const std::string& path, const std::string& reserved) {
  return path == reserved || reserved.rfind(path + "/", 0) == 0 ||
         path.rfind(reserved + "/", 0) == 0;
}

Status CheckMountPath(const std::string& flag, const std::string& path) {
  if (path.empty() || path.front() != '/') {
    return Status::Fail(flag + ": the mount path '" + path +
                        "' must be absolute (start with /), e.g. data:/data");
  }
  if (path.find(':') != std::string::npos) {
    return Status::Fail(flag + ": the mount path '" + path + "' must not contain ':'");
  }
  std::istringstream parts(path.substr(1));
  for (std::string part; std::getline(parts, part, '/');) {
    if (part.empty() || part == "." || part == "..") {
      return Status::Fail(flag + ": the mount path '" + path +
                          "' must be a plain absolute path (no empty, '.' or '..' parts)");
    }
  }
  for (const char* reserved : kReservedPaths) {
    if (Collides(path, reserved)) {
      return Status::Fail(flag + ": the mount path '" + path + "' collides with " + reserved +
                          " (the operator's hostfile and ssh keys, the sshd config and the "
                          "ringboost binary live there); mount the volume elsewhere, e.g. /data");
    }
  }
  for (const char* system : kSystemPaths) {
    if (Collides(path, system)) {
      return Status::Fail(flag + ": the mount path '" + path + "' collides with " + system +
                          ", a system folder of the container; mount the volume elsewhere, "
                          "e.g. /data");
    }
  }
  return Status::OK();
}

// --volume CLAIM:PATH; empty stays empty. A trailing '/' of PATH is dropped.
Status ParseVolume(const std::string& volume, std::string* claim, std::string* path) {
  if (volume.empty()) return Status::OK();
  const std::string flag = "--volume " + volume;
  const std::size_t colon = volume.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == volume.size()) {
    return Status::Fail(flag +
                        ": expected CLAIM:PATH, a PersistentVolumeClaim's name and an absolute "
                        "mount path, e.g. ringboost-data:/data");
  }
  *claim = volume.substr(0, colon);
  *path = volume.substr(colon + 1);
  while (path->size() > 1 && path->back() == '/') path->pop_back();
  if (!IsDns1123Subdomain(*claim)) {
    return Status::Fail(flag + ": the claim name '" + *claim +
                        "' must be lower-case letters, digits, '-' and '.', starting and ending "
                        "with a letter or digit, at most 253 characters");
  }
  if (*path == "/") {
    return Status::Fail(flag + ": the mount path must not be /; use e.g. " + *claim + ":/data");
  }
  return CheckMountPath(flag, *path);
}

// The image: --image, else $RINGBOOST_IMAGE.
Status ResolveImage(const std::string& flag_value, std::string* image) {
  const char* env = std::getenv("RINGBOOST_IMAGE");
  *image = !flag_value.empty() ? flag_value : env != nullptr ? env : "";
  if (image->empty()) {
    return Status::Fail(
        "--image: no container image given: pass --image REGISTRY/ringboost:TAG or set "
        "RINGBOOST_IMAGE (deploy/Dockerfile builds one)");
  }
  for (char c : *image) {
    if (c <= ' ' || c > '~') {  // also every byte of a non-ASCII character
      return Status::Fail("--image '" + *image +
                          "': an image reference has no spaces, control characters or "
                          "non-ASCII letters");
    }
  }
  return Status::OK();
}

Status CheckCounts(const SubmitOptions& o) {
  if (o.num_workers < 1) {
    return Status::Fail("--num-workers " + std::to_string(o.num_workers) + ": must be at least 1");
  }
  if (o.slots_per_worker < 1) {
    return Status::Fail("--slots-per-worker " + std::to_string(o.slots_per_worker) +
                        ": must be at least 1 (MPI ranks per worker pod)");
  }
  if (1LL * o.num_workers * o.slots_per_worker > kMaxInt32) {
    return Status::Fail("--num-workers x --slots-per-worker: more ranks than 2^31-1");
  }
  if (o.gpus_per_worker < 0) {
    return Status::Fail("--gpus-per-worker " + std::to_string(o.gpus_per_worker) +
                        ": must be 0 or more");
  }
  if (o.worker_cores < 1) {
    return Status::Fail("--worker-cores " + std::to_string(o.worker_cores) +
                        ": must be at least 1");
  }
  for (const auto& [key, value] : o.env) {
    bool ok = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0]));
    for (char c : key) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok) {
      return Status::Fail("--env " + key + "=" + value +
                          ": the name must be letters, digits and '_', not starting with a digit");
    }
  }
  return Status::OK();
}

// Every string of the user's that the manifest quotes is UTF-8 (yaml.h: Quoted); the others
// (names, the image) are ASCII by their own checks.
Status CheckUtf8(const SubmitOptions& o) {
  for (std::size_t i = 0; i < o.command.size(); ++i) {
    if (!IsUtf8(o.command[i])) {
      return Status::Fail("the worker command: word " + std::to_string(i + 1) +
                          " is not valid UTF-8 (a manifest is UTF-8 text)");
    }
  }
  for (const auto& [key, value] : o.env) {
    if (!IsUtf8(value)) {
      return Status::Fail("--env " + key +
                          "=...: the value is not valid UTF-8 (a manifest is "
                          "UTF-8 text)");
    }
  }
  if (!IsUtf8(o.volume)) {
    return Status::Fail("--volume: the value is not valid UTF-8 (a manifest is UTF-8 text)");
  }
  return Status::OK();
}

// The checked and resolved values the manifest is made of.
struct JobValues {
  std::string image, memory, claim, mount_path, output;
};

Status CheckOptions(const SubmitOptions& o, JobValues* v) {
  if (o.command.empty()) return Status::Fail("no worker command given");
  Status s = CheckCounts(o);
  if (s.ok()) s = CheckUtf8(o);
  if (s.ok()) s = CheckJobName(o.jobname, o.num_workers);
  if (s.ok() && !IsDns1123Label(o.k8s_namespace)) {
    s = Status::Fail("--namespace " + o.k8s_namespace +
                     ": a namespace must be lower-case letters, digits and '-', starting and "
                     "ending with a letter or digit, at most 63 characters");
  }
  if (s.ok()) s = ResolveImage(o.image, &v->image);
  if (s.ok()) s = MemoryQuantity(o.worker_memory, &v->memory);
  if (s.ok()) s = ParseVolume(o.volume, &v->claim, &v->mount_path);
  v->output = o.output.empty() ? o.jobname + "-mpijob.yaml" : o.output;
  return s;
}

// ---- the manifest ----------------------------------------------------------------------------

// The ringboost command, with checkpoint_dir on the volume so that a restarted launcher resumes
// (only for `ringboost [train] CONF ...`, and only when the user set no checkpoint_dir).
std::vector<std::string> Command(const SubmitOptions& o, const JobValues& v) {
  std::vector<std::string> command = o.command;
  const std::string& program = command.front();
  const std::string base = program.substr(program.rfind('/') + 1);
  bool wanted = !v.mount_path.empty() && base == "ringboost" && command.size() >= 2 &&
                command[1] != "predict" && command[1] != "dump" && command[1] != "help" &&
                command[1].front() != '-';
  for (const std::string& arg : command) wanted = wanted && arg.rfind("checkpoint_dir=", 0) != 0;
  if (wanted)
    command.push_back("checkpoint_dir=" + v.mount_path + "/" + o.jobname + "-checkpoints");
  return command;
}

// The mpirun arguments: nothing beyond the hostfile, the rank count and --env. The operator's
// OMPI_MCA_* variables already set the ssh retries and slots; the explicit hostfile keeps
// working under Open MPI 5, which ignores OMPI_MCA_orte_default_hostfile.
std::vector<std::string> MpirunArgs(const SubmitOptions& o, const JobValues& v) {
  std::vector<std::string> args = {
      "--hostfile", kHostfile, "-np",
      std::to_string(static_cast<long long>(o.num_workers) * o.slots_per_worker)};
  bool threads_set = false;
  for (const auto& [key, value] : o.env) {
    args.push_back("-x");
    args.push_back(key + "=" + value);
    threads_set = threads_set || key == "OMP_NUM_THREADS";
  }
  // Each rank's share of its pod's cores (ringboost's nthread=0 follows OMP_NUM_THREADS): by
  // default a rank would start a thread per core it sees, slots of them per pod, and OpenMP's
  // spinning threads would then crowd each other out (measured: 4 ranks on 2 cores ran rounds
  // many times slower).
  if (!threads_set) {
    args.push_back("-x");
    args.push_back("OMP_NUM_THREADS=" +
                   std::to_string(std::max(1, o.worker_cores / o.slots_per_worker)));
  }
  for (const std::string& arg : Command(o, v)) args.push_back(arg);
  return args;
}

// One pod template: the container `container` plus the volume and the pod's user.
Yaml PodTemplate(Yaml container, const JobValues& v) {
  Yaml security =
      Yaml::Map().Add("runAsUser", Yaml::Int(kUserId)).Add("runAsGroup", Yaml::Int(kUserId));
  Yaml spec = Yaml::Map();
  if (!v.claim.empty()) {
    // The volume's files become writable by mpiuser where the volume supports ownership.
    security.Add("fsGroup", Yaml::Int(kUserId))
        .Add("fsGroupChangePolicy", Yaml::Plain("OnRootMismatch"));
    container.Add("workingDir", Yaml::Str(v.mount_path))
        .Add("volumeMounts", Yaml::List().Push(Yaml::Map()
                                                   .Add("name", Yaml::Plain("data"))
                                                   .Add("mountPath", Yaml::Str(v.mount_path))));
  }
  spec.Add("securityContext", std::move(security))
      .Add("containers", Yaml::List().Push(std::move(container)));
  if (!v.claim.empty()) {
    spec.Add("volumes",
             Yaml::List().Push(Yaml::Map()
                                   .Add("name", Yaml::Plain("data"))
                                   .Add("persistentVolumeClaim",
                                        Yaml::Map().Add("claimName", Yaml::Str(v.claim)))));
  }
  return Yaml::Map().Add("spec", std::move(spec));
}

Yaml WorkerContainer(const SubmitOptions& o, const JobValues& v) {
  Yaml amounts = Yaml::Map()
                     .Add("cpu", Yaml::Str(std::to_string(o.worker_cores)))
                     .Add("memory", Yaml::Str(v.memory));
  if (o.gpus_per_worker > 0) {
    amounts.Add("nvidia.com/gpu", Yaml::Str(std::to_string(o.gpus_per_worker)));
  }
  const std::string home = kHome;
  return Yaml::Map()
      .Add("name", Yaml::Plain("worker"))
      .Add("image", Yaml::Str(v.image))
      .Add("command", Yaml::StrList({"/usr/sbin/sshd", "-De", "-f", home + "/.sshd_config"}))
      .Add("ports", Yaml::List().Push(Yaml::Map()
                                          .Add("containerPort", Yaml::Int(kSshPort))
                                          .Add("name", Yaml::Plain("ssh"))))
      .Add("readinessProbe", Yaml::Map()
                                 .Add("tcpSocket", Yaml::Map().Add("port", Yaml::Int(kSshPort)))
                                 .Add("initialDelaySeconds", Yaml::Int(1))
                                 .Add("periodSeconds", Yaml::Int(2)))
      .Add("resources", Yaml::Map().Add("requests", amounts).Add("limits", amounts));
}

Yaml ReplicaSpec(int replicas, Yaml template_) {
  return Yaml::Map()
      .Add("replicas", Yaml::Int(replicas))
      .Add("restartPolicy", Yaml::Plain("OnFailure"))
      .Add("template", std::move(template_));
}

std::string MpiJobYaml(const SubmitOptions& o, const JobValues& v) {
  Yaml launcher = Yaml::Map()
                      .Add("name", Yaml::Plain("launcher"))
                      .Add("image", Yaml::Str(v.image))
                      .Add("command", Yaml::List().Push(Yaml::Plain("mpirun")))
                      .Add("args", Yaml::StrList(MpirunArgs(o, v)));
  Yaml spec = Yaml::Map()
                  .Add("slotsPerWorker", Yaml::Int(o.slots_per_worker))
                  .Add("mpiImplementation", Yaml::Plain("OpenMPI"))
                  .Add("launcherCreationPolicy", Yaml::Plain("WaitForWorkersReady"))
                  .Add("sshAuthMountPath", Yaml::Str(std::string(kHome) + "/.ssh"))
                  .Add("runPolicy", Yaml::Map()
                                        .Add("cleanPodPolicy", Yaml::Plain("Running"))
                                        .Add("backoffLimit", Yaml::Int(kBackoffLimit)))
                  .Add("mpiReplicaSpecs",
                       Yaml::Map()
                           .Add("Launcher", ReplicaSpec(1, PodTemplate(std::move(launcher), v)))
                           .Add("Worker",
                                ReplicaSpec(o.num_workers, PodTemplate(WorkerContainer(o, v), v))));
  Yaml job = Yaml::Map()
                 .Add("apiVersion", Yaml::Plain("kubeflow.org/v2beta1"))
                 .Add("kind", Yaml::Plain("MPIJob"))
                 .Add("metadata", Yaml::Map()
                                      .Add("name", Yaml::Str(o.jobname))
                                      .Add("namespace", Yaml::Str(o.k8s_namespace)))
                 .Add("spec", std::move(spec));
  return "# Written by ringboost-submit --cluster kubernetes; apply with kubectl apply -f.\n" +
         job.Render(0);
}

// Writes `text` to `path` whole or not at all (common/file_io.h: a fresh temporary file beside
// the target, then rename; a link is followed, a FIFO or device written in place); "-" is stdout.
Status WriteWhole(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return std::cout ? Status::OK() : Status::Fail("-o -: cannot write to stdout");
  }
  try {
    WriteFileAtomic(path, text);
  } catch (const Error& e) {
    return Status::Fail(std::string("-o ") + path + ": " + e.what());
  }
  return Status::OK();
}

class KubernetesLauncher : public Launcher {
 public:
  KubernetesLauncher(const SubmitOptions& options, JobLog* log) : options_(options), log_(log) {}

  Status Run(const std::vector<WorkerSpec>& /*workers*/,
             const std::atomic<bool>& /*stop*/) override {
    JobValues values;
    std::vector<std::string> warnings;
    Status s = CheckKubernetesCommand(options_, &warnings);
    if (s.ok()) s = CheckOptions(options_, &values);
    if (s.ok()) s = WriteWhole(values.output, MpiJobYaml(options_, values));
    if (!s.ok()) return s;
    for (const std::string& w : warnings) log_->Line("ringboost-submit: warning: " + w);
    const std::string where = values.output == "-" ? "the MPIJob to stdout" : values.output;
    log_->Line("ringboost-submit: wrote " + where + " (MPIJob " + options_.jobname + ", " +
               std::to_string(options_.num_workers) + " workers x " +
               std::to_string(options_.slots_per_worker) + " slots, image " + values.image +
               "); nothing was started: kubectl apply -f " +
               (values.output == "-" ? std::string("FILE") : values.output));
    return Status::OK();
  }

 private:
  SubmitOptions options_;
  JobLog* log_;
};

}  // namespace

std::unique_ptr<Launcher> MakeKubernetesLauncher(const SubmitOptions& options, JobLog* log,
                                                 RankOf /*rank_of*/) {
  return std::make_unique<KubernetesLauncher>(options, log);
}

}  // namespace ringboost::submit
