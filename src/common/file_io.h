// Files written so that a crash never leaves a half-written one in place.
#pragma once

#include <string>

namespace ringboost {

// Writes `content` to `path` atomically: a temporary file in the same folder, fsync, rename.
// Throws Error naming the path and errno on failure (the temporary file is removed).
void WriteFileAtomic(const std::string& path, const std::string& content);

// Whole file as a string; throws Error "cannot open <path>: <reason>".
std::string ReadWholeFile(const std::string& path);

}  // namespace ringboost
