// Runs the real `ringboost` on every case of the fuzz corpus (corpus.h), one test per family, and
// checks each run: no crash (a signal or an exit code other than 0 and 1), no hang (within
// RINGBOOST_FUZZ_TIMEOUT seconds, default 30), no partial output (a failed run leaves the folder
// as it found it; a successful one writes whole, non-empty files), and a clear error for each
// malformed input (`error: ` first, no internal check or bare std:: exception, no raw control
// byte, no line longer than 600 bytes, and the file or key it names).
//
// scripts/sanitize runs the same cases on a sanitizer build: RINGBOOST_FUZZ_EXE names the
// executable to run, RINGBOOST_FUZZ_STRIDE=N takes every N-th case only (and every case of the
// "issue" family, those named in issue 24); RINGBOOST_FUZZ_NO_RLIMIT=1 gives the cases with a
// memory limit RINGBOOST_MEMORY_LIMIT_MB instead of RLIMIT_AS (sanitizers need the address
// space).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "cli/cli_runner.h"
#include "fuzz/corpus.h"
#include "helpers.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;
using test::Expect;
using test::FuzzCase;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

std::string Executable() {
  const char* v = std::getenv("RINGBOOST_FUZZ_EXE");
  return v != nullptr && *v != '\0' ? v : RINGBOOST_EXE;
}

const std::vector<FuzzCase>& Corpus() {
  static const std::vector<FuzzCase> corpus = test::FuzzCorpus();
  return corpus;
}

// Files under `dir` (relative paths) with their sizes, without the runner's capture files.
std::map<std::string, uintmax_t> ListFiles(const std::string& dir) {
  std::map<std::string, uintmax_t> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = fs::relative(e.path(), dir).string();
    if (name == ".stdout" || name == ".stderr") continue;
    files[name] = e.file_size();
  }
  return files;
}

// What is wrong with stderr as a user-facing error ("" when it is a clear one).
std::string UnclearError(const std::string& err, const std::string& must_contain) {
  std::size_t first = 0;  // the first line after the warnings, which may come before the error
  while (err.compare(first, 21, "[ringboost] warning: ") == 0 &&
         err.find('\n', first) != std::string::npos) {
    first = err.find('\n', first) + 1;
  }
  if (err.compare(first, 7, "error: ") != 0) return "does not start with 'error: '";
  for (const char* bad : {"internal check failed", "std::", "terminate called", "what():"}) {
    if (err.find(bad) != std::string::npos) return std::string("says '") + bad + "'";
  }
  std::size_t line = 0;
  for (char c : err) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n') || u == 0x7f) return "holds a raw control byte";
    line = c == '\n' ? 0 : line + 1;
    if (line > 600) return "has a line longer than 600 bytes";
  }
  if (!must_contain.empty() && err.find(must_contain) == std::string::npos) {
    return "does not name '" + must_contain + "'";
  }
  return "";
}

struct Tally {
  int runs = 0, errors = 0, successes = 0, crashes = 0, hangs = 0, partial = 0, unclear = 0;
};

