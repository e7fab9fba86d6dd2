// objective/elementwise.h: ExpF against the correctly rounded exp, ElementwiseGradient against
// hand-derived values, and the CPU objectives against ElementwiseGradient row by row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "label_rows.h"
#include "objective/elementwise.h"
#include "objective/objective.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

using test::LabelRows;

constexpr float kInf = std::numeric_limits<float>::infinity();

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof(b));
  return b;
}

// A float as a double, with inf as 2^128: where the rounding to float overflows.
double Extended(float f) { return std::isinf(f) ? std::copysign(0x1p128, f) : f; }

// exp(x) correctly rounded to float, from glibc's double exp (error about 2^-53). near_tie: the
// double is within 2^-50 (relative) of a midpoint between two floats, where its error or ExpF's
// (a few 2^-53) may round either way.
struct RoundedExp {
  float value;
  bool near_tie;
};

RoundedExp CorrectlyRoundedExp(float x) {
  const double e = std::exp(static_cast<double>(x));
  const float f = static_cast<float>(e);
  const float other = Extended(f) > e ? std::nextafter(f, -kInf) : std::nextafter(f, kInf);
  const double mid = (Extended(f) + Extended(other)) / 2;
  return {f, std::fabs(e - mid) <= 0x1p-50 * e};
}

