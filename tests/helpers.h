// Shared helpers for the tests: temporary folders, files, paths of the shared data sets.
#pragma once

#include <string>

namespace ringboost::test {

// A fresh empty folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Path of `name` inside the folder.
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Writes `text` to `path` (overwriting). Returns path.
std::string WriteFile(const std::string& path, const std::string& text);
// Whole content of a file; empty if missing.
std::string ReadFile(const std::string& path);
bool FileExists(const std::string& path);

// Sets an environment variable for a scope (a test) and puts the old value, or its absence, back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// Root of the source tree and the `../shared/data` folder beside it ("" when absent).
std::string SourceDir();
std::string SharedDataDir();
std::string SharedGoldenDir();

}  // namespace ringboost::test

// Skips the current test with a message when the shared data sets are absent.
#define RB_REQUIRE_SHARED_DATA()                                          \
  do {                                                                    \
    if (::ringboost::test::SharedDataDir().empty()) {                     \
      GTEST_SKIP() << "../shared/data not found next to the source tree"; \
    }                                                                     \
  } while (0)
