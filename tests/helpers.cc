#include "helpers.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ringboost::test {

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "ringboost-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

ScopedEnv::ScopedEnv(const char* name, const std::string& value) : name_(name) {
  const char* old = std::getenv(name);
  had_ = old != nullptr;
  if (had_) old_ = old;
  setenv(name, value.c_str(), 1);
}

ScopedEnv::~ScopedEnv() {
  if (had_) {
    setenv(name_, old_.c_str(), 1);
  } else {
    unsetenv(name_);
  }
}

std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool FileExists(const std::string& path) { return fs::exists(path); }

std::string SourceDir() { return RINGBOOST_SOURCE_DIR; }

std::string SharedDataDir() {
  fs::path p = fs::path(RINGBOOST_SOURCE_DIR) / ".." / "shared" / "data";
  return fs::exists(p) ? fs::canonical(p).string() : std::string();
}

std::string SharedGoldenDir() {
  fs::path p = fs::path(RINGBOOST_SOURCE_DIR) / ".." / "shared" / "golden";
  return fs::exists(p) ? fs::canonical(p).string() : std::string();
}

}  // namespace ringboost::test