TEST(ExpF, Specials) {
  EXPECT_EQ(Bits(ExpF(0.0f)), Bits(1.0f));
  EXPECT_EQ(Bits(ExpF(-0.0f)), Bits(1.0f));
  // exp(-2^-25) = 1 - 2^-25 + 2^-51 - ...: 2^-51 above the midpoint below 1, so 1.
  EXPECT_EQ(Bits(ExpF(-0x1p-25f)), Bits(1.0f));
  EXPECT_EQ(ExpF(kInf), kInf);
  EXPECT_EQ(Bits(ExpF(-kInf)), Bits(0.0f));
  EXPECT_TRUE(std::isnan(ExpF(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(ExpF(std::numeric_limits<float>::max()), kInf);
  EXPECT_EQ(Bits(ExpF(std::numeric_limits<float>::lowest())), Bits(0.0f));
  // The last finite result and the first overflow: exp(88.72283f) = 3.4027985e38.
  EXPECT_EQ(ExpF(FromBits(0x42B17217)), 3.4027985e38f);
  EXPECT_EQ(ExpF(FromBits(0x42B17218)), kInf);
  // The last nonzero result, 2^-149 (exp(-103.972076f) = 1.0000007 * 2^-150), and the first 0.
  EXPECT_EQ(ExpF(FromBits(0xC2CFF1B4)), 0x1p-149f);
  EXPECT_EQ(Bits(ExpF(FromBits(0xC2CFF1B5))), Bits(0.0f));
  // The lane form: the same bits, NaN (sign and payload) included.
  for (float x : {kInf, -kInf, std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::quiet_NaN(), FromBits(0x7FC12345),
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()}) {
    EXPECT_EQ(Bits(ExpF<true>(x)), Bits(ExpF(x))) << x;
  }
}

TEST(ExpF, EdgesCorrectlyRounded) {
  const float edges[] = {std::numeric_limits<float>::denorm_min(),
                         -std::numeric_limits<float>::denorm_min(),
                         std::numeric_limits<float>::min(),
                         0x1p-24f,
                         -0x1p-24f,
                         0x1p-23f,
                         1.0f,
                         -1.0f,
                         0.5f * 0.6931472f,
                         -0.5f * 0.6931472f,
                         88.0f,
                         88.7f,
                         -87.33655f,  // exp is about FLT_MIN
                         -87.33654f,
                         -100.0f,  // subnormal results
                         -103.0f,
                         -103.9f,
                         FromBits(0x42B17217),
                         FromBits(0xC2CFF1B4)};
  for (float x : edges) {
    const RoundedExp want = CorrectlyRoundedExp(x);
    ASSERT_FALSE(want.near_tie) << x;
    EXPECT_EQ(Bits(ExpF(x)), Bits(want.value)) << "x = " << x;
  }
}

// Every 97th float in [-104, 89] (about 23 million): ExpF is the correctly rounded exp except
// perhaps next to a tie, and ExpF<true> is ExpF. Prints how often it and glibc's expf are not.
TEST(ExpF, SweepCorrectlyRounded) {
  uint64_t tested = 0, near_ties = 0, tie_misses = 0, misses = 0, glibc_differs = 0,
           glibc_misses = 0, lane_differs = 0;
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 97) {
    const float x = FromBits(static_cast<uint32_t>(b));
    if (!(x >= -104.0f && x <= 89.0f)) continue;
    ++tested;
    const RoundedExp want = CorrectlyRoundedExp(x);
    const float got = ExpF(x);
    // The lane form (selects, no branch) gives the same bits everywhere.
    if (Bits(ExpF<true>(x)) != Bits(got) && ++lane_differs <= 10) {
      ADD_FAILURE() << "x = " << x << " ExpF<true> " << ExpF<true>(x) << " ExpF " << got;
    }
    const float glibc = std::exp(x);
    glibc_differs += Bits(glibc) != Bits(got);
    glibc_misses += !want.near_tie && Bits(glibc) != Bits(want.value);
    if (want.near_tie) {
      ++near_ties;
      tie_misses += Bits(got) != Bits(want.value);
    } else if (Bits(got) != Bits(want.value)) {
      if (++misses <= 10) ADD_FAILURE() << "x = " << x << " ExpF " << got << " want " << want.value;
    }
  }
  std::printf(
      "ExpF over %llu floats: %llu not correctly rounded, %llu near ties (%llu of them rounded "
      "the other way); glibc expf differs from ExpF on %llu, is not correctly rounded on %llu\n",
      static_cast<unsigned long long>(tested), static_cast<unsigned long long>(misses),
      static_cast<unsigned long long>(near_ties), static_cast<unsigned long long>(tie_misses),
      static_cast<unsigned long long>(glibc_differs),
      static_cast<unsigned long long>(glibc_misses));
  EXPECT_GT(tested, 20000000u);
  EXPECT_EQ(misses, 0u);
}

TEST(Sigmoid, EdgesAsXGBoost) {
  EXPECT_EQ(Sigmoid(0.0f), 0.5f);
  EXPECT_EQ(Sigmoid(1000.0f), 1.0f);
  // The exponent is clamped at 88.7: 1 / exp(88.7), a subnormal, not 0.
  EXPECT_GT(Sigmoid(-1000.0f), 0.0f);
  EXPECT_EQ(Sigmoid(-1000.0f), Sigmoid(-88.7f));
  EXPECT_TRUE(std::isnan(Sigmoid(std::numeric_limits<float>::quiet_NaN())));
}

ElementwiseSpec Spec(ElementwiseLoss loss, float scale_pos_weight = 1.0f,
                     float max_delta_step = 0.0f, int num_class = 1) {
  return {loss, scale_pos_weight, max_delta_step, num_class, 0.0f};
}

GradPair Gradient1(const ElementwiseSpec& s, float margin, float label, float weight) {
  GradPair g;
  ElementwiseGradient(s, &margin, label, weight, &g);
  return g;
}

TEST(ElementwiseGradient, Logistic) {
  // Margin 0, label 1, weight 2: p = 0.5, grad (p - 1) * 2 = -1, hess p (1 - p) * 2 = 0.5.
  for (ElementwiseLoss loss : {ElementwiseLoss::kLogistic, ElementwiseLoss::kLogitRaw}) {
    GradPair g = Gradient1(Spec(loss), 0.0f, 1.0f, 2.0f);
    EXPECT_EQ(g.grad, -1.0f);
    EXPECT_EQ(g.hess, 0.5f);
    // scale_pos_weight 3 multiplies the weight of label 1 only.
    g = Gradient1(Spec(loss, 3.0f), 0.0f, 1.0f, 2.0f);
    EXPECT_EQ(g.grad, -3.0f);
    EXPECT_EQ(g.hess, 1.5f);
    g = Gradient1(Spec(loss, 3.0f), 0.0f, 0.0f, 2.0f);
    EXPECT_EQ(g.grad, 1.0f);
    EXPECT_EQ(g.hess, 0.5f);
  }
  // Far out, the hessian is floored at 1e-16 (times the weight).
  EXPECT_EQ(Gradient1(Spec(ElementwiseLoss::kLogistic), 100.0f, 1.0f, 1.0f).hess, 1e-16f);
}

TEST(ElementwiseGradient, Squared) {
  GradPair g = Gradient1(Spec(ElementwiseLoss::kSquared), 1.5f, 3.0f, 2.0f);
  EXPECT_EQ(g.grad, -3.0f);  // (1.5 - 3) * 2
  EXPECT_EQ(g.hess, 2.0f);
  g = Gradient1(Spec(ElementwiseLoss::kSquared, 4.0f), 0.0f, 1.0f, 1.0f);
  EXPECT_EQ(g.grad, -4.0f);  // scale_pos_weight applies to label 1 here too, as in XGBoost
  EXPECT_EQ(g.hess, 4.0f);
}

TEST(ElementwiseGradient, Poisson) {
  // Margin 0: grad (exp(0) - 2) * 3 = -3; hess exp(0 + max_delta_step) * 3.
  GradPair g = Gradient1(Spec(ElementwiseLoss::kPoisson), 0.0f, 2.0f, 3.0f);
  EXPECT_EQ(g.grad, -3.0f);
  EXPECT_EQ(g.hess, 3.0f);
  g = Gradient1(Spec(ElementwiseLoss::kPoisson, 1.0f, 0.7f), 0.0f, 2.0f, 1.0f);
  EXPECT_EQ(g.grad, -1.0f);
  EXPECT_EQ(g.hess, 2.0137527f);  // exp(0.7f) rounded to float
  // scale_pos_weight plays no part.
  g = Gradient1(Spec(ElementwiseLoss::kPoisson, 5.0f), 0.0f, 1.0f, 1.0f);
  EXPECT_EQ(g.grad, 0.0f);
  EXPECT_EQ(g.hess, 1.0f);
}

TEST(ElementwiseGradient, SoftmaxEqualMargins) {
  // Four equal margins: p = 1/4; grad (p - [k == 2]) * 2, hess 2 p (1 - p) * 2 = 0.75.
  const ElementwiseSpec s = Spec(ElementwiseLoss::kSoftmax, 1.0f, 0.0f, 4);
  for (float m : {0.0f, -1.0f, 3.0f}) {
    const float margins[4] = {m, m, m, m};
    GradPair g[4];
    ElementwiseGradient(s, margins, 2.0f, 2.0f, g);
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(g[k].grad, k == 2 ? -1.5f : 0.5f) << "margin " << m << " class " << k;
      EXPECT_EQ(g[k].hess, 0.75f) << "margin " << m << " class " << k;
    }
  }
}

TEST(ElementwiseGradient, SoftmaxHessianFloor) {
  // exp(-200) is 0 in float: p = {1, 0}, both hessians 2 p (1 - p) = 0 floored at 1e-16.
  const float margins[2] = {0.0f, -200.0f};
  GradPair g[2];
  ElementwiseGradient(Spec(ElementwiseLoss::kSoftmax, 1.0f, 0.0f, 2), margins, 0.0f, 1.0f, g);
  EXPECT_EQ(g[0].grad, 0.0f);
  EXPECT_EQ(g[1].grad, 0.0f);
  EXPECT_EQ(g[0].hess, 1e-16f);
  EXPECT_EQ(g[1].hess, 1e-16f);
}

TEST(ElementwiseLabelOk, Rules) {
  EXPECT_TRUE(ElementwiseLabelOk(Spec(ElementwiseLoss::kSquared), -7.0f));
  EXPECT_TRUE(ElementwiseLabelOk(Spec(ElementwiseLoss::kLogistic), 0.3f));
  EXPECT_FALSE(ElementwiseLabelOk(Spec(ElementwiseLoss::kLogistic), 1.5f));
  EXPECT_FALSE(ElementwiseLabelOk(Spec(ElementwiseLoss::kLogitRaw), -0.1f));
  EXPECT_TRUE(ElementwiseLabelOk(Spec(ElementwiseLoss::kPoisson), 4.0f));
  EXPECT_FALSE(ElementwiseLabelOk(Spec(ElementwiseLoss::kPoisson), -1.0f));
  const ElementwiseSpec multi = Spec(ElementwiseLoss::kSoftmax, 1.0f, 0.0f, 3);
  EXPECT_TRUE(ElementwiseLabelOk(multi, 0.0f));
  EXPECT_TRUE(ElementwiseLabelOk(multi, 2.0f));
  EXPECT_FALSE(ElementwiseLabelOk(multi, 3.0f));
  EXPECT_FALSE(ElementwiseLabelOk(multi, 1.5f));
  EXPECT_FALSE(ElementwiseLabelOk(multi, -1.0f));
  EXPECT_FALSE(ElementwiseLabelOk(multi, std::numeric_limits<float>::quiet_NaN()));
}

// Rows x groups margins in [-20, 20] with some extremes, labels valid for `name`, weights.
struct Rows {
  DataSet data;
  std::vector<float> margins;
};

Rows RandomRows(const std::string& name, int groups, int rows) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> margin(-20.0f, 20.0f), unit(0.0f, 1.0f);
  std::vector<float> labels, weights, margins;
  const float extremes[] = {0.0f,    100.0f,  -100.0f, 88.7f,
                            -88.7f,  1e-30f,  -0.0f,   std::numeric_limits<float>::quiet_NaN(),
                            1000.0f, -1000.0f};
  constexpr int kExtremes = sizeof(extremes) / sizeof(extremes[0]);
  for (int i = 0; i < rows; ++i) {
    for (int k = 0; k < groups; ++k) {
      margins.push_back(i % 17 == 0 ? extremes[(i / 17 + k) % kExtremes] : margin(rng));
    }
    float label = unit(rng);
    if (name.rfind("multi:", 0) == 0) label = static_cast<float>(rng() % groups);
    if (name == "count:poisson") label = static_cast<float>(rng() % 6);
    if (i % 3 == 0 && name.rfind("multi:", 0) != 0) label = 1.0f;  // scale_pos_weight applies
    labels.push_back(label);
    weights.push_back(0.5f + unit(rng));
  }
  return {LabelRows(labels, weights), margins};
}

