// Pictures through the executable: DOT dumps read back by Graphviz itself (`dot -Tjson`), SVG
// and PNG renders, eval_history files, and gnuplot charts; clear errors without the tools.
#include <gtest/gtest.h>

#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

bool HaveProgram(const std::string& name) {
  return test::RunInDir(".", "command -v " + name + " >/dev/null").exit_code == 0;
}

// Nodes of each tree of a text dump ("booster[i]:" then a line per node), and their leaves.
struct TreeShape {
  int nodes = 0;
  int leaves = 0;
};
std::vector<TreeShape> Shapes(const std::string& dump) {
  std::vector<TreeShape> trees;
  std::istringstream lines(dump);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("booster[", 0) == 0) {
      trees.emplace_back();
      continue;
    }
    trees.back().nodes += 1;
    trees.back().leaves += line.find(":leaf=") != std::string::npos;
  }
  return trees;
}

// Graphviz's own reading of a DOT file: its nodes (not clusters) and edges.
struct DotGraph {
  int nodes = 0, leaves = 0, edges = 0, missing_edges = 0;
};
DotGraph ReadByGraphviz(const std::string& dir, const std::string& file) {
  const test::RunResult r = test::RunInDir(dir, "dot -Tjson " + file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  DotGraph g;
  for (const Json& o : doc.value("objects", Json::array())) {
    if (o.contains("nodes")) continue;  // a cluster
    g.nodes += 1;
    g.leaves += o.value("label", "").rfind("leaf=", 0) == 0;
  }
  for (const Json& e : doc.value("edges", Json::array())) {
    g.edges += 1;
    g.missing_edges += e.value("label", "").find("missing") != std::string::npos;
  }
  return g;
}

class Pictures : public ::testing::Test {
 protected:
  void SetUp() override {
    RB_REQUIRE_SHARED_DATA();
    const std::string data = test::SharedDataDir() + "/agaricus/";
    for (const char* f : {"agaricus.txt.train", "agaricus.txt.test"}) {
      fs::copy_file(data + f, dir_.File(f));
    }
    fs::copy_file(test::SharedGoldenDir() + "/xgboost-1.7.4-mushroom/mushroom.conf",
                  dir_.File("mushroom.conf"));
  }
  test::RunResult Run(const std::string& args) { return test::RunRingboost(dir_.path(), args); }
  void RunOk(const std::string& args) {
    const test::RunResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
  // Trains the mushroom config (2 rounds, eval test and train) into m.model.
  void Train(const std::string& more = "") {
    RunOk("train mushroom.conf model_out=m.model " + more);
  }
  test::TempDir dir_;
};

TEST_F(Pictures, DotDumpHasEveryNodeAndEdgeOfTheTrees) {
  if (!HaveProgram("dot")) GTEST_SKIP() << "Graphviz's dot is not installed";
  Train("max_depth=4 num_round=3");
  RunOk("dump m.model -o m.txt");
  const std::vector<TreeShape> trees = Shapes(test::ReadFile(dir_.File("m.txt")));
  ASSERT_EQ(trees.size(), 3u);
  for (int t = 0; t < 3; ++t) {
    RunOk("dump m.model --format dot --tree " + std::to_string(t) + " -o t.dot");
    const DotGraph g = ReadByGraphviz(dir_.path(), "t.dot");
    EXPECT_EQ(g.nodes, trees[t].nodes) << "tree " << t;
    EXPECT_EQ(g.leaves, trees[t].leaves);
    EXPECT_EQ(g.edges, trees[t].nodes - 1);
    EXPECT_EQ(g.missing_edges, trees[t].nodes - trees[t].leaves);  // one default per split
  }
  RunOk("dump m.model --format dot --with-stats -o all.dot");
  const DotGraph all = ReadByGraphviz(dir_.path(), "all.dot");
  EXPECT_EQ(all.nodes, trees[0].nodes + trees[1].nodes + trees[2].nodes);
  EXPECT_EQ(all.edges, all.nodes - 3);
  const std::string dot = test::ReadFile(dir_.File("all.dot"));
  EXPECT_NE(dot.find("label=\"booster[2]\""), std::string::npos);
  EXPECT_NE(dot.find("\\ncover="), std::string::npos);
  // The config form writes the same DOT.
  RunOk("dump mushroom.conf model_in=m.model dump_format=dot dump_stats=1 name_dump=c.dot");
  EXPECT_EQ(test::ReadFile(dir_.File("c.dot")), dot);
}

// A categorical split is drawn as XGBoost 3.x dumps it: its categories, "yes" to the right child
// (the listed categories' side), "no" and missing as its text dump says (XGBoost's golden model).
TEST_F(Pictures, DotDrawsCategoricalSplitsAsTheDump) {
  const std::string model =
      test::SharedGoldenDir() + "/xgboost-3.4.1/machine-categorical/model.json";
  if (!test::FileExists(model)) GTEST_SKIP() << "no golden categorical model at " << model;
  RunOk("dump " + model + " --format dot --tree 4 -o t.dot");
  const std::string dot = test::ReadFile(dir_.File("t.dot"));
  EXPECT_NE(dot.find("t4_3 [label=\"f0:{4,7,11,12,19,20,22,23,27}\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("t4_3 -> t4_8 [label=\"yes\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("t4_3 -> t4_7 [label=\"no, missing\""), std::string::npos) << dot;
}

TEST_F(Pictures, RendersSvgAndPng) {
  if (!HaveProgram("dot")) GTEST_SKIP() << "Graphviz's dot is not installed";
  Train();
  RunOk("dump m.model --format dot --tree 0 --render svg -o t.svg");
  const std::string svg = test::ReadFile(dir_.File("t.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("leaf="), std::string::npos);
  RunOk("dump m.model --format dot --render png -o t.png");
  EXPECT_EQ(test::ReadFile(dir_.File("t.png")).substr(0, 4), "\x89PNG");
}

TEST_F(Pictures, DotErrorsNameTheFixAndWriteNothing) {
  Train();
  test::RunResult r =
      test::RunInDir(dir_.path(), "PATH=/nonexistent '" + std::string(RINGBOOST_EXE) +
                                      "' dump m.model --format dot --render svg -o x.svg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("install the package graphviz"), std::string::npos) << r.err;
  r = Run("dump m.model --render svg -o x.svg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("add --format dot"), std::string::npos) << r.err;
  r = Run("dump m.model --format dot --tree 2 -o x.svg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the model has 2 trees"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_.File("x.svg")));
}

std::string Shortest(const Json& v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v.get<double>());
  return std::string(buf, res.ptr);
}

// The CSV an eval log's lines ("[i]\tset-metric:value...") make.
std::string CsvOfEvalLog(const std::string& log) {
  std::istringstream lines(log);
  std::string line, header = "iteration", rows;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string field, row;
    std::getline(fields, field, '\t');
    row = field.substr(1, field.size() - 2);
    const bool first = rows.empty();
    while (std::getline(fields, field, '\t')) {
      const std::size_t colon = field.rfind(':');
      if (first) header += "," + field.substr(0, colon);
      row += "," + field.substr(colon + 1);
    }
    rows += row + "\n";
  }
  return header + "\n" + rows;
}

// The CSV with its values (not the iteration column, not the header) as the eval log prints them:
// XGBoost's 17 decimals, where the history keeps the shortest text that reads back exactly.
std::string WithLogDigits(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line, out;
  for (bool header = true; std::getline(lines, line); header = false) {
    std::istringstream fields(line);
    std::string field;
    for (int column = 0; std::getline(fields, field, ','); ++column) {
      if (column > 0) out += ",";
      if (header || column == 0) {
        out += field;
        continue;
      }
      char buf[400];
      const auto res =
          std::to_chars(buf, buf + sizeof(buf), std::stod(field), std::chars_format::fixed, 17);
      out += std::string(buf, res.ptr);
    }
    out += "\n";
  }
  return out;
}

// eval_history: the eval log's numbers, as CSV and as XGBoost's evals_result JSON.
TEST_F(Pictures, EvalHistoryHoldsTheEvalLog) {
  test::RunResult r = Run("train mushroom.conf num_round=3 eval_history=h.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = test::ReadFile(dir_.File("h.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "iteration,test-logloss,train-logloss");
  EXPECT_EQ(WithLogDigits(csv), CsvOfEvalLog(test::EvalLog(r.out)));
  r = Run("train mushroom.conf num_round=3 eval_history=h.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json h = Json::parse(test::ReadFile(dir_.File("h.json")));
  ASSERT_EQ(h["test"]["logloss"].size(), 3u);
  ASSERT_EQ(h["train"]["logloss"].size(), 3u);
  std::string log;
  for (int i = 0; i < 3; ++i) {
    log += "[" + std::to_string(i) + "]\ttest-logloss:" + Shortest(h["test"]["logloss"][i]) +
           "\ttrain-logloss:" + Shortest(h["train"]["logloss"][i]) + "\n";
  }
  EXPECT_EQ(CsvOfEvalLog(log), csv);
  test::WriteFile(dir_.File("plain.conf"),
                  "objective = binary:logistic\ndata = agaricus.txt.train?format=libsvm\n");
  r = Run("train plain.conf eval_history=h.csv");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("add eval[NAME]=<data uri> or eval_train=1"), std::string::npos) << r.err;
}

// A set whose name extends another's (test, test-b) keeps its own results in the JSON history.
TEST_F(Pictures, EvalHistorySetsWhoseNamesExtendOthers) {
  RunOk(
      "train mushroom.conf num_round=2 eval_history=h.json "
      "'eval[test-b]=agaricus.txt.test?format=libsvm'");
  const Json h = Json::parse(test::ReadFile(dir_.File("h.json")));
  ASSERT_TRUE(h.contains("test-b")) << h.dump();
  EXPECT_EQ(h["test"].size(), 1u) << h.dump();
  EXPECT_EQ(h["test-b"]["logloss"], h["test"]["logloss"]);  // the same data
}

TEST_F(Pictures, ChartsAreSvgFromGnuplot) {
  if (!HaveProgram("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  Train("num_round=3 eval_history=h.json");
  RunOk("plot history h.json -o h.svg");
  const std::string curves = test::ReadFile(dir_.File("h.svg"));
  EXPECT_NE(curves.find("<svg"), std::string::npos);
  EXPECT_NE(curves.find("test-logloss"), std::string::npos);
  RunOk("plot importance m.model --type gain --top 3 -o i.svg");
  const std::string bars = test::ReadFile(dir_.File("i.svg"));
  EXPECT_NE(bars.find("<svg"), std::string::npos);
  EXPECT_NE(bars.find("f29"), std::string::npos);  // the first split of the mushroom model
}

// One panel a metric, whatever '-' the eval set's name holds (the panels are 320 pixels high).
TEST_F(Pictures, HistoryPanelsAreTheMetricsWhateverTheSetNames) {
  if (!HaveProgram("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  test::WriteFile(dir_.File("dash.conf"),
                  "objective = binary:logistic\ndata = agaricus.txt.train?format=libsvm\n"
                  "eval[my-valid] = agaricus.txt.test?format=libsvm\n"
                  "eval[test] = agaricus.txt.test?format=libsvm\neval_metric = logloss\n"
                  "eval_metric = auc\nnum_round = 2\n");
  for (const char* history : {"d.csv", "d.json"}) {
    RunOk(std::string("train dash.conf eval_history=") + history);
    RunOk(std::string("plot history ") + history + " -o d.svg");
    const std::string svg = test::ReadFile(dir_.File("d.svg"));
    EXPECT_NE(svg.find("height=\"640\""), std::string::npos) << history << "\n"
                                                             << svg.substr(0, 400);
  }
}

// Names come from files: a backquoted command in a column's name is drawn as text, never run by
// gnuplot (which substitutes `...` on its command lines outside single quotes).
TEST_F(Pictures, NamesInAHistoryRunNoCommand) {
  if (!HaveProgram("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  const std::string mark = dir_.File("ran");
  test::WriteFile(dir_.File("inj.csv"), "iteration,test-`touch '" + mark +
                                            "'`it's-logloss,t\"x-auc\n" + "0,0.5,0.7\n1,0.3,0.8\n");
  RunOk("plot history inj.csv -o inj.svg");
  EXPECT_FALSE(fs::exists(mark));
  const std::string svg = test::ReadFile(dir_.File("inj.svg"));
  EXPECT_NE(svg.find("`touch"), std::string::npos) << svg.substr(0, 2000);
}

// A tool that exits 0 after its output was cut short (gnuplot on a full TMPDIR does) is an
// error, and no chart is written: a stand-in gnuplot writes half an SVG.
TEST_F(Pictures, AChartCutShortIsAnError) {
  Train("eval_history=h.csv");
  fs::create_directory(dir_.File("bin"));
  test::WriteFile(dir_.File("bin/gnuplot"), "#!/bin/sh\nprintf '<svg width=\"8\"><g>'\n");
  fs::permissions(dir_.File("bin/gnuplot"), fs::perms::owner_all);
  const test::RunResult r =
      test::RunInDir(dir_.path(), "PATH=\"$PWD/bin:$PATH\" '" + std::string(RINGBOOST_EXE) +
                                      "' plot history h.csv -o h.svg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("`gnuplot` wrote 18 bytes that are no whole svg file"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_.File("h.svg")));
}

TEST_F(Pictures, ChartErrorsNameTheFix) {
  Train("eval_history=h.csv");
  test::RunResult r =
      test::RunInDir(dir_.path(), "PATH=/nonexistent '" + std::string(RINGBOOST_EXE) +
                                      "' plot history h.csv -o h.svg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("install the package gnuplot-nox"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_.File("h.svg")));
  if (!HaveProgram("gnuplot")) return;
  test::WriteFile(dir_.File("bad.csv"), "iteration,test-error\n0,0.5\n1,x\n");
  r = Run("plot history bad.csv -o h.svg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.csv:3: \"x\" is not a number"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ringboost
