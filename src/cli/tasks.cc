// The CLI's tasks: train (with eval log, snapshots, early stopping), pred, dump.
#include "cli/tasks.h"

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "cli/eval_history.h"
#include "cli/output_clash.h"
#include "cli/predict_setup.h"
#include "common/error.h"
#include "common/external_tool.h"
#include "common/file_io.h"
#include "common/logging.h"
#include "common/threads.h"
#include "learner/checkpoint.h"
#include "learner/learner.h"
#include "learner/prediction_output.h"
#include "learner/progress.h"
#include "learner/run_identity.h"
#include "model/explain.h"
#include "model/xgboost_format.h"
#include "tree/predict.h"
#include "tree/trainer.h"

namespace ringboost {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// A metric value as XGBoost's eval log prints it: 17 decimals (std::fixed with max_digits10), 0
// as 0.00000000000000000. to_chars: the same digits under any locale.
std::string EvalLogNumber(double v) {
  char buf[400];  // DBL_MAX has 309 integer digits
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 17);
  return std::string(buf, res.ptr);
}

std::unique_ptr<rabit::Communicator> OpenCommunicator(const Params& params) {
  rabit::CommunicatorConfig config;
  config.backend = params.communicator;
  config.args = params.collective_args;
  return rabit::WithStats(rabit::MakeCommunicator(config));
}

// `key` is the config key that named `uri`, for the messages. `id_base`: the base of LibSVM ids
// that detection (indexing_mode -1) takes, the training data's; -1 detects from this data. Parts
// that detected apart agree: an id 0 in any part makes the ids 0-based in all.
DataSet LoadFor(const std::string& key, const std::string& uri, const Params& params,
                const Objective* objective, rabit::Communicator* comm, int id_base = -1) {
  LoadOptions opt;
  opt.key = key;
  opt.part = comm->Rank();
  opt.num_parts = comm->WorldSize();
  opt.indexing_mode = params.indexing_mode;
  opt.detected_id_base = id_base;
  opt.parse_float = params.parse_float == "xgboost" ? FloatReading::kXGBoost : FloatReading::kExact;
  opt.nthread = params.nthread;
  if (objective != nullptr) {
    opt.check_label = [objective](float y) { return objective->CheckLabel(y); };
  }
  DataSet data = LoadData(uri, opt);
  if (data.id_base_detected && comm->WorldSize() > 1 &&
      comm->AllreduceValue<int32_t>(data.id_base, rabit::Op::kMin) == 0) {
    ReadIdsAsWritten(&data);
  }
  return data;
}

std::string ModelPath(const Params& params, int rounds) {
  char name[32];
  std::snprintf(name, sizeof(name), "%04d.model", rounds);
  std::string dir = params.model_dir.empty() ? "." : params.model_dir;
  return dir + "/" + name;
}

// The format a trained model is written in at `path`: model_format where given; else, as
// XGBoost's CLI, XGBoost's JSON for a name ending in .json (any case), and UBJSON for .ubj (what
// XGBoost 2.0 and later write there; 1.7 wrote its binary, which ringboost reads but does not
// write); else ringboost's own.
ModelFormat ModelFormatFor(const Params& params, const std::string& path) {
  if (params.IsSet("model_format")) return ModelFormatFromName(params.model_format);
  const std::size_t dot = path.find_last_of("./");
  std::string ext = dot == std::string::npos || path[dot] != '.' ? "" : path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "json") return ModelFormat::kXGBoostJson;
  if (ext == "ubj") return ModelFormat::kXGBoostUbj;
  return ModelFormatFromName(params.model_format);
}

