// The ssh launcher (dmlc-submit --cluster ssh): worker i runs on host i % H of --host-file
// (`host[:port]` a line), through one local `ssh` child per worker:
//   ssh [$RINGBOOST_SSH_OPTIONS] -n -tt -o BatchMode=yes -o StrictHostKeyChecking=no
//       -o LogLevel=ERROR [-p PORT] -- HOST 'cd CWD; export K=V ...; exec COMMAND'
// A host starting with '-' is refused when the host file is read (ssh would take it for an
// option, e.g. -oProxyCommand=...), and `--` keeps HOST a destination all the same.
// Values and command arguments are shell-quoted, so they arrive as given. `-tt` gives the
// remote command a terminal: when ssh ends (the job stopped, a worker failed, ringboost-submit
// died) sshd closes it and the remote worker gets SIGHUP instead of living on as an orphan; the
// price is "\r\n" line ends (stripped here) and stdout and stderr arriving merged, as locally.
// RINGBOOST_SSH_OPTIONS (split on spaces) adds client options, e.g. "-i KEY -l USER"; they come
// first, so they override the defaults (ssh keeps the first value of each option).
// The job token never appears in a command line (ps shows those to every user on both ends): the
// ssh child gets it in its environment as LC_RINGBOOST_JOB_TOKEN and sends it with
// `-o SendEnv=LC_RINGBOOST_JOB_TOKEN` (sshd takes LC_* variables by default on Debian and most
// distributions: `AcceptEnv LANG LC_*`); the remote command builds RINGBOOST_JOB_TOKEN and
// DMLC_TASK_ID from it, and stops with a message naming the fix where the server dropped it.
// No restarts: as in dmlc-submit, only the local launcher restarts workers.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "common/file_io.h"
#include "process.h"

namespace ringboost::submit {
namespace {

struct Host {
  std::string name;
  int port = 0;  // 0: none given, ssh's default (~/.ssh/config may set one)
};

// 'text' with every ' written as '\'' : one word for any POSIX shell.
std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool IsShellName(const std::string& key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  for (char c : key) {
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      return false;
  }
  return true;
}

// "host", "host:port", "user@host:port", "[v6addr]:port"; a bare IPv6 address has no port.
Status ParseHost(const std::string& word, const std::string& where, Host* host) {
  std::string name = word, port;
  if (!word.empty() && word[0] == '[') {
    const auto close = word.find(']');
    if (close == std::string::npos) return Status::Fail(where + ": '" + word + "': missing ']'");
    name = word.substr(1, close - 1);
    if (close + 1 < word.size()) {
      if (word[close + 1] != ':') return Status::Fail(where + ": '" + word + "': expected ]:PORT");
      port = word.substr(close + 2);
    }
  } else if (word.find(':') == word.rfind(':') && word.find(':') != std::string::npos) {
    name = word.substr(0, word.find(':'));
    port = word.substr(word.find(':') + 1);
  }
  if (name.empty()) return Status::Fail(where + ": '" + word + "': no host name");
  if (name.front() == '-') {
    return Status::Fail(where + ": '" + word +
                        "': a host name cannot start with '-' (ssh would take it for an option); "
                        "expected host[:port]");
  }
  host->name = name;
  if (port.empty() && word.back() != ':') return Status::OK();
  long value = 0;
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && c >= '0' && c <= '9';
  if (digits) value = std::strtol(port.c_str(), nullptr, 10);
  if (!digits || value < 1 || value > 65535) {
    return Status::Fail(where + ": bad port '" + port + "' in '" + word +
                        "': expected host[:port] with a port from 1 to 65535");
  }
  host->port = static_cast<int>(value);
  return Status::OK();
}

// Reads `host[:port]` lines; blank lines and `#` comments are skipped, and words after the
// first (an MPI hostfile's "slots=4") are ignored, so one file serves both launchers.
Status ReadHostFile(const std::string& path, std::vector<Host>* hosts) {
  if (path.empty()) {
    return Status::Fail(
        "--cluster ssh needs --host-file FILE: the machines to run on, host[:port] a line");
  }
  std::string text;
  try {
    text = ReadWholeFile(path);  // a folder is an error saying so, not an empty list of hosts
  } catch (const Error& e) {
    return Status::Fail(std::string("--host-file: ") + e.what());
  }
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    std::istringstream words(line.substr(0, hash));
    std::string word;
    if (!(words >> word)) continue;
    Host host;
    Status s = ParseHost(word, path + ":" + std::to_string(number), &host);
    if (!s.ok()) return s;
    hosts->push_back(host);
  }
  if (hosts->empty()) {
    return Status::Fail(path + ": no hosts in --host-file: expected host[:port] a line");
  }
  return Status::OK();
}

std::vector<std::string> ExtraSshOptions() {
  std::vector<std::string> out;
  const char* value = std::getenv("RINGBOOST_SSH_OPTIONS");
  std::istringstream words(value != nullptr ? value : "");
  for (std::string word; words >> word;) out.push_back(word);
  return out;
}

std::string CurrentDirectory() {
  std::vector<char> buf(PATH_MAX + 1);
  return getcwd(buf.data(), buf.size()) != nullptr ? std::string(buf.data()) : ".";
}

// Local variables that dmlc-submit's ssh launcher also forwards (credentials excepted).
const char* const kForwardedVariables[] = {"OMP_NUM_THREADS", "KMP_AFFINITY", "LD_LIBRARY_PATH",
                                           "DMLC_INTERFACE"};

// The variable that carries the job token to the remote side (see the top of the file).
constexpr const char* kTokenCarrier = "LC_RINGBOOST_JOB_TOKEN";
// The remote command's exit code where the ssh server did not pass kTokenCarrier on.
constexpr int kTokenDroppedExit = 113;

// `value` as one shell word, every occurrence of `token` (when not empty) taken from the
// carrier variable instead of written out.
std::string QuoteWithoutToken(const std::string& value, const std::string& token) {
  if (token.empty()) return ShellQuote(value);
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = value.find(token); at != std::string::npos; at = value.find(token, from)) {
    out += ShellQuote(value.substr(from, at - from)) + "\"$" + kTokenCarrier + "\"";
    from = at + token.size();
  }
  return out + ShellQuote(value.substr(from));
}

