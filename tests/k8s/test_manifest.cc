// The MPIJob manifests of `ringboost-submit --cluster kubernetes`, checked as a cluster would:
// tests/k8s/validate_mpijob.py validates them against the MPI Operator's CRD schema
// (../shared/k8s/kubeflow.org_mpijobs.yaml, strictly: unknown fields are errors) and the
// operator's own rules. ringboost-submit runs as a real process. The validator tests skip where
// the CRD or /usr/bin/python3's jsonschema and yaml modules are missing; the flag tests do not.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "helpers.h"
#include "process.h"

namespace ringboost::submit {
namespace {

namespace fs = std::filesystem;
using test::ReadFile;
using test::TempDir;
using test::WriteFile;

const std::string kSharedK8s = RINGBOOST_SOURCE_DIR "/../shared/k8s";
const std::string kCrd = kSharedK8s + "/kubeflow.org_mpijobs.yaml";
const std::string kValidator = RINGBOOST_SOURCE_DIR "/tests/k8s/validate_mpijob.py";

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr, line by line
};

Result RunProgram(const std::vector<std::string>& argv, const EnvList& env = {}) {
  Result result;
  std::mutex mutex;
  std::unique_ptr<ChildProcess> child;
  Status s = ChildProcess::Start(
      argv, env,
      [&](const std::string& line) {
        std::lock_guard<std::mutex> lock(mutex);
        result.output += line + "\n";
      },
      &child);
  if (!s.ok()) return {-1, s.message()};
  result.code = child->Wait();
  child.reset();  // joins the reader: all output is in
  return result;
}

// ringboost-submit --cluster kubernetes FLAGS ringboost train train.conf, image from --image.
Result Submit(std::vector<std::string> flags) {
  std::vector<std::string> argv = {"env",       "-u",        "RINGBOOST_IMAGE", RINGBOOST_SUBMIT,
                                   "--cluster", "kubernetes"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  for (const char* arg : {"ringboost", "train", "train.conf"}) argv.push_back(arg);
  return RunProgram(argv);
}

Result Validate(const std::vector<std::string>& files) {
  std::vector<std::string> argv = {"/usr/bin/python3", kValidator, "--crd", kCrd};
  argv.insert(argv.end(), files.begin(), files.end());
  return RunProgram(argv);
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The validator tests need the CRD and python3 with jsonschema and yaml.
class K8sValidator : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kCrd)) GTEST_SKIP() << kCrd << " not found next to the source tree";
    if (RunProgram({"/usr/bin/python3", "-c", "import jsonschema, yaml"}).code != 0) {
      GTEST_SKIP() << "/usr/bin/python3 lacks jsonschema or yaml "
                      "(apt-get install python3-jsonschema python3-yaml)";
    }
  }
  TempDir dir_;
};

TEST_F(K8sValidator, ManifestsForManyFlagsPassIt) {
  const std::vector<std::vector<std::string>> cases = {
      {"-n", "1"},
      {"-n", "2", "--slots-per-worker", "2"},
      {"-n", "3", "--slots-per-worker", "3", "--gpus-per-worker", "1"},
      {"-n", "8", "--slots-per-worker", "4", "--gpus-per-worker", "2"},
      {"-n", "4", "--gpus-per-worker", "0", "--volume", "ringboost-data:/data"},
      {"-n", "2", "--namespace", "ml-team", "--volume", "shared.claim-1:/mnt/work/"},
      {"-n", "5", "--env", "OMP_NUM_THREADS=4", "--env", "NAME=it's \"quoted\" $HOME: #x"},
      {"-n", "6", "--worker-cores", "16", "--worker-memory", "64g", "--slots-per-worker", "2"},
      {"-n", "7", "--worker-memory", "1500Mi", "--jobname", "j", "--gpus-per-worker", "2"},
      {"-n", "8", "--jobname", std::string(54, 'a'), "--volume", "d:/d", "--namespace", "x"},
  };
  std::vector<std::string> files;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    files.push_back(dir_.File("job" + std::to_string(i) + ".yaml"));
    std::vector<std::string> flags = cases[i];
    for (const char* flag : {"--image", "registry.example/ringboost:1.0", "-o"}) {
      flags.push_back(flag);
    }
    flags.push_back(files.back());
    Result r = Submit(flags);
    ASSERT_EQ(r.code, 0) << r.output;
  }
  Result r = Validate(files);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  // 8 workers x 4 slots: mpirun starts 32 ranks over the operator's hostfile.
  EXPECT_NE(ReadFile(files[3]).find("- \"--hostfile\"\n            - \"/etc/mpi/hostfile\"\n"
                                    "            - \"-np\"\n            - \"32\"\n"),
            std::string::npos);
  EXPECT_NE(ReadFile(files[5]).find("\"checkpoint_dir=/mnt/work/ringboost-checkpoints\""),
            std::string::npos);
}

