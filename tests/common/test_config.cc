#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/config.h"
#include "common/error.h"
#include "common/params.h"
#include "common/params_table.h"
#include "helpers.h"

namespace ringboost {
namespace {

// The message of the Error that ParseConfig throws, or "no error".
std::string ErrorOf(const std::string& conf, const std::vector<std::string>& overrides) {
  try {
    ParseConfig(conf, overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string OverrideError(const std::string& override_text) { return ErrorOf("", {override_text}); }

TEST(Config, DefaultsAreXGBoosts) {
  Params p = ParseConfig("", {});
  EXPECT_EQ(p.task, "train");
  EXPECT_EQ(p.booster, "gbtree");
  EXPECT_EQ(p.objective, "reg:squarederror");
  EXPECT_EQ(p.eta, 0.3);
  EXPECT_EQ(p.gamma, 0.0);
  EXPECT_EQ(p.max_depth, 6);
  EXPECT_EQ(p.min_child_weight, 1.0);
  EXPECT_EQ(p.max_delta_step, 0.0);
  EXPECT_EQ(p.subsample, 1.0);
  EXPECT_EQ(p.colsample_bytree, 1.0);
  EXPECT_EQ(p.colsample_bylevel, 1.0);
  EXPECT_EQ(p.colsample_bynode, 1.0);
  EXPECT_EQ(p.lambda, 1.0);
  EXPECT_EQ(p.alpha, 0.0);
  EXPECT_EQ(p.tree_method, "hist");
  EXPECT_EQ(p.grow_policy, "depthwise");
  EXPECT_EQ(p.max_leaves, 0);
  EXPECT_EQ(p.max_bin, 256);
  EXPECT_EQ(p.num_class, 0);
  EXPECT_EQ(p.base_score, 0.5);
  EXPECT_EQ(p.scale_pos_weight, 1.0);
  EXPECT_TRUE(p.eval_metric.empty());
  EXPECT_EQ(p.seed, 0u);
  EXPECT_EQ(p.nthread, 0);
  EXPECT_EQ(p.num_round, 10);
  EXPECT_EQ(p.save_period, 0);
  EXPECT_EQ(p.name_pred, "pred.txt");
  EXPECT_EQ(p.name_dump, "dump.txt");
  EXPECT_EQ(p.dump_format, "text");
  EXPECT_FALSE(p.eval_train);
  EXPECT_FALSE(p.pred_margin);
  EXPECT_FALSE(p.dump_stats);
  EXPECT_EQ(p.verbosity, 1);
  EXPECT_EQ(p.device, "cpu");
  EXPECT_EQ(p.communicator, "auto");
  EXPECT_TRUE(p.given.empty());
}

// The table's defaults and the struct's initialisers must agree, so that code building
// Params{} directly (tests of other modules) sees what the CLI sees.
TEST(Config, TableDefaultsEqualStructDefaults) {
  Params from_struct;
  Params from_table = ParseConfig("", {});
  for (const ParamSpec& spec : ParamTable()) {
    std::visit(
        [&](auto member) {
          if constexpr (!std::is_same_v<decltype(member), std::monostate>) {
            EXPECT_EQ(from_table.*member, from_struct.*member) << spec.name;
          }
        },
        spec.field);
  }
}

TEST(Config, AliasesSetTheCanonicalKeyAndAreRecordedUnderIt) {
  Params p =
      ParseConfig("", {"learning_rate=0.1", "min_split_loss=2", "reg_lambda=3", "reg_alpha=0.5",
                       "train_path=a.txt", "test_path=b.txt", "name_fmap=f.map"});
  EXPECT_EQ(p.eta, 0.1);
  EXPECT_EQ(p.gamma, 2.0);
  EXPECT_EQ(p.lambda, 3.0);
  EXPECT_EQ(p.alpha, 0.5);
  EXPECT_EQ(p.data, "a.txt");
  EXPECT_EQ(p.test_data, "b.txt");
  EXPECT_EQ(p.fmap, "f.map");
  EXPECT_EQ(p.given.at("eta"), "0.1");
  EXPECT_TRUE(p.IsSet("lambda"));
  EXPECT_FALSE(p.IsSet("max_delta_step"));
}

// XGBoost's learner takes random_state for seed and n_jobs for nthread (1.7.4 and 3.4.1 record
// seed 7 and nthread 3 in their config for random_state=7 n_jobs=3), so a config with them runs.
TEST(Config, RandomStateAndNJobsAreXGBoostsAliases) {
  Params p = ParseConfig("", {"random_state=7", "n_jobs=3"});
  EXPECT_EQ(p.seed, 7u);
  EXPECT_EQ(p.nthread, 3);
  EXPECT_TRUE(p.IsSet("seed"));
  EXPECT_TRUE(p.IsSet("nthread"));
}

TEST(Config, ValueAliasesMapToTheSupportedValue) {
  Params p = ParseConfig("", {"objective=reg:linear", "tree_method=approx"});
  EXPECT_EQ(p.objective, "reg:squarederror");
  EXPECT_EQ(p.tree_method, "hist");
  EXPECT_EQ(ParseConfig("", {"tree_method=exact"}).tree_method, "hist");
  EXPECT_EQ(ParseConfig("", {"tree_method=auto"}).tree_method, "hist");
}

TEST(Config, DeviceAcceptsCpuCudaAndCudaOrdinal) {
  EXPECT_EQ(ParseConfig("", {"device=cuda"}).device, "cuda");
  EXPECT_EQ(ParseConfig("", {"device=cuda:1"}).device, "cuda:1");
  EXPECT_EQ(OverrideError("device=cuda:x"),
            "command line: device=cuda:x: expected cpu, cuda or cuda:N with N a GPU ordinal "
            "(0, 1, ...)");
  EXPECT_EQ(OverrideError("device=tpu"),
            "command line: device=tpu: allowed values are cpu, cuda, cuda:N");
}

TEST(Config, BooleansAndIntegersAndFloats) {
  Params p = ParseConfig("", {"eval_train=true", "pred_margin=1", "dump_stats=False",
                              "seed=18446744073", "indexing_mode=-1", "base_score=-2.5"});
  EXPECT_TRUE(p.eval_train);
  EXPECT_TRUE(p.pred_margin);
  EXPECT_FALSE(p.dump_stats);
  EXPECT_EQ(p.seed, 18446744073u);
  EXPECT_EQ(p.indexing_mode, -1);
  EXPECT_EQ(p.base_score, -2.5);
  EXPECT_EQ(OverrideError("eval_train=yes"),
            "command line: eval_train=yes: expected a boolean (0, 1, true, false)");
}

TEST(Config, RepeatableKeysAppendAcrossFileAndCommandLine) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"),
                                     "eval_metric = auc\n"
                                     "eval_metric = error@0.7\n"
                                     "eval[valid] = v.txt\n"
                                     "eval[test] = t.txt\n");
  Params p = ParseConfig(conf, {"eval_metric=logloss", "eval[extra]=x.txt"});
  EXPECT_EQ(p.eval_metric, (std::vector<std::string>{"auc", "error@0.7", "logloss"}));
  ASSERT_EQ(p.evals.size(), 3u);
  EXPECT_EQ(p.evals[0], (std::pair<std::string, std::string>{"valid", "v.txt"}));
  EXPECT_EQ(p.evals[1], (std::pair<std::string, std::string>{"test", "t.txt"}));
  EXPECT_EQ(p.evals[2], (std::pair<std::string, std::string>{"extra", "x.txt"}));
  EXPECT_EQ(p.given.at("eval[test]"), "t.txt");
}

// Each eval set has a name of its own: the log and eval_history tell the sets apart by it.
TEST(Config, RepeatedEvalNameIsRefused) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"), "eval[a] = v.txt\neval[a] = t.txt\n");
  EXPECT_EQ(ErrorOf(conf, {}), conf +
                                   ":2: eval[a] is given twice; give each eval set a name of its "
                                   "own (its results are logged and recorded under it)");
  EXPECT_EQ(ErrorOf("", {"eval[train]=t.txt", "eval_train=1"}),
            "eval[train]=t.txt and eval_train=1 both name a set 'train'; rename the eval set or "
            "drop eval_train");
}

// Eval names head the columns of the log and of eval_history: nothing there needs quoting.
TEST(Config, EvalNamesAreLettersDigitsAndUnderscoreDotDash) {
  Params p = ParseConfig("", {"eval[Valid_2.b-c]=v.txt"});
  EXPECT_EQ(p.evals[0].first, "Valid_2.b-c");
  for (const char* name : {"a,b", "a b", "a:b", "t\xc3\xa9st"}) {
    const std::string key = std::string("eval[") + name + "]";
    EXPECT_EQ(OverrideError(key + "=v.txt"),
              "command line: '" + key +
                  "': an eval set's name may hold only letters, digits, '_', '.' and '-' (it "
                  "heads the columns of the log and of eval_history), as eval[test] or "
                  "eval[valid-2]");
  }
}

// A NUL byte cuts a C string short: never a value that reads as its text before the NUL.
TEST(Config, NulBytesAreRefused) {
  test::TempDir dir;
  std::string conf =
      test::WriteFile(dir.File("a.conf"), std::string("max_depth = 3\neta=0.1\0junk\n", 27));
  EXPECT_EQ(ErrorOf(conf, {}), conf + ":2: a NUL byte in the line; a config file is text");
  Params p;
  std::vector<std::string> warnings;
  EXPECT_EQ(ApplyValue(*FindParam("eta"), std::string("0.1\0junk", 8), &p, &warnings),
            "expected a number in [0, 3.40282e+38]");
  EXPECT_EQ(ApplyValue(*FindParam("max_depth"), std::string("3\0", 2), &p, &warnings),
            "expected an integer in [0, 2147483647]");
}

// A UTF-8 byte-order mark (as Windows editors save) before the first key is skipped; elsewhere
// it is part of the text (an unknown key here).
TEST(Config, LeadingUtf8ByteOrderMarkIsSkipped) {
  test::TempDir dir;
  const std::string conf =
      test::WriteFile(dir.File("bom.conf"), "\xEF\xBB\xBFmax_depth = 4\neta = 0.5\n");
  const Params p = ParseConfig(conf, {});
  EXPECT_EQ(p.max_depth, 4);
  EXPECT_TRUE(p.IsSet("max_depth"));
  const std::string inner = test::WriteFile(dir.File("inner.conf"),
                                            "max_depth = 4\n\xEF\xBB\xBF"
                                            "eta = 0.5\n");
  EXPECT_NE(ErrorOf(inner, {}).find(inner + ":2: unknown parameter"), std::string::npos);
}

TEST(Config, QuotesCommentsBlankLinesAndSpaces) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"),
                                     "# a comment line\n"
                                     "\n"
                                     "   max_depth=4   # trailing comment\n"
                                     "eta\t=\t0.5\r\n"
                                     "data = \"train.txt?format=libsvm#cache\"  # quoted '#'\n"
                                     "test:data=\"with space.txt\"\n"
                                     "model_out = \"\"\n");
  Params p = ParseConfig(conf, {});
  EXPECT_EQ(p.max_depth, 4);
  EXPECT_EQ(p.eta, 0.5);
  EXPECT_EQ(p.data, "train.txt?format=libsvm#cache");
  EXPECT_EQ(p.test_data, "with space.txt");
  EXPECT_EQ(p.model_out, "");
  EXPECT_EQ(p.given.at("test:data"), "with space.txt");
}