// Whether the models this run writes can be written in their formats: a model XGBoost's formats
// cannot hold (its feature names not one per feature) would otherwise stop the run at its last
// step, after the training. Checked on the set-up model (its names are the trained one's); every
// worker ends alike.
void CheckModelExportable(const Params& params, const Model& model, rabit::Communicator* comm) {
  std::string problem;
  if (comm->Rank() == 0) {
    const std::string out =
        params.model_out.empty() ? ModelPath(params, params.num_round) : params.model_out;
    const std::string periodic = ModelPath(params, std::max(params.save_period, 1));
    for (const auto& [key, path] :
         {std::pair<std::string, std::string>("model_out", out), {"save_period", periodic}}) {
      const ModelFormat format = ModelFormatFor(params, path);
      if (!problem.empty() || (key == "save_period" && params.save_period == 0)) continue;
      try {
        WriteModelAs(model, format);
      } catch (const Error& e) {
        problem = key + ": the model cannot be written to " + path + ": " + e.what();
      }
    }
  }
  if (comm->WorldSize() > 1) problem = BroadcastText(problem, 0, comm);
  if (!problem.empty()) RB_FAIL(problem);
}

// Early stopping on the last metric of the last eval set.
struct EarlyStop {
  int patience = 0;
  bool maximize = false;
  int best_round = -1;
  double best = 0.0;
  // True when training should stop after `round`.
  bool Observe(int round, double value) {
    bool better = best_round < 0 || (maximize ? value > best : value < best);
    if (better) {
      best = value;
      best_round = round;
    }
    return Exhausted(round);
  }
  // True when the rounds up to `round` have used up the patience (a resumed run that stopped).
  bool Exhausted(int round) const {
    return patience > 0 && best_round >= 0 && round - best_round >= patience;
  }
};

// Every output path is checked before any data is read (rank 0's paths: only rank 0 writes);
// every rank stops with rank 0's error.
void CheckOutputPaths(const Params& params, rabit::Communicator* comm) {
  std::string problem = comm->Rank() == 0 ? TaskOutputsProblem(params) : "";
  if (comm->WorldSize() > 1) problem = BroadcastText(problem, 0, comm);
  if (!problem.empty()) RB_FAIL(problem);
}

// XGBoost refuses early stopping without a validation set ("Must have at least 1 validation
// dataset for early stopping"); silently training every round would be the surprise.
void CheckEarlyStopping(const Params& params) {
  if (params.early_stopping_rounds > 0 && params.evals.empty() && !params.eval_train) {
    RB_FAIL("early_stopping_rounds=" << params.early_stopping_rounds
                                     << " needs an eval set to watch: add eval[NAME]=<data uri> "
                                        "(the last one is watched), or set eval_train=1 to "
                                        "watch the training data, or early_stopping_rounds=0");
  }
  if (!params.eval_history.empty() && params.evals.empty() && !params.eval_train) {
    RB_FAIL("eval_history=" << params.eval_history
                            << " records the eval results, and there are none: add "
                               "eval[NAME]=<data uri> or eval_train=1, or drop eval_history");
  }
}

// The eval set names in EvalOneRound's order (eval[NAME]s, then train).
std::vector<std::string> EvalSetNames(const Params& params) {
  std::vector<std::string> names;
  for (const auto& e : params.evals) names.push_back(e.first);
  if (params.eval_train) names.push_back("train");
  return names;
}

