// Named phase timers for "where does the time go" (printed at verbosity=3). Not thread-safe:
// time phases from the thread that drives them.
#pragma once

#include <chrono>
#include <map>
#include <sstream>
#include <string>

namespace ringboost {

class PhaseTimer {
 public:
  using Clock = std::chrono::steady_clock;

  // Adds the time since `start` to phase `name`.
  void Add(const std::string& name, Clock::time_point start) {
    total_[name] += std::chrono::duration<double>(Clock::now() - start).count();
  }
  // "name 1.234 s, name 0.5 s, ..." in name order.
  std::string Report() const {
    std::ostringstream out;
    for (const auto& [name, seconds] : total_) {
      if (out.tellp() > 0) out << ", ";
      out << name << " " << seconds << " s";
    }
    return out.str();
  }
  // Two reports as one ("a, b"), either of them possibly empty.
  static std::string Join(const std::string& a, const std::string& b) {
    return a.empty() ? b : b.empty() ? a : a + ", " + b;
  }

 private:
  std::map<std::string, double> total_;
};

}  // namespace ringboost