// XGBoost 1.7's config reader takes '...' as it takes "...": the quotes are not the value's, and
// a '#' inside is no comment. The other kind of quote inside is the value's (XGBoost refuses it).
TEST(Config, SingleQuotesAsDoubleQuotes) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"),
                                     "model_out = 'final.model'\n"
                                     "data = 'train.txt?format=libsvm#cache'  # quoted '#'\n"
                                     "test:data='say \"hi\".txt'\n"
                                     "name_pred = \"it's.txt\"\n"
                                     "name_dump = it's.txt # an apostrophe in a plain value\n");
  Params p = ParseConfig(conf, {"fmap='f map.txt'"});
  EXPECT_EQ(p.model_out, "final.model");
  EXPECT_EQ(p.data, "train.txt?format=libsvm#cache");
  EXPECT_EQ(p.test_data, "say \"hi\".txt");
  EXPECT_EQ(p.name_pred, "it's.txt");
  EXPECT_EQ(p.name_dump, "it's.txt");
  EXPECT_EQ(p.fmap, "f map.txt");
  EXPECT_EQ(p.given.at("model_out"), "final.model");
  std::string open = test::WriteFile(dir.File("b.conf"), "model_out = 'final.model\n");
  EXPECT_EQ(ErrorOf(open, {}), open + ":1: model_out: the value 'final.model has no closing '''");
  std::string after = test::WriteFile(dir.File("c.conf"), "model_out = 'a'b\n");
  EXPECT_EQ(ErrorOf(after, {}), after + ":1: model_out: unexpected text after the quoted value: b");
  EXPECT_EQ(OverrideError("model_out='x"),
            "command line: model_out: the value 'x has no closing '''");
}

