// Device gradients against the CPU objectives and GradientQuantizer (the CPU references): the same
// float gradients bit for bit, the same scales, the same quantized integers with row subsampling.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/random.h"
#include "device_test_helpers.h"
#include "objective/objective.h"
#ifdef RINGBOOST_USE_CUDA
#include "tree/gpu_hist/gradient.h"
#include "tree/gpu_hist/histogram.h"
#endif

namespace ringboost {
namespace {

// `rows` rows with labels valid for `objective`, weights (when `weighted`) and margins over a wide
// range (sigmoid and exp saturate at the ends).
struct GradientCase {
  DataSet data;
  std::vector<float> margins;
};

GradientCase MakeCase(const std::string& objective, int groups, uint32_t rows, bool weighted) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  GradientCase c;
  for (uint32_t i = 0; i < rows; ++i) {
    float label = unit(rng);
    if (objective.rfind("binary:", 0) == 0) label = label < 0.4f ? 0.0f : 1.0f;
    if (objective == "count:poisson") label = std::floor(label * 6.0f);
    if (objective.rfind("multi:", 0) == 0) label = static_cast<float>(rng() % groups);
    c.data.label.push_back(label);
    if (weighted) c.data.weight.push_back(0.25f + unit(rng));
    c.data.row_ptr.push_back(0);
    for (int k = 0; k < groups; ++k) c.margins.push_back((unit(rng) - 0.5f) * 40.0f);
  }
  c.data.name = "generated";
  return c;
}

#ifdef RINGBOOST_USE_CUDA
// multi:softprob's gradients of 30,000 weighted rows of 3 classes, as a worker whose first row
// is `first_row` holds them, on the host and uploaded to a DeviceGradients.
struct MulticlassGradients {
  GradientCase c;
  std::vector<GradPair> gpair;
};
MulticlassGradients MakeMulticlassGradients(uint64_t first_row) {
  Params p;
  p.objective = "multi:softprob";
  p.num_class = 3;
  MulticlassGradients m{MakeCase(p.objective, 3, 30000, true), {}};
  m.c.data.first_row = first_row;
  Objective::Create(p)->GetGradient(m.c.data, m.c.margins, 0, &m.gpair);
  return m;
}

// The learner's keep mask of row subsampling at `rate` (empty: every row), as RowSampling draws it.
std::vector<uint8_t> KeepMask(const RowSampling& s, uint64_t rows) {
  std::vector<uint8_t> keep;
  if (s.rate >= 1.0) return keep;
  for (uint64_t i = 0; i < rows; ++i) {
    keep.push_back(CounterUniform(s.seed, static_cast<uint64_t>(RandomStream::kRowSubsample),
                                  s.round, s.first_row + i) < s.rate);
  }
  return keep;
}

void ExpectDeviceGradientsEqualCpu(const std::string& objective, Params p, bool weighted) {
  p.objective = objective;
  const std::unique_ptr<Objective> obj = Objective::Create(p);
  const int groups = obj->NumGroups();
  const GradientCase c = MakeCase(objective, groups, 20000, weighted);
  std::vector<GradPair> expected;
  obj->GetGradient(c.data, c.margins, 0, &expected);
  ElementwiseSpec spec;
  ASSERT_TRUE(obj->Elementwise(&spec)) << objective;
  DeviceGradients dev(c.data, groups, c.margins);
  EXPECT_EQ(dev.Compute(spec), c.data.NumRows()) << objective;  // every label valid
  const std::vector<GradPair> got = dev.GradientsToHost();
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(GradPair)), 0)
      << objective << (weighted ? " weighted" : "");
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(GradPair)), 0)
        << objective << " entry " << i << ": " << got[i].grad << ", " << got[i].hess << " vs "
        << expected[i].grad << ", " << expected[i].hess;
  }
}
#endif

TEST(DeviceGradient, ElementwiseObjectivesGiveTheCpuBits) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  Params p;
  for (bool weighted : {false, true}) {
    for (const char* name : {"reg:squarederror", "reg:logistic", "binary:logistic",
                             "binary:logitraw", "count:poisson"}) {
      ExpectDeviceGradientsEqualCpu(name, p, weighted);
    }
  }
  p.scale_pos_weight = 3.5;
  ExpectDeviceGradientsEqualCpu("binary:logistic", p, true);
  p.max_delta_step = 0.3;
  p.given["max_delta_step"] = "0.3";
  ExpectDeviceGradientsEqualCpu("count:poisson", p, true);
  Params m;
  m.num_class = 5;
  ExpectDeviceGradientsEqualCpu("multi:softprob", m, false);
  ExpectDeviceGradientsEqualCpu("multi:softmax", m, true);
#endif
}

TEST(DeviceGradient, RefusedLabelIsFound) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  GradientCase c = MakeCase("binary:logistic", 1, 1000, false);
  c.data.label[700] = 2.0f;
  c.data.label[900] = -1.0f;
  Params p;
  p.objective = "binary:logistic";
  ElementwiseSpec spec;
  ASSERT_TRUE(Objective::Create(p)->Elementwise(&spec));
  DeviceGradients dev(c.data, 1, c.margins);
  EXPECT_EQ(dev.Compute(spec), 700u);
