// The worker command of an MPIJob, checked before the manifest is written. A Kubernetes job fails
// far from the user (in a pod, minutes later), so mistakes that a local run would show at once
// are caught here: ringboost-submit's own options written after the command (CLI11 hands them to
// the command, so `... ringboost train CONF -o job.yaml` would train with `-o job.yaml` and
// write the YAML to the default file) are refused, unless `--` before the command said that every
// word is the command's; a program path of this machine (`build/ringboost`) and relative input
// paths without a --volume to find them on draw warnings.
#include <algorithm>
#include <string>
#include <vector>

#include "submit.h"

namespace ringboost::submit {
namespace {

// ringboost-submit's options that take a value (main.cc), by every name.
const char* const kSubmitOptions[] = {"-o",
                                      "--output",
                                      "--image",
                                      "--volume",
                                      "--jobname",
                                      "--namespace",
                                      "--slots-per-worker",
                                      "--gpus-per-worker",
                                      "-n",
                                      "--num-workers",
                                      "--worker-cores",
                                      "--worker-memory",
                                      "--cluster",
                                      "--env",
                                      "--log-file",
                                      "--connect-timeout",
                                      "-H",
                                      "--host-file",
                                      "--host-ip",
                                      "--log-level"};

bool IsRingboost(const std::string& program) {
  return program.substr(program.rfind('/') + 1) == "ringboost";
}

// The option name of `arg`, if it is one of ringboost-submit's: "--output" of "--output=x", "-o"
// of "-o" and of the joined short forms "-ox" and "-o=x" (CLI11 takes all of them). *joined tells
// whether the value is in `arg`.
std::string SubmitOptionName(const std::string& arg, bool* joined) {
  const bool long_form = arg.rfind("--", 0) == 0;
  const std::string name = long_form ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
  for (const char* option : kSubmitOptions) {
    if (name == option) {
      *joined = arg.size() > name.size();
      return name;
    }
  }
  return "";
}

// ringboost's subcommands with an -o, --output option of their own (src/cli).
bool HasOwnOutputOption(const std::vector<std::string>& command) {
  static const char* const kSubcommands[] = {"dump", "export", "importance", "plot"};
  return IsRingboost(command[0]) && command.size() > 1 &&
         std::find_if(std::begin(kSubcommands), std::end(kSubcommands),
                      [&](const char* sub) { return command[1] == sub; }) != std::end(kSubcommands);
}

std::string Joined(const std::vector<std::string>& words, std::size_t from, std::size_t to) {
  std::string text;
  for (std::size_t i = from; i < std::min(to, words.size()); ++i) {
    text += (text.empty() ? "" : " ") + words[i];
  }
  return text;
}

// The config keys of ringboost whose values are paths.
bool IsPathKey(const std::string& key) {
  static const char* const kKeys[] = {"data",      "test:data", "model_in",
                                      "model_out", "fmap",      "model_dir",
                                      "name_pred", "name_dump", "checkpoint_dir"};
  if (key.rfind("eval[", 0) == 0) return true;
  return std::find_if(std::begin(kKeys), std::end(kKeys),
                      [&](const char* k) { return key == k; }) != std::end(kKeys);
}

// The first relative path the ringboost command reads or writes ("" when none): the config file
// and path-valued key=value arguments. Subcommand words and options are not paths.
std::string FirstRelativePath(const std::vector<std::string>& command) {
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    if (arg.empty() || arg[0] == '-') continue;
    const auto eq = arg.find('=');
    if (eq == std::string::npos) {
      if (i == 1 && (arg == "train" || arg == "predict" || arg == "dump" || arg == "help")) {
        continue;
      }
      if (arg[0] != '/') return arg;
    } else if (IsPathKey(arg.substr(0, eq)) && eq + 1 < arg.size() && arg[eq + 1] != '/') {
      return arg;
    }
  }
  return "";
}

// The error for `command[i]`, an option of ringboost-submit's written after the command. For
// ringboost it cannot be the program's own (those were exempted), so moving it is the fix; for
// another program it may be, and then `--` before the command keeps it the program's.
Status OptionAfterCommand(const std::vector<std::string>& command, std::size_t i, bool joined) {
  const std::size_t end = i + (joined ? 1 : 2);
  const std::string option = Joined(command, i, end);
  const std::string moved =
      "ringboost-submit --cluster kubernetes ... " + option + " " + Joined(command, 0, i) +
      (end < command.size() ? " " + Joined(command, end, command.size()) : "");
  std::string text = "'" + option + "' comes after the worker command '" + Joined(command, 0, i) +
                     "', so it would be an argument of that command in the MPIJob; ";
  if (IsRingboost(command[0])) {
    text += "put ringboost-submit's options before the command: " + moved;
  } else {
    text += "if it is ringboost-submit's option, put it before the command: " + moved +
            "; if it is the command's own, end ringboost-submit's options with --: "
            "ringboost-submit --cluster kubernetes ... -- " +
            Joined(command, 0, command.size());
  }
  return Status::Fail(text);
}

}  // namespace

Status CheckKubernetesCommand(const SubmitOptions& o, std::vector<std::string>* warnings) {
  const std::vector<std::string>& command = o.command;
  if (command.empty()) return Status::Fail("no worker command given");
  const bool own_output = HasOwnOutputOption(command);
  // After `--` every word is the command's: the user said so.
  for (std::size_t i = 1; i < command.size() && !o.options_ended; ++i) {
    bool joined = false;
    const std::string name = SubmitOptionName(command[i], &joined);
    if (name.empty() || (own_output && (name == "-o" || name == "--output"))) continue;
    return OptionAfterCommand(command, i, joined);
  }
  const std::string& program = command[0];
  if (program.find('/') != std::string::npos && program[0] != '/') {
    warnings->push_back("the worker command '" + program +
                        "' is a path on this machine; the pods run the image's programs "
                        "(deploy/Dockerfile puts ringboost on PATH): use '" +
                        program.substr(program.rfind('/') + 1) + "'");
  }
  const std::string relative = IsRingboost(program) ? FirstRelativePath(command) : "";
  if (o.volume.empty() && !relative.empty()) {
    warnings->push_back(
        "no --volume: the pods look for '" + relative +
        "' (and the files its config names) in the image's working directory, where it is "
        "not; put them on a ReadWriteMany PersistentVolumeClaim and add --volume CLAIM:PATH "
        "(the pods then work in PATH), or give absolute paths inside the image");
  }
  return Status::OK();
}

}  // namespace ringboost::submit