TEST(Config, CommandLineOverridesTheFileAndLaterWins) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"), "max_depth = 3\nnum_round = 5\n");
  Params p = ParseConfig(conf, {"max_depth=8", "num_round=7", "num_round=9"});
  EXPECT_EQ(p.max_depth, 8);
  EXPECT_EQ(p.num_round, 9);
  EXPECT_EQ(p.given.at("num_round"), "9");
}

TEST(Config, UnknownKeySuggestsTheClosestKey) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"), "max_depth = 3\n\netta = 0.1\n");
  EXPECT_EQ(ErrorOf(conf, {}), conf + ":3: unknown parameter 'etta'; did you mean 'eta'?");
  EXPECT_EQ(OverrideError("max_dept=3"),
            "command line: unknown parameter 'max_dept'; did you mean 'max_depth'?");
  EXPECT_EQ(OverrideError("learning_rat=3"),
            "command line: unknown parameter 'learning_rat'; did you mean 'learning_rate'?");
  EXPECT_EQ(OverrideError("zzzzzzzzzzzzzz=1"),
            "command line: unknown parameter 'zzzzzzzzzzzzzz'; `ringboost help` lists the "
            "parameters");
}

TEST(Config, BadValuesNameTheExpectedRange) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"), "max_depth = abc\n");
  EXPECT_EQ(ErrorOf(conf, {}), conf + ":1: max_depth=abc: expected an integer in [0, 2147483647]");
  EXPECT_EQ(OverrideError("max_depth=-1"),
            "command line: max_depth=-1: expected an integer in [0, 2147483647]");
  EXPECT_EQ(OverrideError("max_depth=2.5"),
            "command line: max_depth=2.5: expected an integer in [0, 2147483647]");
  EXPECT_EQ(OverrideError("subsample=0"), "command line: subsample=0: expected a number in (0, 1]");
  EXPECT_EQ(OverrideError("colsample_bytree=1.5"),
            "command line: colsample_bytree=1.5: expected a number in (0, 1]");
  EXPECT_EQ(OverrideError("eta=-0.1"),
            "command line: eta=-0.1: expected a number in [0, 3.40282e+38]");
  EXPECT_EQ(OverrideError("max_bin=1"),
            "command line: max_bin=1: expected an integer in [2, 65536]");
  EXPECT_EQ(OverrideError("verbosity=4"),
            "command line: verbosity=4: expected an integer in [0, 3]");
  EXPECT_EQ(OverrideError("num_round=0"),
            "command line: num_round=0: expected an integer in [1, 2147483647]");
  EXPECT_EQ(OverrideError("base_score=x"), "command line: base_score=x: expected a number");
  EXPECT_EQ(OverrideError("nthread=99999999999"),
            "command line: nthread=99999999999: expected an integer in [0, 1024]");
  // Past an int: the range says the type's limit, not [0, inf) (which would hold the value).
  EXPECT_EQ(OverrideError("ntree_limit=3000000000"),
            "command line: ntree_limit=3000000000: expected an integer in [0, 2147483647]");
  EXPECT_EQ(OverrideError("seed=99999999999999999999"),
            "command line: seed=99999999999999999999: expected an integer in [0, "
            "9223372036854775807]");
}

