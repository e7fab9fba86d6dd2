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
// what it wrote to stdout, which must be a whole file of `format` ("svg" or "png"). Throws Error
// naming the program, its exit status and the start of its stderr when it fails, and when its
// output is cut short (a tool whose write failed, on a full TMPDIR, may still exit 0). Blocks
// until the program ends.
std::string RunTool(const ExternalTool& tool, const std::vector<std::string>& args,
                    const std::string& input, const std::string& format);

}  // namespace ringboost
