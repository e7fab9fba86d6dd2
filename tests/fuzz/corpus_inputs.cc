// The fuzz corpus's families of malformed inputs before the model: LibSVM, CSV, config, URI and
// side files (corpus_builder.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/corpus_builder.h"

namespace ringboost::test {

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

}  // namespace ringboost::test