// `maxima` is what GradientQuantizer's scan of `got` (rows x groups) finds: each group's largest
// |g| and |h| (as doubles), and whether every value is finite (the maxima are then unused).
void ExpectScannedMaxima(const std::vector<GradPair>& got, int groups,
                         const std::vector<GradientMaxima>& maxima, const std::string& what) {
  ASSERT_EQ(maxima.size(), static_cast<std::size_t>(groups)) << what;
  for (int c = 0; c < groups; ++c) {
    double max_g = 0.0, max_h = 0.0;
    bool finite = true;
    for (std::size_t i = c; i < got.size(); i += groups) {
      finite = finite && std::isfinite(got[i].grad) && std::isfinite(got[i].hess);
      max_g = std::max(max_g, std::fabs(static_cast<double>(got[i].grad)));
      max_h = std::max(max_h, std::fabs(static_cast<double>(got[i].hess)));
    }
    EXPECT_EQ(maxima[c].finite, finite) << what << " group " << c;
    if (!finite) continue;
    EXPECT_EQ(maxima[c].grad, max_g) << what << " group " << c;
    EXPECT_EQ(maxima[c].hess, max_h) << what << " group " << c;
    EXPECT_GT(max_g, 0.0) << what;
  }
}

// The same rows with every NaN margin replaced, so that every gradient is finite.
Rows FiniteRows(Rows r) {
  for (float& m : r.margins) {
    if (std::isnan(m)) m = 0.5f;
  }
  return r;
}