TEST(Config, BadEnumValueListsTheAllowedValues) {
  EXPECT_EQ(
      OverrideError("objective=foo"),
      "command line: objective=foo: allowed values are reg:squarederror, reg:logistic, "
      "binary:logistic, binary:logitraw, multi:softmax, multi:softprob, count:poisson, "
      "rank:pairwise, rank:ndcg, rank:map, reg:pseudohubererror, reg:gamma, reg:tweedie, "
      "reg:squaredlogerror, binary:hinge, reg:absoluteerror, reg:quantileerror, survival:cox, "
      "survival:aft, reg:linear");
  EXPECT_EQ(OverrideError("grow_policy=best"),
            "command line: grow_policy=best: allowed values are depthwise, lossguide");
  EXPECT_EQ(OverrideError("parse_float=bogus"),
            "command line: parse_float=bogus: allowed values are exact, xgboost");
  EXPECT_EQ(OverrideError("booster=gblinear"),
            "command line: booster=gblinear: only gbtree is supported (ringboost has no "
            "gblinear or dart booster)");
  EXPECT_EQ(OverrideError("booster=dart"),
            "command line: booster=dart: only gbtree is supported (ringboost has no gblinear "
            "or dart booster)");
  EXPECT_EQ(OverrideError("tree_method=gpu"),
            "command line: tree_method=gpu: allowed values are hist, auto, approx, exact");
}

