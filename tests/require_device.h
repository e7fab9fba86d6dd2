// The skip of the tests that need a CUDA device: RB_REQUIRE_DEVICE() skips the current test, with
// the reason, where no CUDA device can be used (always in a build without CUDA).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tree/gpu_hist/common.h"

#define RB_REQUIRE_DEVICE()                                    \
  do {                                                         \
    std::string rb_device_reason_;                             \
    if (::ringboost::DeviceCount(&rb_device_reason_) == 0) {   \
      GTEST_SKIP() << "no CUDA device: " << rb_device_reason_; \
    }                                                          \
  } while (0)