TEST(ElementwiseGradient, CpuObjectivesAgreeRowByRow) {
  const char* names[] = {"reg:squarederror", "reg:logistic",  "binary:logistic", "binary:logitraw",
                         "count:poisson",    "multi:softmax", "multi:softprob"};
  for (const char* name : names) {
    Params p;
    p.objective = name;
    p.num_class = 5;
    p.scale_pos_weight = 1.5;
    p.nthread = 3;
    const auto obj = Objective::Create(p);
    ElementwiseSpec spec;
    ASSERT_TRUE(obj->Elementwise(&spec)) << name;
    const int groups = obj->NumGroups();
    ASSERT_EQ(spec.num_class, groups) << name;
    // With weights and without (the reg/binary losses then take a loop of their own).
    for (bool weighted : {true, false}) {
      Rows r = RandomRows(name, groups, 1001);
      if (!weighted) r.data.weight.clear();
      std::vector<GradPair> got;
      obj->GetGradient(r.data, r.margins, 0, &got);
      ASSERT_EQ(got.size(), r.margins.size());
      // The maxima from the same pass are the scan's; with NaN margins, not finite.
      for (const Rows& m : {r, FiniteRows(r)}) {
        std::vector<GradPair> again, scanned;
        std::vector<GradientMaxima> maxima;
        ASSERT_TRUE(obj->GetGradientAndMaxima(m.data, m.margins, 0, &again, &maxima)) << name;
        obj->GetGradient(m.data, m.margins, 0, &scanned);
        ASSERT_EQ(std::memcmp(again.data(), scanned.data(), again.size() * sizeof(GradPair)), 0);
        ExpectScannedMaxima(again, groups, maxima, name);
      }
      for (size_t i = 0; i < r.data.NumRows(); ++i) {
        std::vector<GradPair> want(groups);
        ElementwiseGradient(spec, &r.margins[i * groups], r.data.label[i], r.data.Weight(i),
                            want.data());
        ASSERT_EQ(std::memcmp(want.data(), &got[i * groups], groups * sizeof(GradPair)), 0)
            << name << " row " << i << (weighted ? " weighted" : "");
        const float label = r.data.label[i];
        ASSERT_EQ(obj->CheckLabel(label) == nullptr, ElementwiseLabelOk(spec, label)) << name;
      }
    }
  }
  Params p;
  p.objective = "rank:pairwise";
  ElementwiseSpec spec;
  const auto rank = Objective::Create(p);
  EXPECT_FALSE(rank->Elementwise(&spec));
  // Its maxima are left to the caller's scan.
  const Rows r{LabelRows({1.0f, 0.0f, 2.0f, 0.0f}, {}, {0, 4}), {0.1f, 0.2f, -0.3f, 0.4f}};
  std::vector<GradPair> got;
  std::vector<GradientMaxima> maxima;
  EXPECT_FALSE(rank->GetGradientAndMaxima(r.data, r.margins, 0, &got, &maxima));
  EXPECT_EQ(got.size(), r.margins.size());
}