TEST_F(K8sValidator, OperatorExamplesPassIt) {
  std::vector<std::string> examples = FilesIn(kSharedK8s + "/examples");
  ASSERT_FALSE(examples.empty());
  Result r = Validate(examples);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "");
}

// A broken variant of the valid manifest: `from` replaced by `to`, and the line expected.
struct Broken {
  std::string name, from, to, expected;
};

TEST_F(K8sValidator, BrokenVariantsFailItEachWithItsMessage) {
  const std::string good = dir_.File("good.yaml");
  Result made = Submit({"-n", "2", "--image", "rb:1", "--gpus-per-worker", "1", "--jobname", "demo",
                        "--volume", "data:/data", "-o", good});
  ASSERT_EQ(made.code, 0) << made.output;
  const std::string text = ReadFile(good);
  const std::string launcher = "    Launcher:\n      replicas: 1\n      restartPolicy: OnFailure\n";
  const std::string worker = "    Worker:\n      replicas: 2\n      restartPolicy: OnFailure\n";
  const std::string w = "spec.mpiReplicaSpecs[Worker]";
  const std::vector<Broken> variants = {
      {"two-launchers", "replicas: 1\n", "replicas: 2\n",
       "spec.mpiReplicaSpecs[Launcher].replicas: must be 1 (got 2): one launcher"},
      {"zero-workers", "replicas: 2\n", "replicas: 0\n",
       w + ".replicas: must be at least 1 (got 0)"},
      {"worker-always", worker, "    Worker:\n      replicas: 2\n      restartPolicy: Always\n",
       w + ".restartPolicy: unsupported value \"Always\"; allowed: Never, OnFailure"},
      {"launcher-always", launcher,
       "    Launcher:\n      replicas: 1\n      restartPolicy: Always\n",
       "spec.mpiReplicaSpecs[Launcher].restartPolicy: unsupported value \"Always\"; allowed: "
       "Never, OnFailure"},
      {"unknown-field", "  slotsPerWorker: 1\n", "  slotsPerWorker: 1\n  slotPerWorker: 1\n",
       "spec.slotPerWorker: unknown field \"slotPerWorker\""},
      {"unknown-container-field", "          - name: worker\n",
       "          - name: worker\n            imagePullPolice: Always\n",
       w + ".template.spec.containers[0].imagePullPolice: unknown field \"imagePullPolice\""},
      {"name-too-long", "name: \"demo\"", "name: \"" + std::string(55, 'd') + "\"",
       "metadata.name: the last worker pod would be \"" + std::string(55, 'd') +
           "-worker-1\", 64 characters"},
      {"name-not-dns-1035", "name: \"demo\"", "name: \"1demo\"",
       "metadata.name: \"1demo\" must be a DNS-1035 label"},
      {"slots-zero", "slotsPerWorker: 1\n", "slotsPerWorker: 0\n",
       "spec.slotsPerWorker: must be at least 1 (got 0)"},
      {"mpi-implementation", "mpiImplementation: OpenMPI\n", "mpiImplementation: MVAPICH\n",
       "spec.mpiImplementation: unsupported value \"MVAPICH\"; allowed: OpenMPI, Intel, MPICH"},
      {"clean-pod-policy", "cleanPodPolicy: Running\n", "cleanPodPolicy: Finished\n",
       "spec.runPolicy.cleanPodPolicy: unsupported value \"Finished\"; allowed: None, Running, "
       "All"},
      {"no-launcher", "    Launcher:\n", "    Launchers:\n",
       "spec.mpiReplicaSpecs[Launcher]: required: must have a Launcher replica spec"},
      {"replicas-a-string", "replicas: 2\n", "replicas: \"2\"\n",
       w + ".replicas: must be of type integer (got string)"},
      {"gpu-request-above-limit", "                nvidia.com/gpu: \"1\"\n              limits:",
       "                nvidia.com/gpu: \"2\"\n              limits:",
       w + ".template.spec.containers[0].resources.requests[nvidia.com/gpu]: must equal "
           "limits[nvidia.com/gpu]"},
      {"mount-on-operator-path", "mountPath: \"/data\"\n", "mountPath: \"/etc/mpi\"\n",
       "spec.mpiReplicaSpecs[Launcher].template.spec.containers[0].volumeMounts[0].mountPath: "
       "\"/etc/mpi\" is mounted twice"},
  };
  std::map<std::string, std::string> file_of;
  std::vector<std::string> files;
  for (const Broken& b : variants) {
    const std::size_t at = text.find(b.from);
    ASSERT_NE(at, std::string::npos) << b.name << ": " << b.from << " not in\n" << text;
    std::string broken = text;
    broken.replace(at, b.from.size(), b.to);
    files.push_back(WriteFile(dir_.File(b.name + ".yaml"), broken));
  }
  Result r = Validate(files);
  EXPECT_EQ(r.code, 1) << r.output;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    EXPECT_NE(r.output.find(files[i] + ": " + variants[i].expected), std::string::npos)
        << variants[i].name << ": expected\n  " << variants[i].expected << "\nin\n"
        << r.output;
  }
  EXPECT_EQ(Validate({good}).output, "");  // the variants' base is valid
}

