// The text forms of monotone_constraints and interaction_constraints, and their config errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/config.h"
#include "common/constraint_text.h"
#include "common/error.h"

namespace ringboost {
namespace {

std::vector<int> Values(const std::string& text) {
  MonotoneText m;
  EXPECT_EQ(ParseMonotoneText(text, &m), "") << text;
  return m.values;
}

std::string MonotoneError(const std::string& text) {
  MonotoneText m;
  return ParseMonotoneText(text, &m);
}

std::string InteractionError(const std::string& text) {
  std::vector<std::vector<FeatureRef>> sets;
  return ParseInteractionText(text, &sets);
}

TEST(ConstraintText, MonotoneTupleForms) {
  EXPECT_EQ(Values("(1,0,-1)"), (std::vector<int>{1, 0, -1}));
  EXPECT_EQ(Values(" ( 1 , 0 , -1 ) "), (std::vector<int>{1, 0, -1}));
  EXPECT_EQ(Values("[1,-1]"), (std::vector<int>{1, -1}));
  EXPECT_EQ(Values("(1,)"), (std::vector<int>{1}));  // XGBoost writes one value so
  EXPECT_EQ(Values("1,0"), (std::vector<int>{1, 0}));
  EXPECT_EQ(Values("()"), std::vector<int>{});
  EXPECT_EQ(Values(""), std::vector<int>{});
}

TEST(ConstraintText, MonotoneByName) {
  MonotoneText m;
  ASSERT_EQ(ParseMonotoneText("{\"age\": 1, 'f3' : -1}", &m), "");
  ASSERT_EQ(m.named.size(), 2u);
  EXPECT_EQ(m.named[0].first.name, "age");
  EXPECT_EQ(m.named[0].second, 1);
  EXPECT_EQ(m.named[1].first.name, "f3");
  EXPECT_EQ(m.named[1].second, -1);
  EXPECT_TRUE(m.values.empty());
}

TEST(ConstraintText, MonotoneMistakes) {
  EXPECT_NE(MonotoneError("(1,2)").find("must be -1 (decreasing), 0 (none) or 1"),
            std::string::npos);
  EXPECT_NE(MonotoneError("(1,0").find("expected ',' or ')'"), std::string::npos);
  EXPECT_NE(MonotoneError("(1,0))").find("unexpected ')'"), std::string::npos);
  EXPECT_NE(MonotoneError("(a)").find("is not an integer"), std::string::npos);
  EXPECT_NE(MonotoneError("{age: 1}").find("expected a quoted feature name"), std::string::npos);
  EXPECT_NE(MonotoneError("{\"a\": 1, \"a\": -1}").find("feature 'a' twice"), std::string::npos);
  EXPECT_NE(MonotoneError("{\"a\" 1}").find("expected ':'"), std::string::npos);
  EXPECT_NE(MonotoneError("{\"a\": 1").find("expected ',' or '}'"), std::string::npos);
  EXPECT_NE(MonotoneError("{\"a: 1}").find("no closing quote"), std::string::npos);
}

TEST(ConstraintText, InteractionSets) {
  std::vector<std::vector<FeatureRef>> sets;
  ASSERT_EQ(ParseInteractionText(" [[0, 1], [2,\"age\",4], []] ", &sets), "");
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].size(), 2u);
  EXPECT_EQ(sets[0][1].id, 1u);
  EXPECT_TRUE(sets[1][1].by_name);
  EXPECT_EQ(sets[1][1].name, "age");
  EXPECT_EQ(sets[1][2].id, 4u);
  EXPECT_TRUE(sets[2].empty());
  ASSERT_EQ(ParseInteractionText("[]", &sets), "");
  EXPECT_TRUE(sets.empty());
  for (const char* bad : {"[0,1]", "[[0,1]", "[[0,-1]]", "[[0,1]]x", "((0,1))", "[[0 1]]"}) {
    EXPECT_NE(InteractionError(bad), "") << bad;
  }
  EXPECT_NE(InteractionError("[[0,x]]").find("[[0,1],[2,3,4]]"), std::string::npos);
}

// Through the config: the key, the value and the allowed forms in one message.
TEST(ConstraintText, ConfigErrorsNameTheKey) {
  auto error = [](const std::string& line) -> std::string {
    try {
      ParseConfig("", {line});
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string m = error("monotone_constraints=(1,5)");
  EXPECT_NE(m.find("monotone_constraints"), std::string::npos) << m;
  EXPECT_NE(m.find("-1 (decreasing), 0 (none) or 1 (increasing)"), std::string::npos) << m;
  const std::string i = error("interaction_constraints=[[0,1],2]");
  EXPECT_NE(i.find("interaction_constraints"), std::string::npos) << i;
  EXPECT_NE(i.find("[[0,1],[2,3,4]]"), std::string::npos) << i;
  EXPECT_EQ(error("monotone_constraints=(1,0,-1)"), "no error");
  EXPECT_EQ(error("interaction_constraints=[[0,1],[2,3,4]]"), "no error");
}

}  // namespace
}  // namespace ringboost
