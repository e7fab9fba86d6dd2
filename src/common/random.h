// Counter-based random draws (DESIGN.md step 4): every draw is a pure function of
// (seed, stream, counter), never of a stream consumed in row order, so sampling does not depend
// on how rows are spread over threads or workers.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace ringboost {

// SplitMix64 finaliser: a bijective mix with full avalanche.
RB_HOST_DEVICE inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// CounterHash's first three mixes, for many draws of one (seed, a, b): a loop over c computes
// this once and then CounterHashFrom(prefix, c), one mix a draw (the same bits).
RB_HOST_DEVICE inline uint64_t CounterPrefix(uint64_t seed, uint64_t a, uint64_t b) {
  return Mix64(Mix64(Mix64(seed) ^ a) ^ b);
}
RB_HOST_DEVICE inline uint64_t CounterHashFrom(uint64_t prefix, uint64_t c) {
  return Mix64(prefix ^ c);
}

// 64 random bits for (seed, a, b, c).
RB_HOST_DEVICE inline uint64_t CounterHash(uint64_t seed, uint64_t a, uint64_t b, uint64_t c = 0) {
  return CounterHashFrom(CounterPrefix(seed, a, b), c);
}

// Uniform double in [0, 1) for (seed, a, b, c).
RB_HOST_DEVICE inline double CounterUniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c = 0) {
  return static_cast<double>(CounterHash(seed, a, b, c) >> 11) * (1.0 / 9007199254740992.0);
}

// Stream ids keep the uses of the generator apart.
enum class RandomStream : uint64_t {
  kRowSubsample = 1,
  kColumnTree = 2,
  kColumnLevel = 3,
  kColumnNode = 4,
  kLowBitGradient = 5,  // (seed, stream, round * groups + group, global row)
};

}  // namespace ringboost
