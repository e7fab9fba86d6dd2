// The XGBoost 3.4.1 golden folders (../shared/golden/xgboost-3.4.1/<name>/, see its README): the
// models ringboost can read, and readers for their files.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "data/data.h"
#include "helpers.h"

namespace ringboost::test {

// The golden folders whose objective and splits ringboost has.
inline const std::vector<std::string>& ReadableGoldenModels() {
  static const std::vector<std::string> names = {
      "agaricus-binary",           "lightgbm-binary-weighted",  "lightgbm-multiclass",
      "lightgbm-rank-ndcg",        "machine-count-poisson",     "machine-reg-squarederror",
      "machine-reg-absoluteerror", "machine-reg-quantileerror", "machine-categorical"};
  return names;
}

// "" when the shared golden files are absent.
inline std::string Golden341(const std::string& name) {
  const std::string dir = SharedGoldenDir();
  return dir.empty() ? dir : dir + "/xgboost-3.4.1/" + name;
}

// Every number of a whitespace-separated file, in order.
inline std::vector<double> ReadNumbers(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<double> out;
  double v;
  while (in >> v) out.push_back(v);
  return out;
}

// The folder's test.libsvm (0-based ids; absent ids are missing).
inline DataSet GoldenTestRows(const std::string& dir) {
  return LoadData(dir + "/test.libsvm?format=libsvm", LoadOptions());
}

// |a - b| within `rel` of max(1, |b|), element by element, over the first b.size() values.
inline void ExpectClose(const std::vector<float>& a, const std::vector<double>& b, double rel,
                        const std::string& what) {
  ASSERT_GE(a.size(), b.size()) << what;
  int bad = 0;
  for (std::size_t i = 0; i < b.size() && bad < 5; ++i) {
    const double tol = rel * std::max(1.0, std::fabs(b[i]));
    if (!(std::fabs(a[i] - b[i]) <= tol)) {
      ADD_FAILURE() << what << " [" << i << "]: " << a[i] << " vs XGBoost's " << b[i];
      ++bad;
    }
  }
}

}  // namespace ringboost::test
