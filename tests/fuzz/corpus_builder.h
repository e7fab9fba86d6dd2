// What the fuzz corpus's families share (corpus.h): the fixed random recipe, the base inputs
// every family mutates, and the Builder that names and collects the cases. Internal to
// tests/fuzz.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/corpus.h"

namespace ringboost::test {

// xorshift64 from a fixed seed: the same corpus every run.
class Recipe {
 public:
  uint64_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t state_ = 0x9e3779b97f4a7c15ull;
};

inline const char* const kConf =
    "objective = binary:logistic\nnum_round = 2\nmax_depth = 3\nnthread = 1\n"
    "data = \"train.txt\"\nmodel_out = \"out.model\"\n";
inline const char* const kTrain = "train c.conf";
inline const char* const kCsvArgs = "train c.conf 'data=train.csv?format=csv&label_column=0'";

// 20 rows, features 0..3, a binary label: every line is "<label> 0:v 1:v 2:v 3:v".
inline std::vector<std::string> TrainRows() {
  std::vector<std::string> rows;
  for (int i = 0; i < 20; ++i) {
    rows.push_back(std::to_string(i % 2) + " 0:" + std::to_string(i) +
                   " 1:" + std::to_string(i % 5) + ".5 2:" + std::to_string(20 - i) + " 3:0.25");
  }
  return rows;
}
inline std::string Join(const std::vector<std::string>& rows) {
  std::string out;
  for (const std::string& r : rows) out += r + "\n";
  return out;
}
inline std::string TrainText() { return Join(TrainRows()); }
inline std::string CsvText() {
  std::string out;
  for (int i = 0; i < 20; ++i) {
    out += std::to_string(i % 2) + "," + std::to_string(i) + "," + std::to_string(i % 5) + ".5," +
           std::to_string(20 - i) + "\n";
  }
  return out;
}

// A valid model: 2 rounds of binary:logistic, 3 features, trees of depth 1.
inline std::string ModelTree(int feature, const char* cond) {
  return std::string("{\"num_nodes\":3,\"parents\":[-1,0,0],\"left_children\":[1,-1,-1],") +
         "\"right_children\":[2,-1,-1],\"split_indices\":[" + std::to_string(feature) +
         ",0,0],\"split_conditions\":[" + cond +
         ",0.0,0.0],\"default_left\":[1,0,0],\"leaf_values\":[0.0,-0.2,0.3],"
         "\"base_weights\":[0.1,-1.0,1.0],\"loss_changes\":[5.5,0.0,0.0],"
         "\"sum_hessian\":[5.0,2.5,2.5]}";
}
inline std::string ModelJson(const std::string& learner_extra = "", const std::string& trees = "") {
  return "{\"format\":\"ringboost-model\",\"version\":1,\"learner\":{\"objective\":"
         "\"binary:logistic\",\"base_score\":0.5,\"base_margin\":0.0,\"num_class\":0,"
         "\"num_groups\":1,\"num_feature\":3,\"num_rounds\":2,\"best_iteration\":-1,"
         "\"best_score\":\"0\",\"feature_names\":[],\"config\":\"\"" +
         learner_extra + "},\"trees\":[" +
         (trees.empty() ? ModelTree(0, "9.5") + "," + ModelTree(2, "10.5") : trees) +
         "],\"tree_group\":[0,0]}\n";
}

inline const char* const kPredict =
    "predict c.conf model_in=m.json test:data=train.txt name_pred=pred.txt";
inline const char* const kDump = "dump m.json -o dump.txt";
inline const char* const kDumpJson = "dump m.json --format json --with-stats -o dump.json";

class Builder {
 public:
  std::vector<FuzzCase> cases;

  void Add(const std::string& family, const std::string& name, FuzzCase c) {
    c.family = family;
    c.name = family + "_" + name;
    cases.push_back(std::move(c));
  }
  // A training run on `train` (LibSVM) with the base config and `extra` arguments.
  void Train(const std::string& family, const std::string& name, const std::string& train,
             Expect expect, const std::string& contain = "", const std::string& extra = "") {
    Add(family, name,
        {"", "", {{"c.conf", kConf}, {"train.txt", train}}, kTrain + extra, expect, contain});
  }
  void Csv(const std::string& name, const std::string& csv, Expect expect,
           const std::string& contain = "train.csv:") {
    Add("csv", name, {"", "", {{"c.conf", kConf}, {"train.csv", csv}}, kCsvArgs, expect, contain});
  }
  // A model file used by predict (even index) or a dump (odd).
  void Model(const std::string& name, const std::string& model, Expect expect,
             const std::string& contain = "m.json") {
    const char* args = cases.size() % 3 == 0 ? kPredict : cases.size() % 3 == 1 ? kDump : kDumpJson;
    Add("model", name,
        {"",
         "",
         {{"c.conf", kConf}, {"train.txt", TrainText()}, {"m.json", model}},
         args,
         expect,
         contain});
  }
};

// The families of malformed data, config, URI and side-file inputs (corpus_inputs.cc), in the
// corpus's order; the model, memory and issue families are in corpus.cc.
void LibSVMCases(Builder* b, Recipe* recipe);
void CsvCases(Builder* b, Recipe* recipe);
void ConfigCases(Builder* b);
void UriCases(Builder* b);
void SideFileCases(Builder* b);

}  // namespace ringboost::test
