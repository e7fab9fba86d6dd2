#include "fuzz/corpus.h"

#include <cstdint>
#include <string>
#include <utility>

namespace ringboost::test {
namespace {

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

const char* kConf =
    "objective = binary:logistic\nnum_round = 2\nmax_depth = 3\nnthread = 1\n"
    "data = \"train.txt\"\nmodel_out = \"out.model\"\n";
const char* kTrain = "train c.conf";
const char* kCsvArgs = "train c.conf 'data=train.csv?format=csv&label_column=0'";

// 20 rows, features 0..3, a binary label: every line is "<label> 0:v 1:v 2:v 3:v".
std::vector<std::string> TrainRows() {
  std::vector<std::string> rows;
  for (int i = 0; i < 20; ++i) {
    rows.push_back(std::to_string(i % 2) + " 0:" + std::to_string(i) +
                   " 1:" + std::to_string(i % 5) + ".5 2:" + std::to_string(20 - i) + " 3:0.25");
  }
  return rows;
}
std::string Join(const std::vector<std::string>& rows) {
  std::string out;
  for (const std::string& r : rows) out += r + "\n";
  return out;
}
std::string TrainText() { return Join(TrainRows()); }
std::string CsvText() {
  std::string out;
  for (int i = 0; i < 20; ++i) {
    out += std::to_string(i % 2) + "," + std::to_string(i) + "," + std::to_string(i % 5) + ".5," +
           std::to_string(20 - i) + "\n";
  }
  return out;
}

// A valid model: 2 rounds of binary:logistic, 3 features, trees of depth 1.
std::string ModelTree(int feature, const char* cond) {
  return std::string("{\"num_nodes\":3,\"parents\":[-1,0,0],\"left_children\":[1,-1,-1],") +
         "\"right_children\":[2,-1,-1],\"split_indices\":[" + std::to_string(feature) +
         ",0,0],\"split_conditions\":[" + cond +
         ",0.0,0.0],\"default_left\":[1,0,0],\"leaf_values\":[0.0,-0.2,0.3],"
         "\"base_weights\":[0.1,-1.0,1.0],\"loss_changes\":[5.5,0.0,0.0],"
         "\"sum_hessian\":[5.0,2.5,2.5]}";
}
std::string ModelJson(const std::string& learner_extra = "", const std::string& trees = "") {
  return "{\"format\":\"ringboost-model\",\"version\":1,\"learner\":{\"objective\":"
         "\"binary:logistic\",\"base_score\":0.5,\"base_margin\":0.0,\"num_class\":0,"
         "\"num_groups\":1,\"num_feature\":3,\"num_rounds\":2,\"best_iteration\":-1,"
         "\"best_score\":\"0\",\"feature_names\":[],\"config\":\"\"" +
         learner_extra + "},\"trees\":[" +
         (trees.empty() ? ModelTree(0, "9.5") + "," + ModelTree(2, "10.5") : trees) +
         "],\"tree_group\":[0,0]}\n";
}

const char* kPredict = "predict c.conf model_in=m.json test:data=train.txt name_pred=pred.txt";
const char* kDump = "dump m.json -o dump.txt";
const char* kDumpJson = "dump m.json --format json --with-stats -o dump.json";

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

void LibSVMCases(Builder* b, Recipe* recipe) {
  struct Token {
    const char* text;
    Expect expect;
  };
  const std::string long_value = "1:" + std::string(100000, '9');
  const std::string long_token(200000, 'x');
  const std::vector<Token> features = {
      {"abc", Expect::kError},
      {":", Expect::kError},
      {"1:", Expect::kError},
      {":1", Expect::kError},
      {"-1:1", Expect::kError},
      {"1:1:1", Expect::kError},
      {"2147483647:1", Expect::kError},
      {"99999999999999999999:1", Expect::kError},
      {"9:inf", Expect::kError},
      {"9:-inf", Expect::kError},
      {"9:1e39", Expect::kError},
      {"9:1.5.5", Expect::kError},
      {"9:--1", Expect::kError},
      {"9:1e", Expect::kError},
      {"3:1", Expect::kError},  // a duplicate of the row's 3
      {"a:1", Expect::kError},
      {"9:\x01", Expect::kError},
      {"\xff\xfe:1", Expect::kError},
      {"qid:1", Expect::kError},
      {"9:0x10", Expect::kError},
      {long_value.c_str(), Expect::kError},
      {long_token.c_str(), Expect::kError},
      {"9:nan", Expect::kEither},
      {"2147483646:1", Expect::kEither},
  };
  const std::vector<Token> labels = {
      {"nan", Expect::kError},   {"inf", Expect::kError},   {"-inf", Expect::kError},
      {"1e39", Expect::kError},  {"2", Expect::kError},     {"-1", Expect::kError},
      {"abc", Expect::kError},   {"1:abc", Expect::kError}, {"1:-1", Expect::kError},
      {"1:nan", Expect::kError}, {":", Expect::kError},     {"+", Expect::kError},
      {"0x1", Expect::kError},   {"1e", Expect::kError},    {"qid:1", Expect::kError},
      {"\x7f", Expect::kError},
  };
  const int rows_at[] = {0, 9, 19};
  for (std::size_t t = 0; t < features.size(); ++t) {
    for (int r : rows_at) {
      std::vector<std::string> rows = TrainRows();
      rows[r] += std::string(" ") + features[t].text;
      b->Train("libsvm", "feature" + std::to_string(t) + "_row" + std::to_string(r), Join(rows),
               features[t].expect, "train.txt:" + std::to_string(r + 1) + ":");
    }
  }
  for (std::size_t t = 0; t < labels.size(); ++t) {
    for (int r : rows_at) {
      std::vector<std::string> rows = TrainRows();
      rows[r] = labels[t].text + rows[r].substr(1);
      b->Train("libsvm", "label" + std::to_string(t) + "_row" + std::to_string(r), Join(rows),
               labels[t].expect, "train.txt:" + std::to_string(r + 1) + ":");
    }
  }
  const std::vector<Token> lines = {
      {std::string("\0\0\0", 3).c_str(), Expect::kError},
      {"\xff\xff", Expect::kError},
      {"1 qid:", Expect::kError},
      {"1 qid:-5 1:1", Expect::kError},
      {"1 qid:18446744073709551615 1:1", Expect::kError},
      {"1 qid:1 qid:2", Expect::kError},
      {"#only a comment", Expect::kEither},
      {"   ", Expect::kEither},
      {"1\t\t1:1\r", Expect::kEither},
      {"1 1:1 # 2:x", Expect::kEither},
  };
  for (std::size_t t = 0; t < lines.size(); ++t) {
    for (int r : rows_at) {
      std::vector<std::string> rows = TrainRows();
      rows[r] = t == 0 ? std::string("\0\0\0", 3) : std::string(lines[t].text);
      b->Train("libsvm", "line" + std::to_string(t) + "_row" + std::to_string(r), Join(rows),
               lines[t].expect, lines[t].expect == Expect::kError ? "train.txt:" : "");
    }
  }
  // Random byte replacements and truncations: may stay valid.
  const char kBytes[] = {':', ' ', '\n', '\0', '-', 'e', '.', '\xff', '#', 'q', '9', '\r'};
  const std::string base = TrainText();
  for (int i = 0; i < 60; ++i) {
    std::string text = base;
    for (int k = 0; k < 3; ++k) text[recipe->Below(text.size())] = kBytes[recipe->Below(12)];
    b->Train("libsvm", "flip" + std::to_string(i), text, Expect::kEither);
  }
  for (int i = 0; i < 30; ++i) {
    b->Train("libsvm", "cut" + std::to_string(i), base.substr(0, recipe->Below(base.size())),
             Expect::kEither);
  }
}

void CsvCases(Builder* b, Recipe* recipe) {
  const std::vector<std::string> bad = {
      "abc",   "1e39", "inf", "--1", "\x01", "0x", "1e", "+-1", std::string(50000, '7') + "e99999",
      "1.2.3", "\xff"};
  for (std::size_t t = 0; t < bad.size(); ++t) {
    for (int r : {0, 10, 19}) {
      for (int col : {0, 2}) {
        std::string text;
        std::string csv = CsvText();
        int line = 0;
        std::size_t start = 0;
        for (std::size_t p = 0; p <= csv.size(); ++p) {
          if (p < csv.size() && csv[p] != '\n') continue;
          std::string row = csv.substr(start, p - start);
          if (line == r && p < csv.size()) {
            std::size_t a = 0;
            for (int c = 0; c < col; ++c) a = row.find(',', a) + 1;
            std::size_t e = row.find(',', a);
            row = row.substr(0, a) + bad[t] + (e == std::string::npos ? "" : row.substr(e));
          }
          if (p < csv.size()) text += row + "\n";
          start = p + 1;
          ++line;
        }
        b->Csv("cell" + std::to_string(t) + "_r" + std::to_string(r) + "_c" + std::to_string(col),
               text, Expect::kError, "train.csv:" + std::to_string(r + 1) + ":");
      }
    }
  }
  // Rows of other lengths read as dmlc-core reads them (absent cells missing): valid or an error.
  b->Csv("ragged_short", CsvText() + "1,2\n", Expect::kEither, "");
  b->Csv("ragged_long", CsvText() + "1,2,3,4,5,6\n", Expect::kEither, "");
  b->Csv("empty", "", Expect::kError, "train.csv");
  b->Csv("only_commas", ",,,\n", Expect::kEither, "");
  b->Csv("nul_bytes", std::string(40, '\0'), Expect::kError, "train.csv");
  const std::string base = CsvText();
  for (int i = 0; i < 30; ++i) {
    std::string text = base;
    const char kBytes[] = {',', '\n', '\0', '-', 'e', '.', '\xff', '\t'};
    for (int k = 0; k < 2; ++k) text[recipe->Below(text.size())] = kBytes[recipe->Below(8)];
    b->Csv("flip" + std::to_string(i), text, Expect::kEither, "");
  }
}

void ConfigCases(Builder* b) {
  const std::vector<std::string> keys = {
      "eta",       "max_depth",  "min_child_weight", "subsample", "colsample_bytree", "lambda",
      "alpha",     "gamma",      "max_bin",          "num_round", "nthread",          "seed",
      "num_class", "base_score", "max_delta_step",   "max_leaves"};
  const std::vector<std::pair<std::string, Expect>> values = {
      {"abc", Expect::kError},        {"1e309", Expect::kError},
      {"\x01", Expect::kError},       {"1 2", Expect::kError},
      {"-1", Expect::kEither},        {"nan", Expect::kEither},
      {"inf", Expect::kEither},       {"99999999999999999999", Expect::kEither},
      {"2147483648", Expect::kEither}};
  for (const std::string& key : keys) {
    for (std::size_t v = 0; v < values.size(); ++v) {
      b->Add(
          "config", key + "_" + std::to_string(v),
          {"",
           "",
           {{"c.conf", kConf + key + " = " + values[v].first + "\n"}, {"train.txt", TrainText()}},
           kTrain,
           values[v].second,
           values[v].second == Expect::kError ? key : ""});
    }
  }
  const std::vector<std::string> lines = {"eta",
                                          "= 1",
                                          "eta = ",
                                          "etta = 0.1",
                                          "eval[ = x",
                                          "eval[] = x",
                                          "data = \"x",
                                          "[section]",
                                          "eta == 1",
                                          "\x01\x02 = 3",
                                          "eta = \x1b[31mred",
                                          std::string(300000, 'k') + " = 1",
                                          "\xff\xfe = 1",
                                          "objective = binary:foo",
                                          "booster = gblinear",
                                          "grow_policy = sideways",
                                          "device = cuda:99999999999",
                                          "eval_metric = ndcg@-1",
                                          "early_stopping_rounds = -3",
                                          "task = fly"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    b->Add("config", "line" + std::to_string(i),
           {"",
            "",
            {{"c.conf", kConf + lines[i] + "\n"}, {"train.txt", TrainText()}},
            kTrain,
            Expect::kError,
            ""});
  }
  b->Add("config", "binary_garbage",
         {"",
          "",
          {{"c.conf", std::string("\x7f"
                                  "ELF\x02\x01\x01\0\0\0",
                                  10)}},
          kTrain,
          Expect::kError,
          "c.conf"});
  b->Add("config", "missing_file", {"", "", {}, kTrain, Expect::kError, "c.conf"});
}

void UriCases(Builder* b) {
  const std::vector<std::string> uris = {"train.txt?format=xyz",
                                         "train.txt?label_column=-1",
                                         "train.txt?label_column=abc",
                                         "train.txt?format=csv&label_column=99999",
                                         "train.txt?delimiter=",
                                         "train.txt?format=csv&weight_column=0&label_column=0",
                                         "train.txt?",
                                         "train.txt??",
                                         "train.txt?format",
                                         "train.txt?=csv",
                                         "train.txt?format=csv&delimiter=ab",
                                         "train.txt?unknown=1",
                                         ";",
                                         ";;",
                                         "absent.txt",
                                         "absent.txt;train.txt",
                                         "hdfs://host/x",
                                         "s3://bucket/x",
                                         "file:///nonexistent/x",
                                         "empty_dir",
                                         "train.txt?label_column=99999999999999999999",
                                         "train.txt?format=csv&label_column=0&weight_column=-5",
                                         "train.txt\x01\x02",
                                         "train.txt#cache",
                                         "train.txt?format=csv&delimiter=%00",
                                         std::string(5000, 'u'),
                                         "train.txt?format=libsvm&format=csv&format=libsvm",
                                         ".",
                                         "/",
                                         "train.txt?label_column=0&label_column=1&format=csv"};
  for (std::size_t i = 0; i < uris.size(); ++i) {
    FuzzCase c{"",
               "",
               {{"c.conf", kConf}, {"train.txt", TrainText()}, {"empty_dir/.keep", ""}},
               "train c.conf 'data=" + uris[i] + "'",
               Expect::kEither,
               ""};
    b->Add("uri", std::to_string(i), c);
    FuzzCase e{"",
               "",
               {{"c.conf", kConf}, {"train.txt", TrainText()}, {"empty_dir/.keep", ""}},
               "train c.conf 'eval[e]=" + uris[i] + "'",
               Expect::kEither,
               ""};
    b->Add("uri", "eval" + std::to_string(i), e);
  }
}

void SideFileCases(Builder* b) {
  const char* rank = "objective=rank:pairwise";
  const std::vector<std::pair<std::string, std::string>> queries = {
      {"sum_wraps", "1\n18446744073709551615\n20\n"},
      {"huge_first", "18446744073709551615\n21\n"},
      {"huge_only", "18446744073709551615\n"},
      {"over_u64", "99999999999999999999999\n"},
      {"zero", "0\n20\n"},
      {"negative", "-1\n21\n"},
      {"word", "ten\n10\n"},
      {"short", "5\n5\n"},
      {"long", "10\n10\n10\n"},
      {"nul", std::string("10\0\n10\n", 7)},
      {"float", "10.5\n9.5\n"}};
  for (const auto& [name, text] : queries) {
    b->Add("side", "query_" + name,
           {"",
            "",
            {{"c.conf", kConf}, {"train.txt", TrainText()}, {"train.txt.query", text}},
            std::string(kTrain) + " " + rank,
            Expect::kError,
            "train.txt"});
  }
  const std::vector<std::pair<std::string, std::string>> weights = {
      {"nan", "nan\n"}, {"negative", "-1\n"}, {"word", "w\n"},
      {"inf", "inf\n"}, {"few", "1\n1\n"},    {"many", ""}};
  for (const auto& [name, line] : weights) {
    std::string text;
    for (int i = 0; i < 20; ++i) text += i == 7 ? line : "1\n";
    if (name == "few") text = "1\n1\n";
    if (name == "many") text = std::string(21 * 2, '1').replace(1, 1, "\n");
    b->Add("side", "weight_" + name,
           {"",
            "",
            {{"c.conf", kConf}, {"train.txt", TrainText()}, {"train.txt.weight", text}},
            kTrain,
            Expect::kError,
            "train.txt"});
  }
  b->Add("side", "query_and_group",
         {"",
          "",
          {{"c.conf", kConf},
           {"train.txt", TrainText()},
           {"train.txt.query", "20\n"},
           {"train.txt.group", "20\n"}},
          std::string(kTrain) + " " + rank,
          Expect::kError,
          "train.txt"});
}

void ModelCases(Builder* b, Recipe* recipe) {
  const std::string good = ModelJson();
  const std::vector<std::string> keys = {
      "\"objective\":",        "\"base_score\":",    "\"base_margin\":",    "\"num_class\":",
      "\"num_groups\":",       "\"num_feature\":",   "\"num_rounds\":",     "\"best_iteration\":",
      "\"best_score\":",       "\"feature_names\":", "\"config\":",         "\"num_nodes\":",
      "\"parents\":",          "\"left_children\":", "\"right_children\":", "\"split_indices\":",
      "\"split_conditions\":", "\"default_left\":",  "\"leaf_values\":",    "\"tree_group\":",
      "\"version\":",          "\"format\":"};
  const std::vector<std::string> values = {"null",       "\"x\"",      "[]",
                                           "{}",         "true",       "-1",
                                           "2147483647", "4294967296", "18446744073709551615",
                                           "1e300",      "[99999999]", "[-2,0,0]"};
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::size_t at = good.find(keys[k]) + keys[k].size();
    std::size_t end = at;
    int depth = 0;
    for (; end < good.size(); ++end) {  // the value: up to the ',' or '}' at its own level
      const char c = good[end];
      if (c == '[' || c == '{') ++depth;
      if (c == ']' || c == '}') {
        if (depth == 0) break;
        --depth;
      }
      if (c == ',' && depth == 0) break;
    }
    for (std::size_t v = 0; v < values.size(); ++v) {
      b->Model("field" + std::to_string(k) + "_" + std::to_string(v),
               good.substr(0, at) + values[v] + good.substr(end), Expect::kEither);
    }
  }
  for (int i = 0; i < 30; ++i) {
    b->Model("cut" + std::to_string(i), good.substr(0, 1 + recipe->Below(good.size() - 3)),
             Expect::kError);
  }
  for (int i = 0; i < 30; ++i) {
    std::string text = good;
    const char kBytes[] = {'[', ']', '{', '}', '"', ',', ':', '9', '-', '\0', '\\'};
    text[recipe->Below(text.size())] = kBytes[recipe->Below(11)];
    b->Model("flip" + std::to_string(i), text, Expect::kEither);
  }
  b->Model("deep_array", std::string(100000, '[') + std::string(100000, ']'), Expect::kError);
  b->Model("deep_object", "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}",
           Expect::kError);
  b->Model("deep_in_learner",
           ModelJson(",\"x\":" + std::string(100000, '{') + std::string(100000, '}')),
           Expect::kError);
  b->Model("not_json", "{\x01\x02\x03", Expect::kError);
  b->Model("xgboost_model", "{\"learner\":{},\"version\":[1,7,4]}", Expect::kError);
}

// A tree that is a chain: node 2k splits into leaf 2k+1 and node 2k+2 (num_nodes odd).
std::string ChainTree(int num_nodes) {
  std::string parents, left, right, ints, floats;
  for (int i = 0; i < num_nodes; ++i) {
    const bool split = i % 2 == 0 && i + 2 < num_nodes;
    const std::string sep = i == 0 ? "" : ",";
    parents += sep + std::to_string(i == 0 ? -1 : (i % 2 == 1 ? i - 1 : i - 2));
    left += sep + std::to_string(split ? i + 1 : -1);
    right += sep + std::to_string(split ? i + 2 : -1);
    ints += sep + "0";
    floats += sep + "0.5";
  }
  return "{\"num_nodes\":" + std::to_string(num_nodes) + ",\"parents\":[" + parents +
         "],\"left_children\":[" + left + "],\"right_children\":[" + right +
         "],\"split_indices\":[" + ints + "],\"split_conditions\":[" + floats +
         "],\"default_left\":[" + ints + "],\"leaf_values\":[" + floats + "],\"base_weights\":[" +
         floats + "],\"loss_changes\":[" + floats + "],\"sum_hessian\":[" + floats + "]}";
}

// Absurd sizes under a memory limit of 1 GiB (issue 24, item 7): each is refused before it is
// allocated, naming what needs the memory and how much.
void MemoryCases(Builder* b, const std::string& train) {
  const auto add = [&](const std::string& name, const std::string& model, const std::string& args,
                       const std::string& contain) {
    FuzzCase c{"", "", {{"c.conf", kConf}, {"train.txt", train}}, args, Expect::kError, contain};
    if (!model.empty()) c.files.push_back({"m.json", model});
    c.memory_limit_mb = 1024;
    b->Add("issue", name, c);
  };
  const auto with_features = [](const std::string& n) {
    return ModelJson().replace(ModelJson().find("\"num_feature\":3"), 15, "\"num_feature\":" + n);
  };
  add("memory_num_class_100M", "",
      std::string(kTrain) + " objective=multi:softmax num_class=100000000",
      "the training state needs");
  add("memory_nthread_1024", "", std::string(kTrain) + " nthread=1024", "nthread=1024 needs");
  add("memory_nthread_1024_predict", with_features("3"), std::string(kPredict) + " nthread=1024",
      "nthread=1024 needs");
  add("memory_interactions_100000_features", with_features("100000"),
      std::string(kPredict) + " pred_interactions=1", "pred_interactions needs");
  add("memory_contribs_2147483647_features", with_features("2147483647"),
      std::string(kPredict) + " pred_contribs=1", "pred_contribs needs");
  // UBJSON models whose counts claim 2^40 elements (a typed array, an object, a string).
  const auto big_endian = [](uint64_t v) {
    std::string out(8, '\0');
    for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
    return out;
  };
  const std::string head = "{L" + big_endian(7) + "learner";
  const uint64_t huge = uint64_t{1} << 40;
  for (const auto& [name, bytes] :
       {std::pair<std::string, std::string>{"typed_array",
                                            "[$d#L" + big_endian(huge) + std::string(16, '\0')},
        {"object", "{#L" + big_endian(huge)},
        {"string", "SL" + big_endian(huge) + "abc"}}) {
    FuzzCase c{"",
               "",
               {{"c.conf", kConf}, {"train.txt", train}, {"m.ubj", head + bytes}},
               "predict c.conf model_in=m.ubj test:data=train.txt name_pred=pred.txt",
               Expect::kError,
               "m.ubj"};
    c.memory_limit_mb = 1024;
    b->Add("issue", "memory_ubj_count_2^40_" + name, c);
  }
  // Limits that ask for nothing up front: memory follows the data, so this trains.
  FuzzCase c{"",
             "",
             {{"c.conf", kConf}, {"train.txt", train}},
             std::string(kTrain) +
                 " max_bin=65536 grow_policy=lossguide max_depth=0 max_leaves=2147483647",
             Expect::kSuccess,
             ""};
  c.memory_limit_mb = 1024;
  b->Add("issue", "memory_max_bin_depth_leaves", c);
}

// Each case named in issue 24, items 6 to 8.
void IssueCases(Builder* b) {
  const std::string train = TrainText();
  // num_feature 4: the data's ids 0-3 (a model with fewer features refuses wider data).
  std::string chain = ModelJson("", ChainTree(20001) + "," + ModelTree(1, "2.0"));
  chain.replace(chain.find("\"num_feature\":3"), 15, "\"num_feature\":4");
  const auto model_case = [&](const std::string& name, const std::string& model,
                              const std::string& args, Expect expect, const std::string& contain) {
    b->Add("issue", name,
           {"",
            "",
            {{"c.conf", kConf}, {"train.txt", train}, {"m.json", model}},
            args,
            expect,
            contain});
  };
  model_case("chain_dump_text", chain, kDump, Expect::kSuccess, "");
  model_case("chain_dump_json", chain, kDumpJson, Expect::kSuccess, "");
  model_case("chain_predict", chain, kPredict, Expect::kSuccess, "");
  model_case("json_100000_deep", std::string(100000, '[') + std::string(100000, ']'), kPredict,
             Expect::kError, "m.json");
  model_case(
      "num_feature_2147483647",
      ModelJson().replace(ModelJson().find("\"num_feature\":3"), 15, "\"num_feature\":2147483647"),
      kPredict, Expect::kSuccess, "");
  model_case(
      "num_feature_200M",
      ModelJson().replace(ModelJson().find("\"num_feature\":3"), 15, "\"num_feature\":200000000"),
      kPredict, Expect::kSuccess, "");
  model_case(
      "groups_100M",
      ModelJson().replace(ModelJson().find("\"num_groups\":1"), 14, "\"num_groups\":100000000"),
      kPredict, Expect::kError, "num_groups");
  model_case("model_of_another_objective", ModelJson(),
             std::string(kTrain) +
                 " model_in=m.json "
                 "objective=reg:squarederror",
             Expect::kError, "objective=binary:logistic");
  const auto train_case = [&](const std::string& name, const std::string& args, Expect expect,
                              const std::string& contain) {
    b->Add("issue", name,
           {"", "", {{"c.conf", kConf}, {"train.txt", train}}, args, expect, contain});
  };
  train_case("nthread_100000", std::string(kTrain) + " nthread=100000", Expect::kError, "nthread");
  train_case("nthread_2147483647", std::string(kTrain) + " nthread=2147483647", Expect::kError,
             "nthread");
  train_case("eta_1e39", std::string(kTrain) + " eta=1e39", Expect::kError, "eta");
  train_case("eta_overflows_predictions",
             std::string(kTrain) + " objective=reg:squarederror eta=3e38 num_round=4",
             Expect::kError, "eta");
  b->Add("issue", "query_sum_overflows",
         {"",
          "",
          {{"c.conf", kConf},
           {"train.txt", train},
           {"train.txt.query", "1\n18446744073709551615\n20\n"}},
          std::string(kTrain) + " objective=rank:pairwise",
          Expect::kError,
          "train.txt.query"});
  std::vector<std::string> rows = TrainRows();
  rows[7] += " 2147483646:1";
  b->Add("issue", "libsvm_id_2147483646",
         {"", "", {{"c.conf", kConf}, {"train.txt", Join(rows)}}, kTrain, Expect::kSuccess, ""});
  b->Add("issue", "eval_id_2147483646",
         {"",
          "",
          {{"c.conf", kConf}, {"train.txt", train}, {"e.txt", Join(rows)}},
          std::string(kTrain) + " eval[e]=e.txt",
          Expect::kSuccess,
          ""});
  rows[7] = TrainRows()[7] + " 2147483647:1";
  b->Add("issue", "eval_id_2147483647",
         {"",
          "",
          {{"c.conf", kConf}, {"train.txt", train}, {"e.txt", Join(rows)}},
          std::string(kTrain) + " eval[e]=e.txt",
          Expect::kError,
          "e.txt:8:"});
  train_case("message_control_bytes", std::string(kTrain) + " 'et\x1b[31ma=1'", Expect::kError,
             "\\x1b");
  MemoryCases(b, train);
}

}  // namespace

std::vector<FuzzCase> FuzzCorpus() {
  Builder b;
  Recipe recipe;
  LibSVMCases(&b, &recipe);
  CsvCases(&b, &recipe);
  ConfigCases(&b);
  UriCases(&b);
  SideFileCases(&b);
  ModelCases(&b, &recipe);
  IssueCases(&b);
  return b.cases;
}

}  // namespace ringboost::test
