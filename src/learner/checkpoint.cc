#include "learner/checkpoint.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/logging.h"
#include "learner/run_identity.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;

// The round of a file named checkpoint-NNNNNN.model (six digits at least: CheckpointPath's
// %06d writes more from round 1,000,000 on), or -1.
int CheckpointRound(const std::string& name) {
  const std::string prefix = "checkpoint-", suffix = ".model";
  if (name.size() < prefix.size() + 6 + suffix.size() ||
      name.size() > prefix.size() + 10 + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  int64_t round = 0;
  for (std::size_t i = prefix.size(); i < name.size() - suffix.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    round = round * 10 + (name[i] - '0');
  }
  return round <= INT32_MAX ? static_cast<int>(round) : -1;
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

// Path of the newest checkpoint in dir, or "".
std::string Newest(const std::string& dir) {
  int newest = -1;
  std::string path;
  for (const auto& [round, file] : Checkpoints(dir)) {
    if (round > newest) newest = round, path = file;
  }
  return path;
}

enum Verdict : int64_t { kNoCheckpoint = 0, kResume = 1, kFresh = 2, kRefuse = 3 };

// A checkpoint's config ends with the fingerprint of its model's text as written with the bare
// identity for config (the model text reads back byte for byte): a damaged byte anywhere in the
// trees is found, not resumed into another model.
constexpr const char* kContentKey = "checkpoint_content=";

std::string ContentLine(Model model, const std::string& identity) {
  model.config = identity;
  return kContentKey + Hex(TextFingerprint(model.ToJson())) + "\n";
}

// Rank 0: reads the checkpoint at `path` into *text; why it is not this run's ("" when it is),
// with *damaged set when the file itself is at fault. Never throws: the other ranks wait for rank
// 0's verdict.
std::string WhyNotThisRun(const Params& params, const std::string& identity, int base_rounds,
                          const std::string& path, std::string* text, bool* damaged) {
  Model model;
  *damaged = false;
  try {
    *text = ReadWholeFile(path);
    model = Model::FromJson(*text, path);
  } catch (const std::exception& e) {
    *damaged = true;
    return std::string("it cannot be read (") + e.what() + ")";
  }
  if (!IsRunIdentity(model.config)) {
    return "it records no identity of its run (written by an older ringboost, or not a "
           "checkpoint)";
  }
  const std::size_t content = model.config.rfind(kContentKey);
  if (content == std::string::npos) {
    return "it records no checksum of its content (written by an older ringboost)";
  }
  const std::string recorded = model.config.substr(0, content);
  if (model.config.compare(content, std::string::npos, ContentLine(model, recorded)) != 0) {
    *damaged = true;
    return "its content does not match the checksum written with it (a damaged file)";
  }
  std::string why = IdentityDifferences(recorded, identity);
  const int rounds = model.num_rounds - base_rounds;
  if (why.empty() && rounds > params.num_round) {
    why = "it holds " + std::to_string(rounds) +
          " rounds, more than num_round=" + std::to_string(params.num_round) +
          " (fewer rounds are another model)";
  }
  return why;
}

}  // namespace

std::string CheckpointPath(const std::string& dir, int rounds) {
  char name[32];
  std::snprintf(name, sizeof(name), "checkpoint-%06d.model", rounds);
  return dir + "/" + name;
}

std::string BroadcastText(const std::string& text, int root, rabit::Communicator* comm) {
  std::string out = text;
  int64_t size = static_cast<int64_t>(out.size());
  comm->Broadcast(Span<int64_t>(&size, 1), root);
  out.resize(static_cast<std::size_t>(size));
  if (size > 0) comm->Broadcast(Span<char>(out.data(), out.size()), root);
  return out;
}

ResumePoint ResumeFromCheckpointDir(const Params& params, const std::string& identity,
                                    int base_rounds, rabit::Communicator* comm) {
  const std::string& dir = params.checkpoint_dir;
  int64_t verdict = kNoCheckpoint;
  std::string text, message;
  ResumePoint point;
  if (comm->Rank() == 0) {
    point.path = Newest(dir);
    if (!point.path.empty()) {
      bool damaged = false;
      const std::string why =
          WhyNotThisRun(params, identity, base_rounds, point.path, &text, &damaged);
      verdict = why.empty() ? kResume : params.checkpoint_mismatch == "fresh" ? kFresh : kRefuse;
      message = "checkpoint_dir=" + dir + " holds " +
                (damaged ? "a checkpoint it cannot trust (" : "a checkpoint of another run (") +
                point.path + "):\n  " + why;
    }
    if (verdict == kFresh) {
      LogNote(message + "; training from scratch (checkpoint_mismatch=fresh)");
      std::error_code ec;
      for (const auto& entry : Checkpoints(dir)) fs::remove(entry.second, ec);
    }
  }
  comm->Broadcast(Span<int64_t>(&verdict, 1), 0);
  if (verdict == kRefuse) {
    RB_FAIL(BroadcastText(message, 0, comm)
            << ".\nResuming it would not give the model asked for. To train from scratch, set "
               "checkpoint_mismatch=fresh (this run's checkpoints replace it) or remove the "
               "folder "
            << dir);
  }
  if (verdict != kResume) return point;
  point.found = true;
  point.model = Model::FromJson(BroadcastText(text, 0, comm), point.path);
  point.model.config.clear();
  return point;
}

void WriteCheckpoint(const std::string& dir, const Model& model, int rounds,
                     const std::string& identity) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) RB_FAIL("checkpoint_dir=" << dir << ": cannot create the folder: " << ec.message());
  Model recorded = model;
  recorded.config = identity + ContentLine(model, identity);
  WriteFileAtomic(CheckpointPath(dir, rounds), recorded.ToJson());
  for (const auto& [round, file] : Checkpoints(dir)) {
    if (round != rounds) fs::remove(file, ec);  // the newest one is enough to resume
  }
}

}  // namespace ringboost