// The reg/binary losses' vector loop, compiled for each instruction set this CPU has: the same
// bits as ElementwiseGradient row by row (NaN, infinite and clamped margins included).
TEST(ElementwiseGradient, RegLossLanesEveryInstructionSet) {
  const std::pair<GradientIsa, const char*> isas[] = {{GradientIsa::kBaseline, "baseline"},
                                                      {GradientIsa::kAvx2, "avx2"},
                                                      {GradientIsa::kAvx512, "avx512f"}};
  const ElementwiseLoss losses[] = {ElementwiseLoss::kSquared, ElementwiseLoss::kLogistic,
                                    ElementwiseLoss::kLogitRaw};
  for (const auto& [isa, isa_name] : isas) {
    if (!GradientIsaAvailable(isa)) {
      std::printf("RegLossLanesEveryInstructionSet: this CPU has no %s\n", isa_name);
      continue;
    }
    for (ElementwiseLoss loss : losses) {
      const ElementwiseSpec spec = Spec(loss, 1.5f);
      for (bool weighted : {true, false}) {
        Rows r = RandomRows("reg:logistic", 1, 5001);  // chunks of the maxima, and a tail
        if (!weighted) r.data.weight.clear();
        std::vector<GradPair> got;
        ElementwiseGradients(spec, "labels", r.data, r.margins, 3, &got, nullptr, isa);
        for (const Rows& m : {r, FiniteRows(r)}) {
          std::vector<GradPair> again;
          std::vector<GradientMaxima> maxima;
          ElementwiseGradients(spec, "labels", m.data, m.margins, 3, &again, &maxima, isa);
          ExpectScannedMaxima(again, 1, maxima, isa_name);
        }
        for (size_t i = 0; i < r.data.NumRows(); ++i) {
          const GradPair want = Gradient1(spec, r.margins[i], r.data.label[i], r.data.Weight(i));
          ASSERT_EQ(std::memcmp(&want, &got[i], sizeof(GradPair)), 0)
              << isa_name << " loss " << static_cast<int>(loss) << " row " << i
              << (weighted ? " weighted" : "");
        }
      }
    }
  }
}

