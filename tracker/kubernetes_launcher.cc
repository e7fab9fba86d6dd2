// The kubernetes launcher: writes `<jobname>-mpijob.yaml` in the current directory, a Kubeflow
// MPI Operator (kubeflow.org/v2beta1) MPIJob, and starts nothing: the user applies it with
// kubectl. In the cluster there is no ringboost tracker: the launcher pod runs
//   mpirun -n N --hostfile /etc/mpi/hostfile [-x K=V for --env] COMMAND
// over N worker pods running sshd (the operator writes the hostfile and the ssh keys), and the
// workers use the mpi communicator, ranks from Open MPI. So the tracker variables of the
// WorkerSpecs are not written; --env is. The image is $RINGBOOST_IMAGE or ringboost:latest.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "submit.h"

namespace ringboost::submit {
namespace {

// A YAML double-quoted scalar (JSON string syntax, which YAML accepts).
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// --worker-memory in dmlc's spelling ("1g", "512m", "2G") as a Kubernetes quantity ("1Gi");
// a quantity already in Kubernetes spelling ("2Gi", "1500M", "1073741824") passes unchanged.
Status MemoryQuantity(const std::string& memory, std::string* out) {
  std::size_t digits = 0;
  while (digits < memory.size() && std::isdigit(static_cast<unsigned char>(memory[digits]))) {
    ++digits;
  }
  const std::string number = memory.substr(0, digits), unit = memory.substr(digits);
  static const char* const kKubernetesUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "K", "M", "G", "T"};
  for (const char* known : kKubernetesUnits) {
    if (!number.empty() && unit == known) {
      *out = memory;
      return Status::OK();
    }
  }
  const std::string lower = [&] {
    std::string s;
    for (char c : unit) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }();
  for (const char* dmlc : {"k", "m", "g", "t"}) {
    if (!number.empty() && (lower == dmlc || lower == std::string(dmlc) + "b")) {
      *out = number + static_cast<char>(std::toupper(dmlc[0])) + "i";
      return Status::OK();
    }
  }
  return Status::Fail("--worker-memory " + memory +
                      ": expected a size such as 512m, 1g or 2Gi (a number and k, m, g or t)");
}

// Kubernetes names are DNS-1123 labels: lower-case letters, digits and '-', at most 63, the
// first and last alphanumeric; 50 leaves room for the "-worker-N" the operator appends.
Status CheckJobName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 50 && name.front() != '-' && name.back() != '-';
  for (char c : name)
    ok = ok && (std::islower(static_cast<unsigned char>(c)) ||
                std::isdigit(static_cast<unsigned char>(c)) || c == '-');
  if (ok) return Status::OK();
  return Status::Fail("--jobname " + name +
                      ": a Kubernetes name must be lower-case letters, digits and '-', at most 50 "
                      "characters, starting and ending with a letter or digit");
}

std::string ImageName() {
  const char* image = std::getenv("RINGBOOST_IMAGE");
  return image != nullptr && *image != '\0' ? image : "ringboost:latest";
}

void WriteList(std::ostream& out, const std::string& indent,
               const std::vector<std::string>& items) {
  for (const std::string& item : items) out << indent << "- " << Quoted(item) << "\n";
}

// The whole MPIJob; `memory` is already a Kubernetes quantity.
std::string MpiJobYaml(const SubmitOptions& options, const std::string& memory) {
  const std::string n = std::to_string(options.num_workers);
  std::vector<std::string> args = {"-n", n, "--hostfile", "/etc/mpi/hostfile"};
  for (const auto& [key, value] : options.env) {
    args.push_back("-x");
    args.push_back(key + "=" + value);
  }
  args.insert(args.end(), options.command.begin(), options.command.end());
  std::ostringstream out;
  out << "# Written by ringboost-submit --cluster kubernetes; apply with kubectl apply -f.\n"
      << "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata:\n  name: " << options.jobname
      << "\nspec:\n  slotsPerWorker: 1\n  runPolicy:\n"
      << "    cleanPodPolicy: Running\n  sshAuthMountPath: /root/.ssh\n"
      << "  mpiImplementation: OpenMPI\n  mpiReplicaSpecs:\n"
      << "    Launcher:\n      replicas: 1\n      template:\n        spec:\n"
      << "          containers:\n          - name: launcher\n            image: "
      << Quoted(ImageName()) << "\n            env:\n"
      << "            - name: OMPI_ALLOW_RUN_AS_ROOT\n              value: \"1\"\n"
      << "            - name: OMPI_ALLOW_RUN_AS_ROOT_CONFIRM\n              value: \"1\"\n"
      << "            command:\n";
  WriteList(out, "            ", {"mpirun"});
  out << "            args:\n";
  WriteList(out, "            ", args);
  out << "    Worker:\n      replicas: " << n << "\n      template:\n        spec:\n"
      << "          containers:\n          - name: worker\n            image: "
      << Quoted(ImageName()) << "\n            command:\n";
  WriteList(out, "            ", {"/usr/sbin/sshd", "-De"});
  out << "            resources:\n";
  for (const char* kind : {"requests", "limits"}) {
    out << "              " << kind
        << ":\n                cpu: " << Quoted(std::to_string(options.worker_cores))
        << "\n                memory: " << Quoted(memory) << "\n";
  }
  return out.str();
}

class KubernetesLauncher : public Launcher {
 public:
  KubernetesLauncher(const SubmitOptions& options, JobLog* log) : options_(options), log_(log) {}

  Status Run(const std::vector<WorkerSpec>& /*workers*/,
             const std::atomic<bool>& /*stop*/) override {
    if (options_.command.empty()) return Status::Fail("no worker command given");
    if (options_.worker_cores < 1) {
      return Status::Fail("--worker-cores " + std::to_string(options_.worker_cores) +
                          ": must be at least 1");
    }
    Status s = CheckJobName(options_.jobname);
    if (!s.ok()) return s;
    std::string memory;
    s = MemoryQuantity(options_.worker_memory, &memory);
    if (!s.ok()) return s;
    const std::string path = options_.jobname + "-mpijob.yaml";
    std::ofstream out(path, std::ios::trunc);
    out << MpiJobYaml(options_, memory);
    out.close();
    if (!out) return ErrnoStatus("write", path);
    log_->Line("wrote the MPIJob " + path + " (" + std::to_string(options_.num_workers) +
               " workers, image " + ImageName() + "); nothing was started: apply it with " +
               "kubectl apply -f " + path);
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