// multi_strategy: XGBoost's default is taken; its vector-leaf trees are refused by name.
TEST(Config, MultiStrategyTakesOneOutputPerTree) {
  EXPECT_EQ(ParseConfig("", {"multi_strategy=one_output_per_tree"}).multi_strategy,
            "one_output_per_tree");
  EXPECT_EQ(OverrideError("multi_strategy=multi_output_tree"),
            "command line: multi_strategy=multi_output_tree: multi_output_tree (XGBoost's one "
            "tree with a vector leaf for all classes or outputs) is not available: ringboost "
            "grows one tree per class and output, as multi_strategy=one_output_per_tree (the "
            "default)");
  EXPECT_EQ(OverrideError("multi_strategy=x"),
            "command line: multi_strategy=x: allowed values are one_output_per_tree");
}

// XGBoost 1.x's GPU keys are taken as XGBoost 2 takes them, with a deprecation warning.
TEST(Config, GpuHistAndGpuIdAreDeprecatedAliasesOfDevice) {
  testing::internal::CaptureStderr();
  Params p = ParseConfig("", {"tree_method=gpu_hist"});
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.tree_method, "hist");
  EXPECT_EQ(p.device, "cuda");
  EXPECT_NE(warned.find("tree_method=gpu_hist is deprecated (as in XGBoost 2): taken as "
                        "tree_method=hist device=cuda"),
            std::string::npos)
      << warned;
  EXPECT_EQ(ParseConfig("", {"gpu_id=1", "verbosity=0"}).device, "cuda:1");
  EXPECT_EQ(ParseConfig("", {"gpu_id=-1", "verbosity=0"}).device, "cpu");
  // gpu_id picks the GPU of gpu_hist wherever it is written; a later device= wins.
  EXPECT_EQ(ParseConfig("", {"gpu_id=2", "tree_method=gpu_hist", "verbosity=0"}).device, "cuda:2");
  EXPECT_EQ(ParseConfig("", {"tree_method=gpu_hist", "device=cpu", "verbosity=0"}).device, "cpu");
  EXPECT_EQ(OverrideError("gpu_id=x"),
            "command line: device=cuda:x: expected cpu, cuda or cuda:N with N a GPU ordinal "
            "(0, 1, ...)");
}

TEST(Config, SyntaxErrorsNameFileAndLine) {
  test::TempDir dir;
  std::string conf = test::WriteFile(dir.File("a.conf"), "# ok\nmax_depth 3\n");
  EXPECT_EQ(ErrorOf(conf, {}), conf + ":2: expected 'key = value', got 'max_depth 3'");
  std::string quote = test::WriteFile(dir.File("b.conf"), "data = \"x.txt\n");
  EXPECT_EQ(ErrorOf(quote, {}), quote + ":1: data: the value \"x.txt has no closing '\"'");
  std::string eval = test::WriteFile(dir.File("c.conf"), "eval[] = x\n");
  EXPECT_EQ(ErrorOf(eval, {}),
            eval +
                ":1: 'eval[]' must be eval[NAME] with a non-empty NAME, as eval[test] = "
                "\"test.txt?format=libsvm\"");
  EXPECT_EQ(OverrideError("max_depth"), "command line: expected 'key = value', got 'max_depth'");
}

TEST(Config, MissingConfigFile) {
  EXPECT_EQ(ErrorOf("/nonexistent/ringboost.conf", {}),
            "cannot open config '/nonexistent/ringboost.conf': No such file or directory");
}

TEST(Config, MultiClassNeedsNumClass) {
  EXPECT_EQ(OverrideError("objective=multi:softmax"),
            "objective=multi:softmax needs num_class >= 2 (the number of classes); got "
            "num_class=0");
  Params p = ParseConfig("", {"objective=multi:softprob", "num_class=3"});
  EXPECT_EQ(p.num_class, 3);
}

