// Other programs ringboost hands its pictures to: Graphviz's `dot` renders tree dumps, gnuplot
// draws the charts (docs/model-format.md, "Pictures"). ringboost writes their input (DOT text, a
// gnuplot script with its data inline) and never draws anything itself.
#pragma once

#include <string>
#include <vector>

namespace ringboost {

struct ExternalTool {
  const char* program;  // looked up on PATH
  const char* package;  // the Debian package that installs it
};

inline constexpr ExternalTool kGraphvizDot{"dot", "graphviz"};
inline constexpr ExternalTool kGnuplot{"gnuplot", "gnuplot-nox"};

// Throws Error when `tool.program` is not on PATH, saying what needs it (`purpose`) and which
// package to install. Call it before any work whose result the tool is needed for.
void RequireTool(const ExternalTool& tool, const std::string& purpose);

// Runs `tool.program args... INPUT`, where INPUT is a temporary file holding `input`, and returns
// what it wrote to stdout. Throws Error naming the program, its exit status and the start of its
// stderr when it fails. Blocks until the program ends.
std::string RunTool(const ExternalTool& tool, const std::vector<std::string>& args,
                    const std::string& input);

}  // namespace ringboost