// Runs one case in a fresh folder; records what went wrong as a test failure.
void RunCase(const FuzzCase& c, int timeout_s, Tally* tally) {
  test::TempDir dir;
  for (const auto& [name, content] : c.files) {
    fs::create_directories(fs::path(dir.File(name)).parent_path());
    test::WriteFile(dir.File(name), content);
  }
  const std::map<std::string, uintmax_t> before = ListFiles(dir.path());
  std::string limit;
  if (c.memory_limit_mb > 0) {
    limit = std::getenv("RINGBOOST_FUZZ_NO_RLIMIT") != nullptr
                ? "env RINGBOOST_MEMORY_LIMIT_MB=" + std::to_string(c.memory_limit_mb) + " "
                : "prlimit --as=" + std::to_string(int64_t{c.memory_limit_mb} << 20) + " ";
  }
  const test::RunResult r =
      test::RunInDir(dir.path(), limit + "timeout -k 5 " + std::to_string(timeout_s) + " '" +
                                     Executable() + "' " + c.args);
  const std::string shown = c.name + " (ringboost " + c.args.substr(0, 200) + ")";
  const std::string err = r.err.substr(0, 2000);
  ++tally->runs;
  if (r.exit_code == 124 || r.exit_code == 137) {
    ++tally->hangs;
    ADD_FAILURE() << shown << ": no end within " << timeout_s << " s";
    return;
  }
  if (r.exit_code != 0 && r.exit_code != 1) {
    ++tally->crashes;
    ADD_FAILURE() << shown << ": exit code " << r.exit_code << "\n" << err;
    return;
  }
  std::map<std::string, uintmax_t> after = ListFiles(dir.path());
  if (r.exit_code == 1) {
    ++tally->errors;
    if (after != before) {
      ++tally->partial;
      ADD_FAILURE() << shown << ": failed but changed the files of its folder";
    }
    const std::string why = UnclearError(r.err, c.expect == Expect::kError ? c.must_contain : "");
    if (!why.empty()) {
      ++tally->unclear;
      ADD_FAILURE() << shown << ": error message " << why << ":\n" << err;
    }
    if (c.expect == Expect::kSuccess) ADD_FAILURE() << shown << ": expected success\n" << err;
    return;
  }
  ++tally->successes;
  if (c.expect == Expect::kError) {
    ADD_FAILURE() << shown << ": accepted a malformed input";
  }
  for (const auto& [name, size] : after) {
    if (before.count(name) == 0 && size == 0) {
      ++tally->partial;
      ADD_FAILURE() << shown << ": wrote an empty " << name;
    }
  }
}

class FuzzFamily : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzFamily, NoCrashNoHangNoPartialOutputClearErrors) {
  const int stride = EnvInt("RINGBOOST_FUZZ_STRIDE", 1);
  const int timeout_s = EnvInt("RINGBOOST_FUZZ_TIMEOUT", 30);
  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < Corpus().size(); ++i) {
    const bool named = GetParam() == "issue";  // the issue's own cases: always all of them
    if (Corpus()[i].family != GetParam() || (!named && i % stride != 0)) continue;
    RunCase(Corpus()[i], timeout_s, &tally);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[fuzz] " << GetParam() << ": " << tally.runs << " runs of " << Executable()
            << " in " << seconds << " s: " << tally.errors << " clear errors, " << tally.successes
            << " successes, " << tally.crashes << " crashes, " << tally.hangs << " hangs, "
            << tally.partial << " partial outputs, " << tally.unclear << " unclear errors\n";
  EXPECT_GT(tally.runs, 0);
}

INSTANTIATE_TEST_SUITE_P(Corpus, FuzzFamily,
                         ::testing::Values("libsvm", "csv", "config", "uri", "side", "model",
                                           "issue"),
                         [](const auto& info) { return info.param; });

TEST(FuzzCorpus, AtLeast500CasesOfEveryFamilyUniquelyNamed) {
  std::map<std::string, int> per_family;
  std::set<std::string> names;
  for (const FuzzCase& c : Corpus()) {
    ++per_family[c.family];
    EXPECT_TRUE(names.insert(c.name).second) << "two cases named " << c.name;
  }
  EXPECT_GE(Corpus().size(), 500u);
  EXPECT_EQ(per_family.size(), 7u);
  for (const auto& [family, n] : per_family) {
    std::cout << "[fuzz] " << family << ": " << n << " cases\n";
    EXPECT_GE(n, 8) << family;
  }
}

TEST(FuzzCorpus, SameCasesEveryTime) {
  const std::vector<FuzzCase> again = test::FuzzCorpus();
  ASSERT_EQ(again.size(), Corpus().size());
  for (std::size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].files, Corpus()[i].files) << again[i].name;
  }
}

}  // namespace
}  // namespace ringboost
