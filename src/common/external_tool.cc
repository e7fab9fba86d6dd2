// RunTool and RequireTool (external_tool.h): posix_spawnp with stdout and stderr sent to
// temporary files, so that neither pipe can fill up and block the program.
#include "common/external_tool.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"

extern char** environ;

namespace ringboost {
namespace {

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string file = (dir.empty() ? "." : dir) + "/" + program;
    struct stat st;
    if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(file.c_str(), X_OK) == 0) {
      return true;
    }
  }
  return false;
}

// A temporary file removed when it goes out of scope.
class TempFile {
 public:
  TempFile() {
    const char* tmp = std::getenv("TMPDIR");
    const std::string folder = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    path_ = folder + "/ringboost-XXXXXX";
    const int fd = mkstemp(path_.data());
    if (fd < 0) {
      RB_FAIL("cannot create a temporary file in " << folder << (tmp != nullptr ? " (TMPDIR)" : "")
                                                   << ": " << std::strerror(errno));
    }
    close(fd);
  }
  ~TempFile() { unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Whether `bytes` end as a whole file of `format` does: an SVG with its closing tag, a PNG with
// its IEND chunk.
bool IsWhole(const std::string& bytes, const std::string& format) {
  if (format == "png") {
    static const std::string iend("IEND\xae\x42\x60\x82", 8);
    return bytes.size() >= iend.size() &&
           bytes.compare(bytes.size() - iend.size(), iend.size(), iend) == 0;
  }
  const std::size_t end = bytes.find_last_not_of(" \t\r\n");
  return end != std::string::npos && end >= 5 && bytes.compare(end - 5, 6, "</svg>") == 0;
}

}  // namespace

void RequireTool(const ExternalTool& tool, const std::string& purpose) {
  if (OnPath(tool.program)) return;
  RB_FAIL(purpose << " needs the program `" << tool.program << "`, which is not on PATH: install "
                  << "the package " << tool.package << " (Debian/Ubuntu: apt-get install "
                  << tool.package << ")");
}

std::string RunTool(const ExternalTool& tool, const std::vector<std::string>& args,
                    const std::string& input, const std::string& format) {
  TempFile in, out, err;
  WriteFileAtomic(in.path(), input);
  std::vector<std::string> words{tool.program};
  words.insert(words.end(), args.begin(), args.end());
  words.push_back(in.path());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.path().c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.path().c_str(), O_WRONLY | O_TRUNC, 0);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, tool.program, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    RB_FAIL("cannot run `" << tool.program << "` (package " << tool.package
                           << "): " << std::strerror(spawned));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string message = ReadWholeFile(err.path());
    if (message.size() > 300) message = message.substr(0, 300) + "...";
    RB_FAIL("`" << tool.program << "` failed ("
                << (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                      : std::string("killed by a signal"))
                << "): " << message);
  }
  std::string output = ReadWholeFile(out.path());
  if (!IsWhole(output, format)) {
    const char* tmp = std::getenv("TMPDIR");
    RB_FAIL("`" << tool.program << "` wrote " << output.size() << " bytes that are no whole "
                << format << " file (was its output cut short? it goes to a temporary file in "
                << (tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") << ", which may be full)");
  }
  return output;
}

}  // namespace ringboost
