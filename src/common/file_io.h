// Files written so that a crash never leaves a half-written one in place, and so that what the
// user named is what gets written: a symbolic link's target (not the link), a FIFO or a device
// (`/dev/stdout`, `/dev/null`) in place (never replaced by a regular file).
#pragma once

#include <string>

namespace ringboost {

// Where a write to a path lands.
struct WriteTarget {
  std::string path;     // the path with its symbolic links followed (the path itself if none)
  bool exists = false;  // something is there now
  bool is_folder = false;
  // An existing special file (FIFO, device, socket), or an open file named through /proc
  // (`/dev/stdout` -> /proc/self/fd/1): written in place, appended to when it is a regular file.
  bool in_place = false;
};

// Follows `path`'s symbolic links (relative targets against the link's folder). Throws Error
// naming `path` on a loop of links.
WriteTarget ResolveWriteTarget(const std::string& path);

// Writes `content` to `path`. A regular file (or none yet) is written atomically: a temporary file
// in the target's folder, fsync, rename over the target, which keeps an existing file's
// permission bits; a link is followed to its target; a special file is written in place. Throws
// Error naming `path` and errno on failure (the temporary file is removed).
void WriteFileAtomic(const std::string& path, const std::string& content);

// Whether an output key's value (name_pred, name_dump, -o) means standard output rather than a
// file: "-", the Unix convention, or "stdout", which XGBoost's CLI (dmlc-core's Stream) writes to
// standard output.
bool NamesStandardOutput(const std::string& path);

// `content` to standard output where `path` NamesStandardOutput, else WriteFileAtomic.
void WriteOutput(const std::string& path, const std::string& content);

// Whole file as a string; throws Error "cannot open '<path>': <reason>", "<path>: is a directory,
// not a file" or "cannot read '<path>': <reason>".
std::string ReadWholeFile(const std::string& path);

}  // namespace ringboost
