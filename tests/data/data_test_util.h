// Helpers shared by the data reader tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "data/data.h"

namespace ringboost::test {

// The message of the Error that LoadData throws for `uri`, or "no error".
inline std::string LoadError(const std::string& uri, const LoadOptions& options = {}) {
  try {
    LoadData(uri, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace ringboost::test
