#include "common/output_path.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file_io.h"

namespace ringboost {
namespace {

bool IsFolder(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// "" when new entries can be made in the existing folder `folder`, else why not.
std::string FolderTakesFiles(const std::string& folder) {
  if (::access(folder.c_str(), W_OK | X_OK) == 0) return "";
  return std::string("cannot create files in the folder '") + folder + "': " + std::strerror(errno);
}

// "" when the existing file `path` can be replaced by renaming a new one over it, else why not:
// a file marked immutable or append-only (chattr +i / +a) refuses the rename, even to root, and
// the check of its folder does not see that.
std::string FileCanBeReplaced(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";  // unreadable here: the rename itself will say
  int flags = 0;
  const bool known = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;  // not every file system has them
  ::close(fd);
  if (!known) return "";
  if ((flags & FS_IMMUTABLE_FL) != 0) {
    return "the file '" + path +
           "' is immutable (chattr +i): it cannot be replaced; run chattr -i "
           "on it or choose another path";
  }
  if ((flags & FS_APPEND_FL) != 0) {
    return "the file '" + path +
           "' is append-only (chattr +a): it cannot be replaced; run chattr "
           "-a on it or choose another path";
  }
  return "";
}

// The folder part of `path` ("." for a bare name), without its trailing '/'.
std::string Parent(const std::string& path) {
  const std::size_t slash = path.find_last_not_of('/') == std::string::npos
                                ? std::string::npos
                                : path.rfind('/', path.find_last_not_of('/'));
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string OutputFileProblem(const std::string& key, const std::string& path) {
  const std::string named = key + "=" + path + ": ";
  if (path.empty()) return named + "the path is empty; name a file";
  if (path.back() == '/') {  // checked as a file in its parent, it passed and failed at the end
    return named + "names a folder (it ends with '/'); name a file (e.g. " + key + "=" + path +
           "out.txt)";
  }
  WriteTarget target;
  try {
    target = ResolveWriteTarget(path);
  } catch (const std::exception& e) {
    return named + e.what();
  }
  if (target.is_folder) {
    return named + "is a folder; name a file in it (e.g. " + key + "=" + path + "/out.txt)";
  }
  if (target.in_place) return "";
  const std::string folder = Parent(target.path);
  const std::string via = target.path == path ? "" : " (the link leads to '" + target.path + "')";
  if (!Exists(folder)) {
    return named + "the folder '" + folder + "' does not exist" + via + "; create it (mkdir -p " +
           folder + ") or choose another path";
  }
  if (!IsFolder(folder)) return named + "'" + folder + "' is not a folder" + via;
  std::string problem = FolderTakesFiles(folder);
  if (problem.empty() && target.exists) problem = FileCanBeReplaced(target.path);
  return problem.empty() ? "" : named + problem + via;
}

std::string OutputFolderProblem(const std::string& key, const std::string& path, bool must_exist) {
  const std::string named = key + "=" + path + ": ";
  if (IsFolder(path)) {
    const std::string problem = FolderTakesFiles(path);
    return problem.empty() ? "" : named + problem;
  }
  if (Exists(path)) return named + "is not a folder; name a folder";
  if (must_exist) {
    return named + "the folder does not exist; create it (mkdir -p " + path +
           ") or choose another folder";
  }
  std::string ancestor = path;
  do {
    ancestor = Parent(ancestor);
  } while (!Exists(ancestor) && ancestor != "." && ancestor != "/");
  if (!IsFolder(ancestor)) {
    return named + "cannot create the folder: '" + ancestor + "' is not a folder";
  }
  const std::string problem = FolderTakesFiles(ancestor);
  return problem.empty() ? "" : named + "cannot create the folder: " + problem;
}

std::string OutputPathsProblem(const Params& p) {
  std::string problem;
  auto check = [&problem](const std::string& found) {
    if (problem.empty()) problem = found;
  };
  if (p.task == "pred" && !NamesStandardOutput(p.name_pred)) {
    check(OutputFileProblem("name_pred", p.name_pred));
  }
  if (p.task == "dump" && !NamesStandardOutput(p.name_dump)) {
    check(OutputFileProblem("name_dump", p.name_dump));
  }
  if (p.task != "train") return problem;
  if (!p.model_out.empty()) check(OutputFileProblem("model_out", p.model_out));
  if (!p.eval_history.empty()) check(OutputFileProblem("eval_history", p.eval_history));
  if (p.model_out.empty() || p.save_period > 0) {
    check(p.model_dir.empty() ? OutputFolderProblem("model_dir", ".", true)
                              : OutputFolderProblem("model_dir", p.model_dir, true));
  }
  if (!p.checkpoint_dir.empty()) {
    check(OutputFolderProblem("checkpoint_dir", p.checkpoint_dir, false));
  }
  return problem;
}

}  // namespace ringboost
