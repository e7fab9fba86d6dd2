#include "cli/output_clash.h"

#include <sys/stat.h>

#include <filesystem>

#include "common/file_io.h"
#include "common/output_path.h"
#include "data/uri.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;

// "" (an option not given whose default is standard output) or "-" / "stdout".
bool IsStdout(const std::string& path) { return path.empty() || NamesStandardOutput(path); }

// (key, path) of every file the task reads: each data file of its URIs (a folder's files, a
// list's), model_in, fmap and the config file.
std::vector<std::pair<std::string, std::string>> TaskInputs(const Params& p) {
  std::vector<std::pair<std::string, std::string>> inputs;
  auto add_uri = [&inputs](const std::string& key, const std::string& uri) {
    if (uri.empty()) return;
    try {
      for (const std::string& file : ParseUri(uri).files) inputs.emplace_back(key, file);
    } catch (const std::exception&) {  // the loader reports a bad URI in its own words
    }
  };
  if (p.task == "train") {
    add_uri("data", p.data);
    for (const auto& [name, uri] : p.evals) add_uri("eval[" + name + "]", uri);
  }
  if (p.task == "pred") add_uri("test:data", p.test_data);
  if (!p.model_in.empty()) inputs.emplace_back("model_in", p.model_in);
  if (!p.fmap.empty()) inputs.emplace_back("fmap", p.fmap);
  if (!p.config_file.empty()) inputs.emplace_back("the config file", p.config_file);
  return inputs;
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

std::string OutputClash(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::pair<std::string, std::string>>& inputs) {
  for (const auto& [key, path] : outputs) {
    if (IsStdout(path)) continue;
    for (const auto& [in_key, in_path] : inputs) {
      if (in_path.empty() || !SameFile(path, in_path)) continue;
      return key + "=" + path + ": is also " +
             (in_key == "the config file" ? in_key : in_key + "=" + in_path) +
             ", which writing it would overwrite; choose another path";
    }
  }
  return "";
}

std::string TaskOutputsProblem(const Params& p) {
  if (std::string problem = OutputPathsProblem(p); !problem.empty()) return problem;
  std::vector<std::pair<std::string, std::string>> inputs = TaskInputs(p), outputs;
  if (p.task == "pred") outputs.emplace_back("name_pred", p.name_pred);
  if (p.task == "dump") outputs.emplace_back("name_dump", p.name_dump);
  if (p.task != "train") return OutputClash(outputs, inputs);
  if (!p.eval_history.empty()) outputs.emplace_back("eval_history", p.eval_history);
  std::string problem = OutputClash(outputs, inputs);
  if (problem.empty() && !p.model_out.empty()) {
    // model_out may replace model_in (a continued model), not the data, the config or the history.
    std::vector<std::pair<std::string, std::string>> others;
    for (const auto& input : inputs) {
      if (input.first != "model_in") others.push_back(input);
    }
    others.insert(others.end(), outputs.begin(), outputs.end());
    problem = OutputClash({{"model_out", p.model_out}}, others);
  }
  return problem;
}

}  // namespace ringboost