// binary:logistic's transform in lanes, for each instruction set this CPU has and 1 or 3 threads:
// the scalar Sigmoid's bits on NaN, infinities, the clamp at 88.7, subnormals and random floats.
TEST(ElementwiseGradient, SigmoidLanesEveryInstructionSet) {
  float signaling;
  const uint32_t signaling_bits = 0xff800123u;
  std::memcpy(&signaling, &signaling_bits, sizeof(signaling));
  std::vector<float> values = {NAN,     -NAN,     signaling, INFINITY, -INFINITY, 0.0f,    -0.0f,
                               88.7f,   -88.7f,   88.71f,    -88.71f,  1e-45f,    -1e-45f, 1e-38f,
                               3.4e38f, -3.4e38f, 16.5f,     -16.5f,   0.5f};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> margin(-40.0f, 40.0f);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 20000; ++i) values.push_back(margin(rng));
  for (int i = 0; i < 20000; ++i) {
    const uint32_t b = bits(rng);
    float v;
    std::memcpy(&v, &b, sizeof(v));
    values.push_back(v);
  }
  for (GradientIsa isa : {GradientIsa::kBaseline, GradientIsa::kAvx2, GradientIsa::kAvx512}) {
    if (!GradientIsaAvailable(isa)) continue;
    for (int nthread : {1, 3}) {
      std::vector<float> got = values;
      SigmoidInPlace(&got, nthread, isa);
      for (size_t i = 0; i < values.size(); ++i) {
        const float want = Sigmoid(values[i]);
        ASSERT_EQ(std::memcmp(&want, &got[i], sizeof(float)), 0)
            << "isa " << static_cast<int>(isa) << " value " << values[i];
      }
    }
  }
}

TEST(ElementwiseGradient, TransformsUseExpF) {
  Params p;
  p.objective = "count:poisson";
  std::vector<float> preds{-3.5f, 0.25f, 7.0f};
  Objective::Create(p)->PredTransform(&preds);
  EXPECT_EQ(preds, (std::vector<float>{ExpF(-3.5f), ExpF(0.25f), ExpF(7.0f)}));
  p.objective = "binary:logistic";
  preds = {-3.5f, 0.25f, 7.0f};
  Objective::Create(p)->PredTransform(&preds);
  EXPECT_EQ(preds, (std::vector<float>{Sigmoid(-3.5f), Sigmoid(0.25f), Sigmoid(7.0f)}));
}

}  // namespace
}  // namespace ringboost