// Every worker must train with the same settings (nthread and verbosity excepted: they are the
// machine's own). Each rank's explicitly given keys are gathered; all ranks stop with the same
// error naming the first key that differs.
void CheckSameConfig(const Params& params, rabit::Communicator* comm) {
  if (comm->WorldSize() == 1) return;
  std::string mine;
  for (const auto& [key, value] : params.given) {
    if (key != "nthread" && key != "verbosity") mine += key + "=" + value + "\n";
  }
  std::vector<uint64_t> sizes(comm->WorldSize());
  uint64_t size = mine.size();
  ThrowIfError(comm->AllgatherRaw(&size, sizeof(size), sizes.data()));
  std::vector<char> all;
  ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size(), &all));
  std::vector<std::map<std::string, std::string>> configs(comm->WorldSize());
  std::size_t at = 0;
  for (int r = 0; r < comm->WorldSize(); ++r) {
    std::istringstream lines(std::string(all.data() + at, sizes[r]));
    at += sizes[r];
    for (std::string line; std::getline(lines, line);) {
      const std::size_t eq = line.find('=');
      configs[r][line.substr(0, eq)] = line.substr(eq + 1);
    }
  }
  for (int r = 1; r < comm->WorldSize(); ++r) {
    std::map<std::string, std::string> keys = configs[0];
    keys.insert(configs[r].begin(), configs[r].end());
    for (const auto& entry : keys) {
      auto value = [&](int rank) {
        auto it = configs[rank].find(entry.first);
        return it == configs[rank].end() ? std::string("(not set)") : "'" + it->second + "'";
      };
      if (value(0) != value(r)) {
        RB_FAIL("the workers' settings differ: " << entry.first << " is " << value(r) << " on rank "
                                                 << r << " but " << value(0)
                                                 << " on rank 0; every worker must train with "
                                                    "the same config and key=value arguments");
      }
    }
  }
}

// A deterministic fault for the restart tests: RINGBOOST_TEST_KILL_AT=RANK:ROUND makes that rank
// kill itself with SIGKILL as round ROUND begins (as `kill -9` from outside would).
struct KillHook {
  int rank = -1, round = -1;
  void MaybeDie(int my_rank, int my_round) const {
    if (my_rank == rank && my_round == round) raise(SIGKILL);
  }
};

KillHook KillHookFromEnvironment() {
  KillHook hook;
  if (const char* v = std::getenv("RINGBOOST_TEST_KILL_AT")) {
    if (std::sscanf(v, "%d:%d", &hook.rank, &hook.round) != 2) hook = KillHook();
  }
  return hook;
}

// Where training starts: the communicator's checkpoint after a recovery, else a checkpoint of
// checkpoint_dir that belongs to this run, else model_in, else nothing.
struct Start {
  bool have_init = false;
  Model init;
  int base_rounds = 0;   // model_in's rounds: this run adds num_round rounds to them
  int rounds_done = 0;   // rounds of this run already in `init` (a resumed checkpoint)
  std::string identity;  // the run's identity, with checkpoint_dir (checkpoint.h)
};

Start StartingModel(const Params& params, const DataSet& train,
                    const std::vector<std::pair<std::string, DataSet>>& evals,
                    rabit::Communicator* comm) {
  Start s;
  std::string model_in_text;
  if (!params.model_in.empty()) {
    model_in_text = ReadWholeFile(params.model_in);
    s.init = ReadModelAnyFormat(model_in_text, params.model_in);
    s.have_init = true;
    s.base_rounds = s.init.num_rounds;
  }
  if (!params.checkpoint_dir.empty()) {
    s.identity = RunIdentity(params, train, evals, model_in_text, s.base_rounds, comm);
  }
  int version = 0;
  std::string text;
  ThrowIfError(comm->LoadCheckPoint(&text, &version));
  if (version > 0) {
    s.init = Model::FromJson(text, "the checkpoint of the job");
    s.have_init = true;
    s.rounds_done = s.init.num_rounds - s.base_rounds;
    RB_LOG(kWarning, "rank " << comm->Rank() << " resumes at round " << s.rounds_done);
    return s;
  }
  if (params.checkpoint_dir.empty()) return s;
  ResumePoint point = ResumeFromCheckpointDir(params, s.identity, s.base_rounds, comm);
  if (point.found) {
    s.init = std::move(point.model);
    s.have_init = true;
    s.rounds_done = s.init.num_rounds - s.base_rounds;
    if (comm->Rank() == 0) {
      LogNote("resuming from round " + std::to_string(s.rounds_done) + " (" + point.path + ")");
    }
  }
  return s;
}

// `history`: rank 0's eval_history (else null), kept across rollbacks.
int TrainOnce(const Params& params, rabit::Communicator* comm, EvalHistory* history);

}  // namespace

