#include "learner/run_identity.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "common/params_table.h"
#include "common/random.h"
#include "common/threads.h"
#include "data/uri.h"

namespace ringboost {
namespace {

// Version of the identity text: a checkpoint written under another version is another run.
constexpr const char* kIdentityKey = "identity_format";
constexpr const char* kIdentityFormat = "identity_format=1";

// Keys that do not change the trees, or that are recorded by other lines.
const std::set<std::string>& NotShapingTheModel() {
  static const std::set<std::string> keys = {
      "task", "num_round", "nthread", "verbosity", "device", "communicator",
      // recorded with their files' facts below
      "data", "eval[NAME]", "test:data", "model_in",
      // outputs
      "model_out", "model_dir", "save_period", "checkpoint_dir", "checkpoint_mismatch", "name_pred",
      "pred_margin", "pred_layout", "ntree_limit", "iteration_begin", "iteration_end", "name_dump",
      "dump_format", "dump_stats", "fmap", "dump_tree", "dump_render", "eval_history",
      // they decide where early stopping stops: recorded only when it is on
      "eval_metric", "eval_train", "early_stopping_rounds"};
  return keys;
}

uint32_t FloatBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

// Rank 0's view of a URI's files: canonical paths and sizes, ';'-separated.
void AddFiles(const std::string& key, const std::string& uri, std::ostringstream* out) {
  std::string paths, sizes;
  for (const std::string& file : ParseUri(uri).files) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(file, ec);
    paths += (paths.empty() ? "" : ";") + (ec ? file : canonical.string());
    struct stat st;
    const bool found = ::stat(file.c_str(), &st) == 0;
    sizes += (sizes.empty() ? "" : ";") + (found ? std::to_string(st.st_size) : "?");
  }
  *out << key << "=" << paths << "\n" << key << ".bytes=" << sizes << "\n";
}

// The lines of one data set: its files (rank 0), rows, columns and fingerprint (collective).
void AddDataSet(const std::string& key, const std::string& uri, const DataSet& data,
                rabit::Communicator* comm, int nthread, std::ostringstream* out) {
  const uint64_t rows = comm->AllreduceValue<uint64_t>(data.NumRows(), rabit::Op::kSum);
  const uint64_t cols = comm->AllreduceValue<uint64_t>(data.num_col, rabit::Op::kMax);
  const uint64_t fingerprint = DataFingerprint(data, comm, nthread);
  if (comm->Rank() == 0) AddFiles(key, uri, out);
  *out << key << ".rows=" << rows << "\n"
       << key << ".columns=" << cols << "\n"
       << key << ".fingerprint=" << Hex(fingerprint) << "\n";
}

std::map<std::string, std::string> Lines(const std::string& text) {
  std::map<std::string, std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) lines[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return lines;
}

}  // namespace

uint64_t DataFingerprint(const DataSet& data, rabit::Communicator* comm, int nthread) {
  const int world = comm->WorldSize();
  std::vector<uint64_t> counts(2 * world);
  const uint64_t groups = data.group_ptr.empty() ? 0 : data.group_ptr.size() - 1;
  const uint64_t mine[2] = {data.NumRows(), groups};
  ThrowIfError(comm->AllgatherRaw(mine, sizeof(mine), counts.data()));
  uint64_t first_row = 0, first_group = 0;
  for (int r = 0; r < comm->Rank(); ++r) {
    first_row += counts[2 * r];
    first_group += counts[2 * r + 1];
  }
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(ResolveThreads(nthread)) schedule(static)
  for (int64_t i = 0; i < rows; ++i) {
    uint64_t h = Mix64(first_row + static_cast<uint64_t>(i));
    h = Mix64(h ^ FloatBits(data.label[i]));
    if (!data.weight.empty()) h = Mix64(h ^ (uint64_t{1} << 32 | FloatBits(data.weight[i])));
    if (!data.label_lower_bound.empty()) {  // survival:aft's intervals
      h = Mix64(h ^ (uint64_t{2} << 32 | FloatBits(data.label_lower_bound[i])));
      h = Mix64(h ^ (uint64_t{3} << 32 | FloatBits(data.label_upper_bound[i])));
    }
    for (uint64_t k = data.row_ptr[i]; k < data.row_ptr[i + 1]; ++k) {
      h = Mix64(h ^ (static_cast<uint64_t>(data.index[k]) << 32 | FloatBits(data.value[k])));
    }
    sum += h;
  }
  for (uint64_t g = 0; g < groups; ++g) {
    const uint64_t size = data.group_ptr[g + 1] - data.group_ptr[g];
    sum += Mix64(Mix64(~(first_group + g)) ^ size);
  }
  return comm->AllreduceValue<uint64_t>(sum, rabit::Op::kSum);
}

