// The objective families behind Objective::Create. Each returns nullptr for a name it does not
// own.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "objective/objective.h"

namespace ringboost {

// An objective whose gradients are ElementwiseGradient of each row (elementwise.h): its label
// check, gradients (with the quantizer's maxima, from the same pass) and Elementwise() all come
// from one spec.
class ElementwiseObjective : public Objective {
 public:
  const char* CheckLabel(float label) const override {
    return ElementwiseLabelOk(spec_, label) ? nullptr : label_rule_;
  }
  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    GetGradientAndMaxima(data, preds, iter, out, nullptr);
  }
  bool GetGradientAndMaxima(const DataSet& data, const std::vector<float>& preds, int iter,
                            std::vector<GradPair>* out,
                            std::vector<GradientMaxima>* maxima) const override;
  bool Elementwise(ElementwiseSpec* spec) const override {
    *spec = spec_;
    return true;
  }

 protected:
  // label_rule: what a rejected label breaks (nullptr where every label is valid).
  ElementwiseObjective(const ElementwiseSpec& spec, const char* label_rule, int nthread)
      : spec_(spec), label_rule_(label_rule), nthread_(nthread) {}
  ElementwiseSpec spec_;
  const char* label_rule_;
  int nthread_;
};

std::unique_ptr<Objective> MakeRegressionObjective(const std::string& name, const Params& params);
// reg:pseudohubererror, reg:gamma, reg:tweedie, binary:hinge, reg:squaredlogerror.
std::unique_ptr<Objective> MakeRegressionLossObjective(const std::string& name,
                                                       const Params& params);
// reg:absoluteerror, reg:quantileerror.
std::unique_ptr<Objective> MakeQuantileObjective(const std::string& name, const Params& params);
// survival:cox.
std::unique_ptr<Objective> MakeCoxObjective(const std::string& name, const Params& params);
// survival:aft.
std::unique_ptr<Objective> MakeAftObjective(const std::string& name, const Params& params);
// Throws Error "<data>: <who> needs each row's survival-time interval..." unless `data` has
// label_lower_bound and label_upper_bound for every row (survival:aft, aft-nloglik,
// interval-regression-accuracy).
void CheckAftBounds(const DataSet& data, const char* who);
std::unique_ptr<Objective> MakeMulticlassObjective(const std::string& name, const Params& params);
std::unique_ptr<Objective> MakeRankObjective(const std::string& name, const Params& params);
// rank:map (XGBoost 3.x's LambdaRankMAP, topk pairs).
std::unique_ptr<Objective> MakeRankMapObjective(const std::string& name, const Params& params);

// The instruction set of the reg/binary losses' gradient loop: by default the widest this CPU
// has; tests pick each in turn. Every one gives the same bits.
enum class GradientIsa { kBest, kBaseline, kAvx2, kAvx512 };
bool GradientIsaAvailable(GradientIsa isa);

// The CPU GetGradient of the element-wise objectives: *out (rows x spec.num_class, as `preds`)
// gets ElementwiseGradient of every row of `data`, on `nthread` threads. Throws Error
// "<data name>: <label_rule>" when some label breaks ElementwiseLabelOk. `maxima`, when not null,
// gets each output group's GradientMaxima of *out.
void ElementwiseGradients(const ElementwiseSpec& spec, const char* label_rule, const DataSet& data,
                          const std::vector<float>& preds, int nthread, std::vector<GradPair>* out,
                          std::vector<GradientMaxima>* maxima = nullptr,
                          GradientIsa isa = GradientIsa::kBest);
// Sigmoid(v) of every value (the scalar Sigmoid's bits), in vector lanes on `nthread` threads:
// binary:logistic's transform of the eval sets' margins, every round.
void SigmoidInPlace(std::vector<float>* values, int nthread, GradientIsa isa = GradientIsa::kBest);

}  // namespace ringboost