// ---- the flags ringboost-submit refuses, each naming the flag, and nothing written -----------

struct BadFlags {
  std::vector<std::string> flags;
  std::string expected;
};

TEST(K8sSubmitFlags, RefusedWithTheFlagNamedAndNothingWritten) {
  const std::string name54(54, 'a'), name55(55, 'a');
  const std::vector<BadFlags> cases = {
      {{"-n", "10", "--jobname", name55},
       "--jobname " + name55 + ": the last worker pod's name " + name55 +
           "-worker-9 has 64 characters; Kubernetes allows 63 (with 10 workers the name may "
           "have at most 54)"},
      {{"-n", "2", "--jobname", "Demo"}, "--jobname Demo: a Kubernetes job name must be"},
      {{"-n", "2", "--jobname", "1demo"}, "--jobname 1demo: a Kubernetes job name must be"},
      {{"-n", "2", "--namespace", "My_Team"}, "--namespace My_Team: a namespace must be"},
      {{"-n", "2", "--namespace", std::string(64, 'n')},
       "--namespace " + std::string(64, 'n') + ": a namespace must be"},
      {{"-n", "2", "--volume", "data"}, "--volume data: expected CLAIM:PATH"},
      {{"-n", "2", "--volume", "data:"}, "--volume data:: expected CLAIM:PATH"},
      {{"-n", "2", "--volume", "data:work"},
       "--volume data:work: the mount path 'work' must be absolute"},
      {{"-n", "2", "--volume", "data:/a/../b"}, "--volume data:/a/../b: the mount path"},
      {{"-n", "2", "--volume", "Data_1:/data"}, "--volume Data_1:/data: the claim name 'Data_1'"},
      {{"-n", "2", "--volume", "data:/etc"},
       "--volume data:/etc: the mount path '/etc' collides "
       "with /etc/mpi"},
      {{"-n", "2", "--volume", "data:/"}, "--volume data:/: the mount path must not be /"},
      {{"-n", "2", "--volume", "data:/usr/bin"},
       "--volume data:/usr/bin: the mount path '/usr/bin' collides with /usr, a system folder of "
       "the container; mount the volume elsewhere, e.g. /data"},
      {{"-n", "2", "--volume", "data:/proc"},
       "--volume data:/proc: the mount path '/proc' collides with /proc,"},
      {{"-n", "2", "--volume", "data:/var"},
       "--volume data:/var: the mount path '/var' collides with /var/lib,"},
      {{"-n", "2", "--volume", "data:/dev/shm/"},
       "--volume data:/dev/shm/: the mount path '/dev/shm' collides with /dev,"},
      {{"-n", "2", "--volume", "data:/lib64"},
       "--volume data:/lib64: the mount path '/lib64' collides with /lib64,"},
      {{"-n", "2", "--gpus-per-worker", "-1"}, "--gpus-per-worker -1: must be 0 or more"},
      {{"-n", "2", "--slots-per-worker", "0"}, "--slots-per-worker 0: must be at least 1"},
      {{"-n", "2", "--worker-memory", "lots"}, "--worker-memory lots: expected a size"},
      {{"-n", "2", "--worker-memory", "0g"}, "--worker-memory 0g: expected a size above 0"},
      {{"-n", "2", "--worker-memory", "1K"},
       "--worker-memory 1K: expected a size above 0 such as 512m, 1g or 2Gi: a whole number and "
       "one of k, m, g, t, kb, mb, gb, tb (dmlc's, binary: 1g is 1Gi), Ki, Mi, Gi, Ti (binary) "
       "or M, G, T (decimal); not K"},
      {{"-n", "2", "--env", "1X=2"}, "--env 1X=2: the name must be"},
      {{"-n", "2", "--image", "rb 1"}, "--image 'rb 1': an image reference has no spaces"},
  };
  for (const BadFlags& c : cases) {
    TempDir dir;
    std::vector<std::string> flags = c.flags;
    if (std::find(flags.begin(), flags.end(), "--image") == flags.end()) {
      flags.insert(flags.end(), {"--image", "rb:1"});
    }
    flags.insert(flags.end(), {"-o", dir.File("job.yaml")});
    Result r = Submit(flags);
    EXPECT_NE(r.code, 0) << c.expected;
    EXPECT_NE(r.output.find("ringboost-submit: error: " + c.expected), std::string::npos)
        << "expected\n  " << c.expected << "\ngot\n  " << r.output;
    EXPECT_TRUE(FilesIn(dir.path()).empty()) << c.expected;
  }
}

