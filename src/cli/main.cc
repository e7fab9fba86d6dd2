// The ringboost executable: picks the task from the command line and runs it. All parsing of
// parameters lives in common/config.cc (tested in-process); this file only maps the command
// forms onto ParseConfig (checking `dump MODEL`'s flags by the table's rules first, so that its
// errors name the flags) and turns every error into `error: <message>` and exit status 1.
//
//   ringboost train CONF [key=value ...]     task=train
//   ringboost predict CONF [key=value ...]   task=pred
//   ringboost dump CONF [key=value ...]      task=dump
//   ringboost dump MODEL [--with-stats] [--format text|json|dot] [--tree K] [--render svg|png]
//                        [--fmap F] [-o OUT]
//                                            a model file directly (stdout unless -o)
//   ringboost CONF [key=value ...]           XGBoost's form; task from the file (default train)
//   ringboost export MODEL --format F -o OUT  a model in another format (cli/model_commands.h)
//   ringboost importance MODEL [--type T]     XGBoost's get_score (cli/model_commands.h)
//   ringboost plot importance|history ...     SVG charts by gnuplot (cli/plot.h)
//   ringboost help [--markdown]              the parameter table
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/model_commands.h"
#include "cli/output_clash.h"
#include "cli/tasks.h"
#include "common/config.h"
#include "common/error.h"
#include "common/external_tool.h"
#include "common/file_io.h"
#include "common/logging.h"
#include "common/output_path.h"
#include "common/params_table.h"

#ifndef RINGBOOST_VERSION
#define RINGBOOST_VERSION "0.1.0"
#endif