int RunTrain(const Params& params) {
  SetVerbosity(params.verbosity);
  // A device that cannot be had is named before any data is read.
  RoundTrainer::CheckDevice(params.device);
  CheckThreadStacks(params.nthread);
  if (params.data.empty()) RB_FAIL("task=train needs data=<training data uri>");
  CheckEarlyStopping(params);
  auto comm = OpenCommunicator(params);
  RB_LOG(kInfo, "communicator " << comm->Backend() << ": rank " << comm->Rank() << " of "
                                << comm->WorldSize() << ", " << ResolveThreads(params.nthread)
                                << " thread(s)");
  std::unique_ptr<EvalHistory> history;
  if (comm->Rank() == 0 && !params.eval_history.empty()) {
    history = std::make_unique<EvalHistory>(params.eval_history, EvalSetNames(params));
  }
  // A lost worker (tcp with rabit_recover) sends every worker back here, to the agreed checkpoint.
  for (;;) {
    try {
      TrainOnce(params, comm.get(), history.get());
      break;
    } catch (const RecoveredError& e) {
      RB_LOG(kWarning, e.what());
    }
  }
  ThrowIfError(comm->Shutdown());
  return 0;
}

namespace {

int TrainOnce(const Params& params, rabit::Communicator* comm, EvalHistory* history) {
  CheckSameConfig(params, comm);
  CheckOutputPaths(params, comm);
  Learner learner(params, comm);
  auto t0 = Clock::now();
  DataSet train = LoadFor("data", params.data, params, &learner.objective(), comm);
  // Detected ids count in every eval set as in the training data (a set without an id 0 is
  // not therefore 1-based).
  const int id_base = train.id_base_detected ? train.id_base : -1;
  std::vector<std::pair<std::string, DataSet>> evals;
  for (const auto& e : params.evals) {
    evals.emplace_back(e.first, LoadFor("eval[" + e.first + "]", e.second, params,
                                        &learner.objective(), comm, id_base));
  }
  double load_s = Seconds(t0);
  const Start start = StartingModel(params, train, evals, comm);
  SetupTimes setup =
      learner.Setup(std::move(train), std::move(evals), start.have_init ? &start.init : nullptr);
  RB_LOG(kInfo, "setup: load " << load_s << " s, cuts " << setup.cuts_s << " s, binning "
                               << setup.binning_s << " s");
  CheckModelExportable(params, learner.model(), comm);
  const bool is_root = comm->Rank() == 0;
  EarlyStop stop{params.early_stopping_rounds, learner.LastMetricMaximize()};
  // A resumed checkpoint carries the early stopping state (best_iteration is absolute).
  if (start.rounds_done > 0 && start.init.best_iteration >= start.base_rounds) {
    stop.best_round = start.init.best_iteration - start.base_rounds;
    stop.best = start.init.best_score;
  }
  auto train_start = Clock::now();
  const rabit::CollectiveStats before = comm->Stats();
  // A checkpoint resumes at its round; model_in adds num_round rounds to its own. A checkpoint
  // of a run that early stopping ended trains no more rounds.
  const int first_round = start.rounds_done;
  if (history != nullptr) history->ResumeAt(first_round);
  Progress progress(first_round, params.num_round, is_root);
  const KillHook kill_hook = KillHookFromEnvironment();
  int rounds_done = first_round;
  const bool stopped_before = first_round > 0 && stop.Exhausted(first_round - 1);
  for (int i = first_round; i < params.num_round && !stopped_before; ++i) {
    kill_hook.MaybeDie(comm->Rank(), i);
    auto round_start = Clock::now();
    learner.UpdateOneRound();
    rounds_done = i + 1;
    auto results = learner.EvalOneRound();
    const double device_s = learner.LastRoundDeviceSeconds();
    RB_LOG(kInfo,
           "round " << i << ": " << Seconds(round_start) << " s"
                    << (device_s >= 0 ? " (device " + std::to_string(device_s) + " s)" : ""));
    if (is_root && !results.empty()) {
      progress.Clear();
      std::string line = "[" + std::to_string(i) + "]";
      for (const auto& r : results) line += "\t" + r.first + ":" + EvalLogNumber(r.second);
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
    if (history && !results.empty()) history->Add(i, results);
    progress.Update(i + 1, !results.empty());
    const std::size_t watched = learner.EarlyStoppingIndex();
    const bool stop_now = watched < results.size() && stop.Observe(i, results[watched].second);
    if (params.early_stopping_rounds > 0 && stop.best_round >= 0) {  // checkpoints carry it
      learner.model().best_iteration = start.base_rounds + stop.best_round;
      learner.model().best_score = stop.best;
    }
    const int every = params.save_period > 0 ? params.save_period : 1;
    if (!params.checkpoint_dir.empty() && is_root && (i + 1) % every == 0) {
      WriteCheckpoint(params.checkpoint_dir, learner.model(), i + 1, start.identity);
    }
    if (comm->Recovers()) ThrowIfError(comm->CheckPoint(learner.model().ToJson()));
    if (params.save_period > 0 && (i + 1) % params.save_period == 0 && is_root) {
      const std::string path = ModelPath(params, i + 1);
      SaveModelAs(learner.model(), path, ModelFormatFor(params, path));
    }
    if (stop_now) {
      if (is_root) {
        std::printf("Stopping. Best iteration:\n[%d]\t%s:%s\n", stop.best_round,
                    results[watched].first.c_str(), EvalLogNumber(stop.best).c_str());
        // This run's rounds count from 0, the model's best_iteration from model_in's first.
        if (start.base_rounds > 0) {
          std::printf("(the model's best_iteration: %d, counting model_in's %d rounds)\n",
                      start.base_rounds + stop.best_round, start.base_rounds);
        }
      }
      break;
    }
  }
  progress.Finish();
  if (history != nullptr) history->Finish();
  double train_s = Seconds(train_start);
  RB_LOG(kInfo, "training: " << rounds_done << " rounds in " << train_s << " s");
  const rabit::CollectiveStats after = comm->Stats();
  if (rounds_done > 0) {
    RB_LOG(kInfo, "collective in training: "
                      << (after.calls - before.calls) / rounds_done << " calls, "
                      << (after.bytes - before.bytes) / rounds_done << " bytes per round, "
                      << (after.sent - before.sent) / rounds_done
                      << " bytes sent per worker per round; " << after.seconds - before.seconds
                      << " s (" << 100 * (after.seconds - before.seconds) / std::max(train_s, 1e-9)
                      << "% of training)");
  }
  RB_LOG(kDebug, "phases: " << learner.PhaseReport());
  std::string out = params.model_out.empty() ? ModelPath(params, rounds_done) : params.model_out;
  // The last snapshot already is the final model unless early stopping added its best round.
  bool saved_by_period = params.model_out.empty() && params.save_period > 0 &&
                         rounds_done % params.save_period == 0 && params.early_stopping_rounds == 0;
  if (is_root && !saved_by_period) {
    SaveModelAs(learner.model(), out, ModelFormatFor(params, out));
  }
  if (is_root) LogNote("model written to " + out);
  return 0;
}

}  // namespace

int RunPredict(const Params& params) {
  SetVerbosity(params.verbosity);
  RoundTrainer::CheckDevice(params.device);
  CheckThreadStacks(params.nthread);
  if (params.model_in.empty()) RB_FAIL("task=pred needs model_in=<model file>");
  if (params.test_data.empty()) RB_FAIL("task=pred needs test:data=<data uri>");
  auto comm = OpenCommunicator(params);
  CheckOutputPaths(params, comm.get());
  Model model = Model::Load(params.model_in);
  std::unique_ptr<Objective> objective = PredictionObjective(params, &model);
  DataSet test = LoadFor("test:data", params.test_data, params, nullptr, comm.get());
  CheckFeatureCount(params.test_data, comm->AllreduceValue<uint64_t>(test.num_col, rabit::Op::kMax),
                    params.model_in, model.num_feature);
  // Every round predicts unless limited, also after early stopping (XGBoost's Booster).
  const RoundRange range = PredictionRounds(params, model);
  const bool every_round = range.begin == 0 && range.end == model.num_rounds;
  if (params.ntree_limit == 0 && params.iteration_end == 0 && model.best_iteration >= 0 &&
      model.best_iteration + 1 < model.num_rounds && comm->Rank() == 0) {
    LogNote("predicting with all " + std::to_string(model.num_rounds) +
            " rounds; early stopping found round " + std::to_string(model.best_iteration) +
            " best: ntree_limit=" + std::to_string(model.best_iteration + 1) +
            " predicts with the rounds up to it");
  }
  if (!every_round) model = SliceRounds(std::move(model), range);
  const int rounds = 0;  // all of the (sliced) model's
  ExplainKind explain;
  const bool explains = ExplainKindFromParams(params, &explain);
  // Explanations choose their SHAP tables by the rows of the whole job, as one process would.
  const uint64_t job_rows =
      explains ? comm->AllreduceValue<uint64_t>(test.NumRows(), rabit::Op::kSum) : 0;
  const Clock::time_point predict_start = Clock::now();
  std::vector<float> preds =
      explains ? Explain(model, test, rounds, explain, ResolveThreads(params.nthread), job_rows)
               : PredictMargin(params.device, model, test, rounds, ResolveThreads(params.nthread));
  const double predict_s = Seconds(predict_start);
  RB_LOG(kInfo, (explains ? "explanations: " : "prediction: ")
                    << test.NumRows() << " rows in " << predict_s << " s ("
                    << static_cast<double>(test.NumRows()) / std::max(predict_s, 1e-9)
                    << " rows/s, device " << params.device << ")");
  int per_row = model.num_groups;
  if (explains) {
    per_row = static_cast<int>(ExplainValuesPerRow(model, explain, rounds));
  } else if (!params.pred_margin) {
    objective->PredTransform(&preds);
    per_row = static_cast<int>(preds.size() / std::max<uint64_t>(test.NumRows(), 1));
  }
  // Explanations are matrices, as XGBoost returns them: a row per line whatever pred_layout says.
  const std::string text = PredictionText(preds, per_row, explains ? "row" : params.pred_layout);
  // Each worker predicted its share of the rows; shares are consecutive in the input, so rank
  // order is input order.
  std::vector<char> all;
  ThrowIfError(comm->AllgathervRaw(text.data(), text.size(), &all));
  if (comm->Rank() == 0) WriteOutput(params.name_pred, std::string(all.begin(), all.end()));
  ThrowIfError(comm->Shutdown());
  return 0;
}

int RunDump(const Params& params) {
  SetVerbosity(params.verbosity);
  if (params.model_in.empty()) RB_FAIL("task=dump needs model_in=<model file>");
  if (params.dump_render != "none") {
    if (params.dump_format != "dot") {
      RB_FAIL("dump_render=" << params.dump_render << " renders a DOT dump: set dump_format=dot");
    }
    RequireTool(kGraphvizDot, "dump_render=" + params.dump_render);
  }
  if (const std::string problem = TaskOutputsProblem(params); !problem.empty()) RB_FAIL(problem);
  Model model = Model::Load(params.model_in);
  const FeatureMap fmap = FeatureMap::For(model, params.fmap);
  const FeatureMap* fm = fmap.names.empty() ? nullptr : &fmap;
  std::string text = params.dump_format == "json" ? DumpJson(model, fm, params.dump_stats)
                     : params.dump_format == "dot"
                         ? DumpDot(model, fm, params.dump_stats, params.dump_tree)
                         : DumpText(model, fm, params.dump_stats);
  if (params.dump_render != "none")
    text = RunTool(kGraphvizDot, {"-T" + params.dump_render}, text, params.dump_render);
  WriteOutput(params.name_dump, text);  // "-" and "stdout": standard output
  return 0;
}

}  // namespace ringboost
