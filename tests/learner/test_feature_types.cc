// CategoricalFeatures (learner/feature_types.h): the features feature_types marks categorical, and
// the error for one past the data's features.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "learner/feature_types.h"

namespace ringboost {
namespace {

std::string ErrorText(const Params& params, uint32_t num_col) {
  try {
    CategoricalFeatures(params, DataSet(), num_col);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(FeatureTypes, MarksTheListedFeatures) {
  Params params;
  params.feature_types = "q, c,i";
  EXPECT_EQ(CategoricalFeatures(params, DataSet(), 4), (std::vector<uint8_t>{0, 1, 0, 0}));
}

// Data of 3 features has ids 0 to 2 (the message read "ids 0 to 3 - 1"); data of none has none
// (it read "ids 0 to 0 - 1").
TEST(FeatureTypes, FeaturePastTheDataNamesTheDatasIds) {
  Params params;
  params.feature_types = "q,q,q,c";
  const std::string three = ErrorText(params, 3);
  EXPECT_NE(three.find("feature_types: feature 3 is categorical, but the training data has 3 "
                       "features (ids 0 to 2)"),
            std::string::npos)
      << three;
  const std::string none = ErrorText(params, 0);
  EXPECT_NE(none.find("the training data has no features"), std::string::npos) << none;
}

}  // namespace
}  // namespace ringboost