namespace ringboost {
namespace {

int RunTask(const std::string& conf, std::vector<std::string> overrides, const char* task) {
  if (task != nullptr) overrides.push_back(std::string("task=") + task);  // the subcommand wins
  Params params = ParseConfig(conf, overrides);
  SetVerbosity(params.verbosity);
  if (params.task == "pred") return RunPredict(params);
  if (params.task == "dump") return RunDump(params);
  return RunTrain(params);
}

// True when `path` holds a model (JSON, UBJSON, XGBoost's binary) rather than a config: its
// first non-blank byte opens a JSON object, or it starts with "binf", or its head holds a NUL
// byte (a 1.x binary without the "binf" header starts with a float; a config is text).
bool IsModelFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const std::size_t first = head.find_first_not_of(" \t\r\n\v\f");
  return (first != std::string::npos && head[first] == '{') || head.rfind("binf", 0) == 0 ||
         head.find('\0') != std::string::npos;
}

struct DumpFlags {
  bool with_stats = false;
  std::string format = "text";
  std::string fmap;
  std::string out = "-";
  int tree = -1;
  std::string render = "none";
};

// The flags' mistakes, named as the user wrote them (--format, -o), not as the dump keys they
// become; the values are checked by the parameter table's rules for those keys.
void CheckDumpFlags(const std::string& model, const DumpFlags& flags) {
  const std::pair<const char*, std::pair<const char*, std::string>> checks[] = {
      {"--format", {"dump_format", flags.format}},
      {"--tree", {"dump_tree", std::to_string(flags.tree)}},
      {"--render", {"dump_render", flags.render}}};
  for (const auto& [flag, key_value] : checks) {
    Params unused;
    std::vector<std::string> warnings;
    const std::string why =
        ApplyValue(*FindParam(key_value.first), key_value.second, &unused, &warnings);
    if (!why.empty()) RB_FAIL(flag << " " << key_value.second << ": " << why);
  }
  if (flags.render != "none") {
    if (flags.format != "dot") {
      RB_FAIL("--render " << flags.render << " renders a DOT dump: add --format dot");
    }
    RequireTool(kGraphvizDot, "--render " + flags.render);
  }
  if (NamesStandardOutput(flags.out)) return;
  std::string problem = OutputFileProblem("--output", flags.out);
  if (problem.empty())
    problem = OutputClash({{"--output", flags.out}}, {{"MODEL", model}, {"--fmap", flags.fmap}});
  if (!problem.empty()) RB_FAIL(problem);
}

// `ringboost dump MODEL ...`: the flags become the dump keys, no config file.
int RunDumpOfModel(const std::vector<std::string>& args, const DumpFlags& flags) {
  CheckDumpFlags(args[0], flags);
  std::vector<std::string> overrides{"task=dump",
                                     "model_in=" + args[0],
                                     "dump_format=" + flags.format,
                                     "name_dump=" + flags.out,
                                     std::string("dump_stats=") + (flags.with_stats ? "1" : "0"),
                                     "dump_tree=" + std::to_string(flags.tree),
                                     "dump_render=" + flags.render};
  if (!flags.fmap.empty()) overrides.push_back("fmap=" + flags.fmap);
  overrides.insert(overrides.end(), args.begin() + 1, args.end());
  return RunDump(ParseConfig("", overrides));
}

// XGBoost's form takes its first argument as a config file: one that does not exist, named like
// a subcommand ("trian", "predcit"), was meant as one.
void CheckNotAMistypedSubcommand(const CLI::App& app, const std::string& conf) {
  std::error_code ec;
  if (std::filesystem::exists(conf, ec) || conf.find_first_of("/.=") != std::string::npos) return;
  std::string best;
  std::size_t best_distance = 3;  // at most two edits
  for (const CLI::App* sub : app.get_subcommands({})) {
    std::vector<std::string> names = sub->get_aliases();
    names.push_back(sub->get_name());
    for (const std::string& name : names) {
      const std::size_t d = EditDistance(conf, name);
      if (d < best_distance) best_distance = d, best = sub->get_name();
    }
  }
  if (!best.empty()) {
    RB_FAIL("no config file '" << conf << "'; did you mean the subcommand `ringboost " << best
                               << "`? (`ringboost --help` lists them)");
  }
}

// A subcommand taking CONF and key=value arguments into *args.
CLI::App* AddTask(CLI::App* app, const char* name, const char* what,
                  std::vector<std::string>* args) {
  CLI::App* sub = app->add_subcommand(name, what);
  sub->add_option("CONF", *args, "config file, then key=value overrides")->required();
  return sub;
}

int Main(int argc, char** argv) {
  CLI::App app{"ringboost: histogram gradient-boosted trees on one core, one GPU or many machines"};
  app.set_version_flag("--version", std::string("ringboost ") + RINGBOOST_VERSION);
  app.footer(
      "XGBoost's form also works: ringboost CONF [key=value ...]. "
      "`ringboost help` lists every parameter.");
  std::vector<std::string> plain_args, train_args, predict_args, dump_args;
  app.add_option(
      "CONF", plain_args,
      "config file, then key=value overrides (XGBoost form: task from the config, default train)");
  CLI::App* train = AddTask(&app, "train", "Train a model (task=train).", &train_args);
  CLI::App* predict = AddTask(&app, "predict", "Predict test:data (task=pred).", &predict_args);
  predict->alias("pred");  // the task's own name
  CLI::App* dump = AddTask(&app, "dump",
                           "Dump model_in as text or JSON (task=dump), or a MODEL file given "
                           "directly in place of CONF.",
                           &dump_args);
  DumpFlags dump_flags;
  dump->add_flag("--with-stats", dump_flags.with_stats, "MODEL form: gain and cover too");
  dump->add_option("--format", dump_flags.format, "MODEL form: text, json or dot (Graphviz)");
  dump->add_option("--tree", dump_flags.tree, "MODEL form, dot: the tree to draw (default all)");
  dump->add_option("--render", dump_flags.render,
                   "MODEL form, dot: svg or png, rendered by Graphviz's dot (package graphviz)");
  dump->add_option("--fmap", dump_flags.fmap, "MODEL form: feature map for names");
  dump->add_option("-o,--output", dump_flags.out, "MODEL form: output file (default stdout)");
  ModelCommands model_commands(&app);
  CLI::App* help = app.add_subcommand("help", "Print every parameter: aliases, type, default.");
  bool markdown = false;
  help->add_flag("--markdown", markdown, "Print docs/parameters.md instead");
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << "\n" << app.help();
    return 1;
  }
  auto run = [](const std::vector<std::string>& args, const char* task) {
    return RunTask(args[0], std::vector<std::string>(args.begin() + 1, args.end()), task);
  };
  if (*help) {
    std::cout << (markdown ? ParametersMarkdown() : ParametersHelp());
    return 0;
  }
  int exit_code = 0;
  if (model_commands.Run(&exit_code)) return exit_code;
  if (*train) return run(train_args, "train");
  if (*predict) return run(predict_args, "pred");
  if (*dump) {
    if (IsModelFile(dump_args[0])) return RunDumpOfModel(dump_args, dump_flags);
    return run(dump_args, "dump");
  }
  if (plain_args.empty()) {
    std::cerr << app.help();
    return 1;
  }
  CheckNotAMistypedSubcommand(app, plain_args[0]);
  return run(plain_args, nullptr);
}

}  // namespace
}  // namespace ringboost

int main(int argc, char** argv) {
  try {
    const int code = ringboost::Main(argc, argv);
    // What went to standard output (a dump, predictions, a chart, the eval log) is lost when a
    // buffered write fails, e.g. on a full disk: that is a failed run, not a quiet success.
    std::cout.flush();
    const bool flushed = std::fflush(stdout) == 0;
    if (!flushed || !std::cout || std::ferror(stdout)) {
      std::cerr << "error: cannot write standard output"
                << (flushed ? std::string(" (a write failed)")
                            : ": " + std::string(std::strerror(errno)))
                << std::endl;
      return 1;
    }
    return code;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory (an allocation failed); use a smaller input or a machine "
                 "with more memory"
              << std::endl;
  } catch (const std::exception& e) {  // ringboost::Error and the library's own
    std::cerr << "error: " << ringboost::PrintableMessage(e.what()) << std::endl;
  } catch (...) {
    std::cerr << "error: unknown exception" << std::endl;
  }
  return 1;
}
