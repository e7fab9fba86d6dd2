#include "fuzz/corpus.h"

#include <cstdint>
#include <string>
#include <utility>

#include "fuzz/corpus_builder.h"

namespace ringboost::test {
namespace {

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
  // An eval set with features the model lacks is refused, as task=pred and XGBoost refuse it.
  b->Add("issue", "eval_id_2147483646",
         {"",
          "",
          {{"c.conf", kConf}, {"train.txt", train}, {"e.txt", Join(rows)}},
          std::string(kTrain) + " eval[e]=e.txt",
          Expect::kError,
          "eval[e]=e.txt has 2147483647 features"});
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