TEST(Config, UnlimitedTreesAreRejected) {
  EXPECT_EQ(OverrideError("max_depth=0"),
            "max_depth=0 and max_leaves=0 leave the trees unlimited; set max_depth >= 1 or "
            "max_leaves >= 1");
  Params p = ParseConfig("", {"max_depth=0", "max_leaves=31", "grow_policy=lossguide"});
  EXPECT_EQ(p.max_leaves, 31);
}

TEST(Config, IgnoredXGBoostKeysAreAccepted) {
  Params p = ParseConfig("", {"silent=1", "use_buffer=0", "dsplit=row", "verbosity=0"});
  EXPECT_EQ(p.verbosity, 0);
  EXPECT_EQ(p.given.count("silent"), 0u);
}

TEST(Config, WarningsNameWhereAndWhat) {
  testing::internal::CaptureStderr();
  ParseConfig("", {"tree_method=approx", "silent=1"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning: command line: tree_method=approx is taken as hist"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("warning: command line: parameter 'silent' is ignored"), std::string::npos)
      << err;
  testing::internal::CaptureStderr();
  ParseConfig("", {"tree_method=approx", "verbosity=0"});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Config, MaxDeltaStepIsRecordedOnlyWhenGiven) {
  EXPECT_FALSE(ParseConfig("", {"objective=count:poisson"}).IsSet("max_delta_step"));
  Params p = ParseConfig("", {"objective=count:poisson", "max_delta_step=0"});
  EXPECT_TRUE(p.IsSet("max_delta_step"));
  EXPECT_EQ(p.given.at("max_delta_step"), "0");
}

TEST(Config, TaskValues) {
  EXPECT_EQ(ParseConfig("", {"task=pred"}).task, "pred");
  EXPECT_EQ(ParseConfig("", {"task=dump"}).task, "dump");
  EXPECT_EQ(OverrideError("task=predict"),
            "command line: task=predict: allowed values are train, pred, dump");
}

TEST(Config, MushroomConfig) {
  std::string conf = test::SharedGoldenDir() + "/xgboost-1.7.4-mushroom/mushroom.conf";
  if (test::SharedGoldenDir().empty() || !test::FileExists(conf)) {
    GTEST_SKIP() << "golden mushroom config not found";
  }
  Params p = ParseConfig(conf, {});
  EXPECT_EQ(p.booster, "gbtree");
  EXPECT_EQ(p.objective, "binary:logistic");
  EXPECT_EQ(p.eta, 1.0);
  EXPECT_EQ(p.gamma, 1.0);
  EXPECT_EQ(p.min_child_weight, 1.0);
  EXPECT_EQ(p.max_depth, 3);
  EXPECT_EQ(p.num_round, 2);
  EXPECT_EQ(p.save_period, 2);
  EXPECT_EQ(p.data, "agaricus.txt.train?format=libsvm");
  ASSERT_EQ(p.evals.size(), 1u);
  EXPECT_EQ(p.evals[0].first, "test");
  EXPECT_EQ(p.evals[0].second, "agaricus.txt.test?format=libsvm");
  EXPECT_TRUE(p.eval_train);
  EXPECT_EQ(p.test_data, "agaricus.txt.test?format=libsvm");
  EXPECT_EQ(p.task, "train");
  EXPECT_EQ(p.given.size(), 12u);
}

TEST(Config, HelpListsEveryKeyWithItsAliases) {
  std::string help = ParametersHelp();
  for (const ParamSpec& spec : ParamTable()) {
    EXPECT_NE(help.find(std::string("  ") + spec.name), std::string::npos) << spec.name;
  }
  EXPECT_NE(help.find("  eta = 0.3   (alias: learning_rate)\n      float in [0, 3.40282e+38]\n"),
            std::string::npos)
      << help;
}

TEST(Config, DocsParametersMdIsTheGeneratedText) {
  std::string path = std::string(RINGBOOST_SOURCE_DIR) + "/docs/parameters.md";
  EXPECT_EQ(test::ReadFile(path), ParametersMarkdown())
      << "regenerate it: ringboost help --markdown > docs/parameters.md";
}

}  // namespace
}  // namespace ringboost
