// WriteFileAtomic writes what the user named: a link's target (through a chain of relative
// links), keeping an existing file's permissions; OutputFileProblem / OutputFolderProblem name the
// key, the path and what is wrong.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "common/output_path.h"
#include "helpers.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;

// A folder is no file to read (a stream read one as an empty file: model_in=<folder> said "the
// file is empty", fmap=<folder> was ignored).
TEST(FileIo, ReadingAFolderOrAMissingFileIsAnError) {
  test::TempDir dir;
  fs::create_directory(dir.File("sub"));
  try {
    ReadWholeFile(dir.File("sub"));
    ADD_FAILURE() << "read a folder";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir.File("sub") + ": is a directory, not a file");
  }
  EXPECT_THROW(ReadWholeFile(dir.File("absent")), Error);
  test::WriteFile(dir.File("empty"), "");
  EXPECT_EQ(ReadWholeFile(dir.File("empty")), "");
  test::WriteFile(dir.File("a"), std::string(200000, 'x'));
  EXPECT_EQ(ReadWholeFile(dir.File("a")), std::string(200000, 'x'));
}

TEST(FileIo, AChainOfRelativeLinksIsFollowedToItsTarget) {
  test::TempDir dir;
  fs::create_directory(dir.File("sub"));
  test::WriteFile(dir.File("sub/target.txt"), "old");
  fs::create_symlink("target.txt", dir.File("sub/inner"));  // relative to sub/
  fs::create_symlink("sub/inner", dir.File("outer"));
  WriteFileAtomic(dir.File("outer"), "new");
  EXPECT_TRUE(fs::is_symlink(dir.File("outer")));
  EXPECT_TRUE(fs::is_symlink(dir.File("sub/inner")));
  EXPECT_EQ(test::ReadFile(dir.File("sub/target.txt")), "new");
  EXPECT_EQ(ResolveWriteTarget(dir.File("outer")).path, dir.File("sub/target.txt"));
}

TEST(FileIo, AnExistingFileKeepsItsPermissions) {
  test::TempDir dir;
  test::WriteFile(dir.File("f.txt"), "old");
  ASSERT_EQ(::chmod(dir.File("f.txt").c_str(), 0600), 0);
  WriteFileAtomic(dir.File("f.txt"), "new");
  struct stat st;
  ASSERT_EQ(::stat(dir.File("f.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(test::ReadFile(dir.File("f.txt")), "new");
}

// A target whose name leaves no room for a suffix within NAME_MAX is still written whole.
TEST(FileIo, ANameOfNameMaxBytesIsWritten) {
  test::TempDir dir;
  const std::string path = dir.File(std::string(255, 'm'));
  WriteFileAtomic(path, "one");
  WriteFileAtomic(path, "two");
  EXPECT_EQ(test::ReadFile(path), "two");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// SIGTERM in the middle of a write leaves neither the target nor the temporary file, and still
// ends the process by the signal.
TEST(FileIo, ASignalDuringAWriteRemovesTheTemporaryFile) {
  test::TempDir dir;
  const std::string path = dir.File("big.model");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    WriteFileAtomic(path, std::string(std::size_t{512} << 20, 'x'));
    ::_exit(0);
  }
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    for (const auto& e : fs::directory_iterator(dir.path())) {
      seen |= e.path().filename().string().find(".tmp-") != std::string::npos;
    }
    if (!seen) ::usleep(500);
  }
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  if (!seen || !WIFSIGNALED(status)) GTEST_SKIP() << "the write ended before the signal came";
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 0);
}

TEST(FileIo, ALoopOfLinksIsAnErrorNamingThePath) {
  test::TempDir dir;
  fs::create_symlink("b", dir.File("a"));
  fs::create_symlink("a", dir.File("b"));
  try {
    WriteFileAtomic(dir.File("a"), "x");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("too many levels of symbolic links"), std::string::npos);
  }
}

// `{ echo A; ringboost ... name_pred=/dev/stdout; echo B; } > out.txt`: the output goes through
// the shell's own descriptor, so its offset moves on and the next write comes after it (a fresh
// open of /proc/self/fd/1 has an offset of its own, and B then overwrote the predictions).
TEST(FileIo, OwnDescriptorIsWrittenThroughItsSharedOffset) {
  test::TempDir dir;
  const int fd = ::open(dir.File("out.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "A\n", 2), 2);
  WriteFileAtomic("/proc/self/fd/" + std::to_string(fd), "predictions\n");
  WriteFileAtomic("/dev/fd/" + std::to_string(fd), "more\n");
  ASSERT_EQ(::write(fd, "B\n", 2), 2);
  ASSERT_EQ(::close(fd), 0);
  EXPECT_EQ(test::ReadFile(dir.File("out.txt")), "A\npredictions\nmore\nB\n");
}

TEST(OutputPath, ProblemsNameTheKeyThePathAndTheFix) {
  test::TempDir dir;
  test::WriteFile(dir.File("file.txt"), "");
  EXPECT_EQ(OutputFileProblem("model_out", dir.File("m.json")), "");
  EXPECT_NE(OutputFileProblem("model_out", dir.File("no/m.json"))
                .find("model_out=" + dir.File("no/m.json") + ": the folder '" + dir.File("no") +
                      "' does not exist; create it"),
            std::string::npos);
  EXPECT_NE(OutputFileProblem("name_pred", dir.path()).find("is a folder"), std::string::npos);
  EXPECT_EQ(OutputFolderProblem("checkpoint_dir", dir.File("a/b/c"), false), "");
  EXPECT_NE(OutputFolderProblem("checkpoint_dir", dir.File("file.txt/c"), false)
                .find("'" + dir.File("file.txt") + "' is not a folder"),
            std::string::npos);
  EXPECT_NE(OutputFolderProblem("model_dir", dir.File("none"), true).find("does not exist"),
            std::string::npos);
  EXPECT_NE(OutputFolderProblem("model_dir", dir.File("file.txt"), true).find("is not a folder"),
            std::string::npos);
}

// A file marked immutable (chattr +i) refuses the rename that replaces it, even to root: found
// before the run, not after it. Skips where chattr is missing or the file system has no flags.
TEST(OutputPath, ImmutableOrAppendOnlyFileIsAProblem) {
  test::TempDir dir;
  const std::string model = test::WriteFile(dir.File("m.model"), "old model");
  struct Unmark {  // the temporary folder can be removed only once the flag is off again
    std::string path;
    ~Unmark() { (void)!std::system(("chattr -i -a '" + path + "' 2> /dev/null").c_str()); }
  } unmark{model};
  for (const char* flag : {"+i", "+a"}) {
    if (std::system(("chattr " + std::string(flag) + " '" + model + "' 2> /dev/null").c_str()) !=
        0) {
      GTEST_SKIP() << "chattr " << flag << " does not work here";
    }
    const std::string what = flag[1] == 'i' ? "immutable (chattr +i)" : "append-only (chattr +a)";
    EXPECT_EQ(OutputFileProblem("model_out", model),
              "model_out=" + model + ": the file '" + model + "' is " + what +
                  ": it cannot be replaced; run chattr -" + (flag + 1) +
                  " on it or choose another path");
    ASSERT_EQ(std::system(("chattr -i -a '" + model + "'").c_str()), 0);
  }
  EXPECT_EQ(OutputFileProblem("model_out", model), "");
}

}  // namespace
}  // namespace ringboost