std::string RunIdentity(const Params& params, const DataSet& train,
                        const std::vector<std::pair<std::string, DataSet>>& evals,
                        const std::string& model_in_text, int model_in_rounds,
                        rabit::Communicator* comm) {
  std::ostringstream out;
  out << kIdentityFormat << "\n";
  const bool early_stopping = params.early_stopping_rounds > 0;
  for (const ParamSpec& spec : ParamTable()) {
    if (spec.ignored()) continue;
    const bool shapes = NotShapingTheModel().count(spec.name) == 0;
    const bool decides_the_stop =
        early_stopping &&
        (std::string(spec.name) == "eval_metric" || std::string(spec.name) == "eval_train" ||
         std::string(spec.name) == "early_stopping_rounds");
    if (shapes || decides_the_stop) out << spec.name << "=" << ValueText(spec, params) << "\n";
  }
  AddDataSet("data", params.data, train, comm, params.nthread, &out);
  if (!params.model_in.empty()) {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(params.model_in, ec);
    out << "model_in=" << (ec ? params.model_in : canonical.string()) << "\n"
        << "model_in.rounds=" << model_in_rounds << "\n"
        << "model_in.fingerprint=" << Hex(TextFingerprint(model_in_text)) << "\n";
  }
  if (early_stopping) {
    for (std::size_t i = 0; i < evals.size(); ++i) {
      AddDataSet("eval[" + evals[i].first + "]", params.evals[i].second, evals[i].second, comm,
                 params.nthread, &out);
    }
  }
  return out.str();
}

bool IsRunIdentity(const std::string& config) {
  return config.rfind(std::string(kIdentityKey) + "=", 0) == 0;
}

std::string ObjectiveConfig(const Params& params) {
  std::ostringstream out;
  for (const ParamSpec& spec : ParamTable()) {
    const std::string name = spec.name;
    const bool objective = std::string(spec.section) == "Objective and metrics" &&
                           NotShapingTheModel().count(name) == 0;
    if (spec.ignored() || !(objective || (name == "max_delta_step" && params.IsSet(name)))) {
      continue;
    }
    out << name << "=" << ValueText(spec, params) << "\n";
  }
  return out.str();
}

std::string IdentityDifferences(const std::string& recorded, const std::string& now) {
  const auto before = Lines(recorded), after = Lines(now);
  std::set<std::string> keys;
  for (const auto& entry : before) keys.insert(entry.first);
  for (const auto& entry : after) keys.insert(entry.first);
  std::string differences;
  for (const std::string& key : keys) {
    auto value = [key](const std::map<std::string, std::string>& lines) {
      auto it = lines.find(key);
      return it == lines.end() ? std::string("(not recorded)") : "'" + it->second + "'";
    };
    if (value(before) == value(after)) continue;
    differences += (differences.empty() ? "" : ";\n  ") + key + " was " + value(before) + ", now " +
                   value(after);
  }
  return differences;
}

std::string Hex(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t TextFingerprint(const std::string& text) {
  uint64_t h = Mix64(text.size());
  for (std::size_t at = 0; at < text.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, text.data() + at, std::min<std::size_t>(8, text.size() - at));
    h = Mix64(h ^ word);
  }
  return h;
}

}  // namespace ringboost