#endif
}

// Quantized gradients of each group, with and without row subsampling, against the learner's CPU
// steps: GradientQuantizer on the host gradients, the keep mask, QuantizeAll.
TEST(DeviceGradient, QuantizedAsTheCpuWithSubsampling) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  const MulticlassGradients m = MakeMulticlassGradients(12345);  // a second worker's rows
  const GradientCase& c = m.c;
  const std::vector<GradPair>& gpair = m.gpair;
  DeviceGradients dev(c.data, 3, c.margins);
  dev.Upload(gpair);
  auto comm = rabit::MakeLocalCommunicator();
  DeviceBuffer<GradientSum> d_out(c.data.NumRows());
  for (double rate : {1.0, 0.7}) {
    const RowSampling sampling{rate, 17, 4, c.data.first_row};
    const std::vector<uint8_t> keep = KeepMask(sampling, c.data.NumRows());
    for (int k = 0; k < 3; ++k) {
      const GradientQuantizer host_q(gpair, 3, k, comm.get(), 2);
      const GradientQuantizer dev_q = dev.Quantizer(k, comm.get());
      EXPECT_EQ(dev_q.grad_exp(), host_q.grad_exp()) << k;
      EXPECT_EQ(dev_q.hess_exp(), host_q.hess_exp()) << k;
      const std::vector<GradientSum> expected = host_q.QuantizeAll(gpair, 3, k, keep, 2);
      const GradientSum sum = dev.Quantize(dev_q, k, sampling, d_out.data());
      EXPECT_TRUE(d_out.ToHost() == expected) << "group " << k << " rate " << rate;
      GradientSum expected_sum;
      for (const GradientSum& q : expected) expected_sum += q;
      EXPECT_EQ(sum, expected_sum) << "group " << k << " rate " << rate;
    }
  }
#endif
}

// Low-bit gradients (quantized_grad=on) with and without row subsampling against the CPU's
// QuantizeAllLowBit: the same draws, the same rounded integers, packed one word a row; the exact
// ones of the same pass as QuantizeAll's.
TEST(DeviceGradient, LowBitAsTheCpuWithSubsampling) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  const MulticlassGradients m = MakeMulticlassGradients(777);
  const GradientCase& c = m.c;
  const std::vector<GradPair>& gpair = m.gpair;
  DeviceGradients dev(c.data, 3, c.margins);
  dev.Upload(gpair);
  auto comm = rabit::MakeLocalCommunicator();
  DeviceBuffer<uint32_t> d_out(c.data.NumRows());
  DeviceBuffer<GradientSum> d_exact(c.data.NumRows());
  for (double rate : {1.0, 0.6}) {
    const RowSampling sampling{rate, 23, 5, c.data.first_row};
    const std::vector<uint8_t> keep = KeepMask(sampling, c.data.NumRows());
    for (int k = 0; k < 3; ++k) {
      const GradientQuantizer exact = dev.Quantizer(k, comm.get());
      DeviceGradients::LowBitOutput low{
          exact.LowBit(), static_cast<uint64_t>(5 * 3 + k), d_out.data(), {}};
      std::vector<GradientSum> expected;
      low.quantizer.QuantizeAllLowBit(gpair, 3, k, keep, 23, low.key, c.data.first_row, 2,
                                      &expected);
      const GradientSum exact_sum = dev.Quantize(exact, k, sampling, d_exact.data(), &low);
      const std::vector<GradientSum> expected_exact = exact.QuantizeAll(gpair, 3, k, keep, 2);
      EXPECT_TRUE(d_exact.ToHost() == expected_exact) << "group " << k << " rate " << rate;
      GradientSum expected_exact_sum;
      for (const GradientSum& q : expected_exact) expected_exact_sum += q;
      EXPECT_EQ(exact_sum, expected_exact_sum) << "group " << k << " rate " << rate;
      const std::vector<uint32_t> got = d_out.ToHost();
      ASSERT_EQ(got.size(), expected.size());
      GradientSum expected_sum;
      int nonzero = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(UnpackLowBit(got[i]), expected[i]) << "group " << k << " row " << i;
        expected_sum += expected[i];
        nonzero += expected[i].g != 0;
      }
      EXPECT_GT(nonzero, 1000) << "group " << k;  // the values are not all zero
      EXPECT_EQ(low.sum, expected_sum) << "group " << k << " rate " << rate;
    }
  }
#endif
}

TEST(DeviceGradient, NonFiniteGradientIsAnErrorNamingTheRow) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  GradientCase c = MakeCase("reg:squarederror", 1, 500, false);
  std::vector<GradPair> gpair(500, GradPair{0.5f, 1.0f});
  gpair[321].hess = INFINITY;
  gpair[400].grad = NAN;
  DeviceGradients dev(c.data, 1, c.margins);
  dev.Upload(gpair);
  auto comm = rabit::MakeLocalCommunicator();
  try {
    dev.Quantizer(0, comm.get());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite gradient at row 321"), std::string::npos)
        << e.what();
  }
#endif
}

}  // namespace
}  // namespace ringboost
