// EvalHistory and ReadEvalHistory (eval_history.h).
#include "cli/eval_history.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
#include "common/logging.h"

namespace ringboost {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Shortest text that reads back as the same double: the eval log's numbers in full (the log
// prints 17 decimals, as XGBoost).
std::string Number(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

EvalCurves ReadJsonHistory(const std::string& path, const std::string& text) {
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    RB_FAIL(path << ": not an eval history (JSON): " << e.what());
  }
  EvalCurves curves;
  if (!doc.is_object())
    RB_FAIL(path << ": not an eval history: expected {\"set\": {\"metric\": [...]}}");
  for (const auto& [set, metrics] : doc.items()) {
    if (!metrics.is_object()) RB_FAIL(path << ": eval set \"" << set << "\" is not an object");
    for (const auto& [metric, values] : metrics.items()) {
      std::vector<double> v;
      for (const auto& x : values) {
        if (!x.is_number()) RB_FAIL(path << ": " << set << "-" << metric << " holds a non-number");
        v.push_back(x.get<double>());
      }
      curves.names.push_back(set + "-" + metric);
      curves.values.push_back(std::move(v));
    }
  }
  const std::size_t rounds = curves.values.empty() ? 0 : curves.values[0].size();
  for (std::size_t i = 0; i < rounds; ++i) curves.rounds.push_back(static_cast<int>(i));
  for (const auto& v : curves.values) {
    if (v.size() != rounds) RB_FAIL(path << ": the metrics have different numbers of rounds");
  }
  return curves;
}

std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  return fields;
}

EvalCurves ReadCsvHistory(const std::string& path, const std::string& text) {
  std::stringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("iteration,", 0) != 0) {
    RB_FAIL(path << ":1: not an eval history: the header must start with \"iteration,\"");
  }
  EvalCurves curves;
  std::vector<std::string> header = CsvFields(line);
  curves.names.assign(header.begin() + 1, header.end());
  curves.values.resize(curves.names.size());
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::vector<std::string> fields = CsvFields(line);
    if (fields.size() != header.size()) {
      RB_FAIL(path << ":" << number << ": " << fields.size() << " fields, the header has "
                   << header.size());
    }
    std::vector<double> row(fields.size());
    for (std::size_t k = 0; k < fields.size(); ++k) {
      const std::string& f = fields[k];
      auto res = std::from_chars(f.data(), f.data() + f.size(), row[k]);
      if (res.ec != std::errc() || res.ptr != f.data() + f.size()) {
        RB_FAIL(path << ":" << number << ": \"" << f << "\" is not a number");
      }
    }
    curves.rounds.push_back(static_cast<int>(row[0]));
    for (std::size_t k = 1; k < row.size(); ++k) curves.values[k - 1].push_back(row[k]);
  }
  return curves;
}

}  // namespace

EvalHistory::EvalHistory(std::string path, std::vector<std::string> sets)
    : path_(std::move(path)), sets_(std::move(sets)) {
  try {
    in_place_ = ResolveWriteTarget(path_).in_place;
  } catch (const Error&) {  // the output checks named it already; the writes will say why
  }
}

void EvalHistory::Add(int round, const std::vector<std::pair<std::string, double>>& results) {
  if (from_file_) {
    from_file_ = false;
    std::vector<std::string> names;
    for (const auto& r : results) names.push_back(r.first);
    if (names != names_) {
      RB_LOG(kWarning, "eval_history: " << path_ << " holds other results than this run's; its "
                                        << rounds_.size() << " earlier round(s) are dropped");
      names_.clear();
      rounds_.clear();
      values_.clear();
    }
  }
  if (names_.empty()) {
    for (const auto& r : results) names_.push_back(r.first);
  }
  std::vector<double> values;
  for (const auto& r : results) values.push_back(r.second);
  RB_CHECK_MSG(values.size() == names_.size(), "eval results changed between rounds");
  rounds_.push_back(round);
  values_.push_back(std::move(values));
  // Rewriting a FIFO each round would block once its reader has read one copy and left; a
  // device would get every copy one after another.
  if (!in_place_) WriteFileAtomic(path_, Text());
}

void EvalHistory::Finish() const {
  if (in_place_ && !rounds_.empty()) WriteFileAtomic(path_, Text());
}

void EvalHistory::ResumeAt(int round) {
  std::size_t keep = 0;
  while (keep < rounds_.size() && rounds_[keep] < round) ++keep;
  rounds_.resize(keep);
  values_.resize(keep);
  if (keep > 0 || round == 0 || ::access(path_.c_str(), F_OK) != 0) return;
  EvalCurves curves;
  try {
    curves = ReadEvalHistory(path_);
  } catch (const Error& e) {
    RB_LOG(kWarning, "eval_history: the earlier rounds are not kept: " << e.what());
    return;
  }
  names_ = curves.names;
  for (std::size_t r = 0; r < curves.rounds.size() && curves.rounds[r] < round; ++r) {
    std::vector<double> row;
    for (const std::vector<double>& values : curves.values) row.push_back(values[r]);
    rounds_.push_back(curves.rounds[r]);
    values_.push_back(std::move(row));
  }
  from_file_ = true;
}

std::string EvalHistory::Text() const { return EndsWith(path_, ".json") ? Json() : Csv(); }

std::string EvalHistory::Csv() const {
  std::string out = "iteration";
  for (const std::string& name : names_) out += "," + name;
  out += "\n";
  for (std::size_t r = 0; r < rounds_.size(); ++r) {
    out += std::to_string(rounds_[r]);
    for (double v : values_[r]) out += "," + Number(v);
    out += "\n";
  }
  return out;
}

std::pair<std::string, std::string> EvalHistory::Split(const std::string& name) const {
  // The longest set name that prefixes it: "a-b-logloss" is set a-b's, not a's, with both sets.
  const std::string* best = nullptr;
  for (const std::string& set : sets_) {
    if (name.rfind(set + "-", 0) == 0 && (best == nullptr || set.size() > best->size())) {
      best = &set;
    }
  }
  if (best != nullptr) return {*best, name.substr(best->size() + 1)};
  const std::size_t dash = name.find('-');
  return {name.substr(0, dash), dash == std::string::npos ? "" : name.substr(dash + 1)};
}

std::string EvalHistory::Json() const {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < names_.size(); ++k) {
    const auto [set, metric] = Split(names_[k]);
    nlohmann::ordered_json& values = doc[set][metric];
    values = nlohmann::ordered_json::array();
    for (const auto& round : values_) values.push_back(round[k]);
  }
  return doc.dump(2) + "\n";
}

EvalCurves ReadEvalHistory(const std::string& path) {
  const std::string text = ReadWholeFile(path);
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && text[start] == '{') return ReadJsonHistory(path, text);
  return ReadCsvHistory(path, text);
}

}  // namespace ringboost
