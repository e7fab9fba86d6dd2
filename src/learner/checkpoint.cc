#include "learner/checkpoint.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;

// The round of a file named checkpoint-NNNNNN.model, or -1.
int CheckpointRound(const std::string& name) {
  const std::string prefix = "checkpoint-", suffix = ".model";
  if (name.size() != prefix.size() + 6 + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  int round = 0;
  for (std::size_t i = prefix.size(); i < prefix.size() + 6; ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    round = round * 10 + (name[i] - '0');
  }
  return round;
}

// (round, path) of every checkpoint in dir.
std::vector<std::pair<int, std::string>> Checkpoints(const std::string& dir) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const int round = CheckpointRound(entry.path().filename().string());
    if (round >= 0) found.emplace_back(round, entry.path().string());
  }
  return found;
}

}  // namespace

std::string CheckpointPath(const std::string& dir, int rounds) {
  char name[32];
  std::snprintf(name, sizeof(name), "checkpoint-%06d.model", rounds);
  return dir + "/" + name;
}

std::string LoadNewestCheckpoint(const std::string& dir, rabit::Communicator* comm,
                                 std::string* path) {
  std::string text;
  if (comm->Rank() == 0) {
    int newest = -1;
    for (const auto& [round, file] : Checkpoints(dir)) {
      if (round > newest) {
        newest = round;
        *path = file;
      }
    }
    if (newest >= 0) text = ReadWholeFile(*path);
  }
  int64_t size = static_cast<int64_t>(text.size());
  comm->Broadcast(Span<int64_t>(&size, 1), 0);
  text.resize(static_cast<std::size_t>(size));
  if (size > 0) comm->Broadcast(Span<char>(text.data(), text.size()), 0);
  return text;
}

void WriteCheckpoint(const std::string& dir, const Model& model, int rounds) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) RB_FAIL("checkpoint_dir=" << dir << ": cannot create the folder: " << ec.message());
  WriteFileAtomic(CheckpointPath(dir, rounds), model.ToJson());
  for (const auto& [round, file] : Checkpoints(dir)) {
    if (round < rounds) fs::remove(file, ec);  // the newest one is enough to resume
  }
}

}  // namespace ringboost