// `cd CWD; [token check;] export K=V ...; exec COMMAND`, every value and argument quoted, the
// token (RINGBOOST_JOB_TOKEN's value) only by reference to kTokenCarrier.
Status RemoteCommand(const std::vector<std::string>& command, EnvList env, std::string* out) {
  for (const char* name : kForwardedVariables) {
    bool given = false;
    for (const auto& kv : env) given = given || kv.first == name;
    if (!given && std::getenv(name) != nullptr) env.emplace_back(name, std::getenv(name));
  }
  std::string token;
  for (const auto& [key, value] : env) {
    if (key == "RINGBOOST_JOB_TOKEN") token = value;
  }
  std::string text = "cd " + ShellQuote(CurrentDirectory()) + ";";
  if (!token.empty()) {
    text +=
        std::string(" [ -n \"${") + kTokenCarrier + ":-}\" ] || { echo " +
        ShellQuote(std::string("ringboost-submit: the ssh server did not pass ") + kTokenCarrier +
                   " (the job token) on to the worker; let it accept the variable: "
                   "'AcceptEnv LC_*' in its sshd_config") +
        " >&2; exit " + std::to_string(kTokenDroppedExit) + "; };";
  }
  text += " export";
  for (const auto& [key, value] : env) {
    if (!IsShellName(key)) {
      return Status::Fail("--env " + key + "=...: '" + key +
                          "' is not a variable name a shell can export (letters, digits, _)");
    }
    text += " " + key + "=" + QuoteWithoutToken(value, token);
  }
  if (!token.empty()) text += std::string("; unset ") + kTokenCarrier;
  text += "; exec";
  for (const std::string& arg : command) text += " " + ShellQuote(arg);
  *out = text;
  return Status::OK();
}

class SshLauncher : public Launcher {
 public:
  SshLauncher(const SubmitOptions& options, JobLog* log, RankOf rank_of)
      : options_(options), log_(log), rank_of_(std::move(rank_of)) {}

