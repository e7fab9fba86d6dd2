// Ranking data across workers: each query group lies whole on one worker, and data without groups
// is one group of all its rows, so the ranking objectives, metrics and grouped AUC must give one
// process's model and eval log for 2 and 3 workers, or (rank:* without groups) refuse by name.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// `groups` query groups of 3 to 14 rows (labels 0-3 from a fixed recipe) into path and
// path.query.
void WriteRankData(const std::string& path, int groups) {
  std::ostringstream rows, sizes;
  uint64_t x = 12345;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % n;
  };
  for (int g = 0; g < groups; ++g) {
    const int size = 3 + static_cast<int>(next(12));
    sizes << size << "\n";
    for (int i = 0; i < size; ++i) {
      const uint64_t a = next(1000), b = next(1000), c = next(1000);
      rows << (a + b) * 4 / 2000 << " 0:" << a / 100.0 << " 1:" << b / 100.0 << " 2:" << c / 100.0
           << "\n";
    }
  }
  test::WriteFile(path, rows.str());
  test::WriteFile(path + ".query", sizes.str());
}

// Without query groups: the ranking metrics gather the rows (each worker's share used to be a
// group of its own: pre@5 0.8 in one process, 0.7 on 2 workers), and rank:* refuses by name (each
// worker's share was its own group, and the trees differed).
TEST(RankingWorkers, DataWithoutGroupsIsOneGroupOnEveryWorkerCount) {
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 600);
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\nmax_depth = 3\nnum_round = 2\n"
                  "data = \"train.txt\"\neval_train = 1\neval_metric = pre@5\n"
                  "eval_metric = ndcg@10\neval_metric = map@10\n");
  test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train c.conf");
  for (const std::string objective : {"rank:pairwise", "rank:ndcg", "rank:map"}) {
    const test::RunResult r = test::RunSubmit(
        dir.path(), 2, "train c.conf nthread=1 objective=" + objective + " model_out=r.json");
    EXPECT_NE(r.exit_code, 0) << objective;
    const std::string printed = r.out + r.err;  // the workers' lines come through submit
    EXPECT_NE(printed.find("objective=" + objective +
                           " on 2 workers: the training data train.txt has no query groups"),
              std::string::npos)
        << printed;
    EXPECT_FALSE(test::FileExists(dir.File("r.json")));
  }
}

// With query groups: the grouped AUC's group values are summed in group order (a sum of the
// workers' sums rounded otherwise, a few ulp apart), and a worker left without rows holds no
// group (it held an empty one, which ndcg scored 1: 0.79 on 2 workers where one process has 0.58).
TEST(RankingWorkers, GroupedAucAndAnEmptyWorkerGiveOneProcesssValues) {
  test::TempDir dir;
  WriteRankData(dir.File("rank.txt"), 80);
  test::WriteFile(dir.File("r.conf"),
                  "objective = rank:ndcg\nmax_depth = 3\nnum_round = 3\ndata = \"rank.txt\"\n"
                  "eval_train = 1\neval_metric = auc\neval_metric = ndcg\n");
  test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train r.conf");
  WriteRankData(dir.File("one.txt"), 1);  // one group: workers 1 and 2 get no rows
  test::WriteFile(dir.File("o.conf"),
                  "objective = rank:ndcg\nmax_depth = 2\nnum_round = 2\nmin_child_weight = 0\n"
                  "data = \"one.txt\"\neval_train = 1\n");
  test::ExpectSameModelForThreadsAndWorkers(dir.path(), "train o.conf");
}

}  // namespace
}  // namespace ringboost