TEST(K8sSubmitFlags, ImageFromTheEnvironmentElseAnError) {
  TempDir dir;
  const std::string out = dir.File("job.yaml");
  Result r = Submit({"-n", "2", "-o", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("ringboost-submit: error: --image: no container image given: pass "
                          "--image REGISTRY/ringboost:TAG or set RINGBOOST_IMAGE"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(FilesIn(dir.path()).empty());
  r = RunProgram({RINGBOOST_SUBMIT, "--cluster", "kubernetes", "-n", "2", "-o", out, "ringboost",
                  "train", "t.conf"},
                 {{"RINGBOOST_IMAGE", "env.example/rb:2"}});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(ReadFile(out).find("image: \"env.example/rb:2\"\n"), std::string::npos);
  EXPECT_EQ(FilesIn(dir.path()), std::vector<std::string>{out});  // no temporary file left
}

// -o through a symbolic link writes the link's target and keeps the link; -o a FIFO is written
// into, not replaced with a regular file (nor is a device: -o /dev/stdout).
TEST(K8sSubmitFlags, OutputFollowsLinksAndWritesSpecialFilesInPlace) {
  TempDir dir;
  const std::string target = dir.File("real.yaml"), link = dir.File("job.yaml");
  fs::create_symlink(target, link);
  Result r = Submit({"-n", "2", "--image", "rb:1", "-o", link});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_NE(ReadFile(target).find("kind: MPIJob\n"), std::string::npos);
  EXPECT_EQ(FilesIn(dir.path()), (std::vector<std::string>{link, target}));

  // The manifest (a few KiB) fits in the FIFO's buffer: read it once ringboost-submit is done.
  const std::string fifo = dir.File("job.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  r = Submit({"-n", "2", "--image", "rb:1", "-o", fifo});
  std::string read_back;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) read_back.append(buf, n);
  close(fd);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_NE(read_back.find("kind: MPIJob\n"), std::string::npos) << read_back;
}

// Code points a YAML reader would take for a line break or refuse (C1 controls, NEL, U+2028,
// U+2029, the byte order mark, U+FFFE, U+FFFF) are escaped in the manifest's strings; other
// UTF-8 stays as it is. Bytes that are not UTF-8, and an image that is not ASCII, are refused
// naming the option, and nothing is written.
TEST(K8sSubmitFlags, StringsAreEscapedUtf8AndOtherBytesRefused) {
  const std::string value =
      "a\xc2\x85"
      "b\xe2\x80\xa8"
      "c\xe2\x80\xa9"
      "d\xef\xbb\xbf"
      "e\xef\xbf\xbe"
      "f\xef\xbf\xbf"
      "g\xc2\x9b"
      "h\x7f"
      "\xc3\xa9\xf0\x9f\x8c\xb2";
  Result r = Submit({"-n", "2", "--image", "rb:1", "-o", "-", "--env", "V=" + value});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("- \"V=a\\u0085b\\u2028c\\u2029d\\ufeffe\\ufffef\\uffffg\\u009bh\\u007f"
                          "\xc3\xa9\xf0\x9f\x8c\xb2\"\n"),
            std::string::npos)
      << r.output;
  const std::vector<BadFlags> cases = {
      {{"--env", "V=a\xff"}, "--env V=...: the value is not valid UTF-8"},
      {{"--env", "V=\xc0\xaf"}, "--env V=...: the value is not valid UTF-8"},      // overlong '/'
      {{"--env", "V=\xed\xa0\x80"}, "--env V=...: the value is not valid UTF-8"},  // a surrogate
      {{"--env", "V=\xe2\x80"}, "--env V=...: the value is not valid UTF-8"},      // cut short
      {{"--volume", "data:/d\xfe"}, "--volume: the value is not valid UTF-8"},
      {{"--image", "rb:\xc3\xa9"},
       "an image reference has no spaces, control characters or "
       "non-ASCII letters"},
  };
  for (const BadFlags& c : cases) {
    TempDir dir;
    std::vector<std::string> flags = {"-n", "2", "-o", dir.File("job.yaml")};
    if (c.flags[0] != "--image") flags.insert(flags.end(), {"--image", "rb:1"});
    flags.insert(flags.end(), c.flags.begin(), c.flags.end());
    r = Submit(flags);
    EXPECT_EQ(r.code, 1) << c.expected;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.expected << "\n" << r.output;
    EXPECT_TRUE(FilesIn(dir.path()).empty()) << c.expected;
  }
  r = RunProgram({RINGBOOST_SUBMIT, "--cluster", "kubernetes", "-n", "2", "--image", "rb:1", "-o",
                  "-", "ringboost", "train", "\xff.conf"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("the worker command: word 3 is not valid UTF-8"), std::string::npos)
      << r.output;
}

TEST(K8sSubmitFlags, NameAtTheLimitAndStdout) {
  // 54 + "-worker-9" is 63 characters: allowed; "-o -" writes the manifest to stdout.
  Result r = Submit({"-n", "10", "--jobname", std::string(54, 'a'), "--image", "rb:1", "-o", "-"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("kind: MPIJob\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("    Worker:\n      replicas: 10\n"), std::string::npos);
}

TEST(K8sSubmitFlags, EnvRightBeforeTheCommandTakesOneValueEach) {
  // `--env K=V ringboost train ...`: each --env takes one K=V, the command stays the command;
  // OMP_NUM_THREADS defaults to the rank's share of the pod's cores (1 core, 1 slot: 1).
  Result r = Submit({"-n", "2", "--image", "rb:1", "-o", "-", "--env", "A=1", "--env", "B=2"});
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string x = "            - \"-x\"\n            - ";
  EXPECT_NE(r.output.find(x + "\"A=1\"\n" + x + "\"B=2\"\n" + x +
                          "\"OMP_NUM_THREADS=1\"\n            - \"ringboost\"\n"),
            std::string::npos)
      << r.output;
}

TEST(K8sSubmitFlags, ThreadsPerRankAreTheCoresPerSlotUnlessSet) {
  Result r = Submit(
      {"-n", "2", "--image", "rb:1", "-o", "-", "--worker-cores", "8", "--slots-per-worker", "2"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("- \"OMP_NUM_THREADS=4\"\n"), std::string::npos) << r.output;
  r = Submit({"-n", "2", "--image", "rb:1", "-o", "-", "--worker-cores", "8", "--env",
              "OMP_NUM_THREADS=3"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("- \"OMP_NUM_THREADS=3\"\n"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("OMP_NUM_THREADS=8"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ringboost::submit