  Status Run(const std::vector<WorkerSpec>& workers, const std::atomic<bool>& stop) override {
    std::vector<Host> hosts;
    Status s = ReadHostFile(options_.host_file, &hosts);
    if (!s.ok()) return s;
    if (options_.command.empty()) return Status::Fail("no worker command given");
    std::vector<Worker> running(workers.size());
    for (std::size_t i = 0; i < workers.size(); ++i) {
      running[i].spec = &workers[i];
      running[i].host = hosts[i % hosts.size()];
      s = Start(&running[i]);
      if (!s.ok()) return EndAll(&running, s);
    }
    return WaitAll(&running, stop);
  }

 private:
  struct Worker {
    const WorkerSpec* spec = nullptr;
    Host host;
    bool done = false;
    std::unique_ptr<ChildProcess> child;
  };

  Status Start(Worker* worker) {
    EnvList env = worker->spec->env;
    env.emplace_back("DMLC_NUM_ATTEMPT", "0");
    env.emplace_back("DMLC_NODE_HOST", worker->host.name);
    std::string remote;
    Status s = RemoteCommand(options_.command, env, &remote);
    if (!s.ok()) return s;
    EnvList ssh_env;  // the ssh client's own environment: the token, where there is one
    for (const auto& [key, value] : env) {
      if (key == "RINGBOOST_JOB_TOKEN" && !value.empty())
        ssh_env.emplace_back(kTokenCarrier, value);
    }
    std::vector<std::string> argv = {"ssh"};
    for (const std::string& option : ExtraSshOptions()) argv.push_back(option);
    if (!ssh_env.empty()) {
      argv.push_back("-o");
      argv.push_back(std::string("SendEnv=") + kTokenCarrier);
    }
    for (const char* option : {"-n", "-tt", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                               "-o", "LogLevel=ERROR"}) {
      argv.push_back(option);
    }
    if (worker->host.port > 0) {
      argv.push_back("-p");
      argv.push_back(std::to_string(worker->host.port));
    }
    argv.push_back("--");  // the host is never an option, whatever ParseHost let through
    argv.push_back(worker->host.name);
    argv.push_back(remote);
    const int task = worker->spec->task_id;
    auto on_line = [this, task](const std::string& line) {
      const bool cr = !line.empty() && line.back() == '\r';  // the remote terminal's line end
      log_->WorkerLine("[" + WorkerName(rank_of_, task) + "] " +
                       (cr ? line.substr(0, line.size() - 1) : line));
    };
    return ChildProcess::Start(argv, ssh_env, on_line, &worker->child)
        .Wrap("task " + std::to_string(task) + " on " + worker->host.name);
  }

  Status WaitAll(std::vector<Worker>* workers, const std::atomic<bool>& stop) {
    for (;;) {
      if (stop.load()) return EndAll(workers, Status::Fail("stopped"));
      bool all_done = true;
      for (Worker& worker : *workers) {
        int code = 0;
        if (worker.done) continue;
        if (!worker.child->Poll(&code)) {
          all_done = false;
        } else if (code == 0) {
          worker.done = true;
        } else {
          return EndAll(workers, Failure(worker, code));
        }
      }
      if (all_done) return Status::OK();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  Status Failure(const Worker& worker, int code) const {
    const int task = worker.spec->task_id;
    std::string text = "worker " + WorkerName(rank_of_, task) + " (task " + std::to_string(task) +
                       ") on " + worker.host.name + " failed: " + ChildProcess::Describe(code);
    if (code == 255) {
      const std::string port =
          worker.host.port > 0 ? "-p " + std::to_string(worker.host.port) + " " : "";
      text += " (255 is also ssh's own failure: check that `ssh " + port + worker.host.name +
              " true` works without a password)";
    }
    return Status::Fail(text);
  }

  // Ends every ssh still running (its remote worker gets SIGHUP) and returns `why`.
  static Status EndAll(std::vector<Worker>* workers, Status why) {
    std::vector<ChildProcess*> children;
    for (Worker& worker : *workers) {
      if (worker.child) children.push_back(worker.child.get());
    }
    ChildProcess::TerminateAll(children);
    return why;
  }

  SubmitOptions options_;
  JobLog* log_;
  RankOf rank_of_;
};

}  // namespace

std::unique_ptr<Launcher> MakeSshLauncher(const SubmitOptions& options, JobLog* log,
                                          RankOf rank_of) {
  return std::make_unique<SshLauncher>(options, log, std::move(rank_of));
}

}  // namespace ringboost::submit
