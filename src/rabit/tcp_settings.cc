// Settings of the tcp backend: key=value arguments first, then the environment, as rabit does.
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rabit/protocol.h"
#include "rabit/tcp_communicator.h"

namespace ringboost::rabit {
namespace {

struct SettingKey {
  const char* arg;      // key=value argument
  const char* alt_arg;  // rabit's own spelling, or nullptr
  const char* env;      // environment variable
};

constexpr SettingKey kTrackerUri{"DMLC_TRACKER_URI", "rabit_tracker_uri", "DMLC_TRACKER_URI"};
constexpr SettingKey kTrackerPort{"DMLC_TRACKER_PORT", "rabit_tracker_port", "DMLC_TRACKER_PORT"};
constexpr SettingKey kTaskId{"DMLC_TASK_ID", "rabit_task_id", "DMLC_TASK_ID"};
constexpr SettingKey kNumWorker{"DMLC_NUM_WORKER", "rabit_world_size", "DMLC_NUM_WORKER"};
constexpr SettingKey kRole{"DMLC_ROLE", nullptr, "DMLC_ROLE"};
constexpr SettingKey kNumAttempt{"DMLC_NUM_ATTEMPT", "rabit_num_trial", "DMLC_NUM_ATTEMPT"};
constexpr SettingKey kToken{"RINGBOOST_JOB_TOKEN", nullptr, "RINGBOOST_JOB_TOKEN"};
constexpr SettingKey kTimeout{"rabit_timeout_sec", nullptr, "RABIT_TIMEOUT_SEC"};
constexpr SettingKey kConnectTimeout{"rabit_connect_timeout_sec", nullptr,
                                     "RABIT_CONNECT_TIMEOUT_SEC"};
constexpr SettingKey kHandshakeTimeout{"rabit_handshake_timeout_sec", nullptr,
                                       "RABIT_HANDSHAKE_TIMEOUT_SEC"};
constexpr SettingKey kHeartbeat{"rabit_heartbeat_sec", nullptr, "RABIT_HEARTBEAT_SEC"};
constexpr SettingKey kPeerTimeout{"rabit_peer_timeout_sec", nullptr, "RABIT_PEER_TIMEOUT_SEC"};
constexpr SettingKey kListenHost{"rabit_listen_host", nullptr, "RABIT_LISTEN_HOST"};
constexpr SettingKey kRingMinCount{"rabit_reduce_ring_mincount", nullptr,
                                   "RABIT_REDUCE_RING_MINCOUNT"};
constexpr SettingKey kSocketBuffer{"rabit_socket_buffer", nullptr, "RABIT_SOCKET_BUFFER"};
constexpr SettingKey kLatency{"rabit_latency_us", nullptr, "RABIT_LATENCY_US"};
constexpr SettingKey kBandwidth{"rabit_bandwidth_mbps", nullptr, "RABIT_BANDWIDTH_MBPS"};
constexpr SettingKey kSpin{"rabit_spin_us", nullptr, "RABIT_SPIN_US"};
constexpr SettingKey kAlgorithm{"rabit_algorithm", nullptr, "RABIT_ALGORITHM"};
constexpr SettingKey kRecover{"rabit_recover", nullptr, "RABIT_RECOVER"};
constexpr SettingKey kMock{"rabit_mock", nullptr, "RABIT_MOCK"};
constexpr SettingKey kAllKeys[] = {
    kTrackerUri, kTrackerPort,  kTaskId,     kNumWorker,      kRole,
    kNumAttempt, kToken,        kTimeout,    kConnectTimeout, kHandshakeTimeout,
    kHeartbeat,  kPeerTimeout,  kListenHost, kRingMinCount,   kLatency,
    kBandwidth,  kSocketBuffer, kSpin,       kAlgorithm,      kRecover,
    kMock};

// The value of a setting: the last matching key=value argument, else the environment.
std::optional<std::pair<std::string, std::string>> Lookup(const CommunicatorConfig& config,
                                                          const SettingKey& key) {
  std::optional<std::pair<std::string, std::string>> found;
  for (const auto& [k, v] : config.args) {
    if (k == key.arg || (key.alt_arg != nullptr && k == key.alt_arg)) found = {k, v};
  }
  if (found) return found;
  if (const char* v = std::getenv(key.env)) return std::make_pair(std::string(key.env), v);
  return std::nullopt;
}

int64_t ParseInteger(const std::pair<std::string, std::string>& kv, int64_t lo, int64_t hi) {
  const std::string& text = kv.second;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) {
    RB_FAIL(kv.first << "=" << text << ": must be an integer from " << lo << " to " << hi);
  }
  return v;
}

double ParseSeconds(const std::pair<std::string, std::string>& kv) {
  char* end = nullptr;
  double v = std::strtod(kv.second.c_str(), &end);
  if (kv.second.empty() || *end != '\0' || !std::isfinite(v) || v <= 0) {
    RB_FAIL(kv.first << "=" << kv.second << ": must be a number of seconds above 0");
  }
  return v;
}

double ParseNumber(const std::pair<std::string, std::string>& kv, double lo, double hi) {
  char* end = nullptr;
  double v = std::strtod(kv.second.c_str(), &end);
  if (kv.second.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) {
    RB_FAIL(kv.first << "=" << kv.second << ": must be a number from " << lo << " to " << hi);
  }
  return v;
}

// "R,V,S,A[;R,V,S,A...]" of rabit_mock.
std::vector<std::array<int, 4>> ParseMock(const std::pair<std::string, std::string>& kv) {
  std::vector<std::array<int, 4>> out;
  std::stringstream items(kv.second);
  std::string item;
  while (std::getline(items, item, ';')) {
    std::array<int, 4> m{};
    char tail = 0;
    if (std::sscanf(item.c_str(), "%d,%d,%d,%d%c", &m[0], &m[1], &m[2], &m[3], &tail) != 4) {
      RB_FAIL(kv.first << "=" << kv.second << ": each fault must be RANK,VERSION,CALL,ATTEMPT "
                       << "(several separated by ';')");
    }
    out.push_back(m);
  }
  return out;
}

}  // namespace

// One key a line: the CLI cuts an error's line after 400 bytes (PrintableMessage), and the whole
// list on one line would lose most of its keys.
std::string TcpSettingKeys() {
  std::string keys;
  for (const SettingKey& k : kAllKeys) {
    keys += "\n  ";
    keys += k.arg;
    if (k.alt_arg != nullptr) keys += std::string(" or ") + k.alt_arg;
    keys += std::string(" (environment ") + k.env + ")";
  }
  return keys;
}

TcpSettings ReadTcpSettings(const CommunicatorConfig& config) {
  for (const auto& [key, value] : config.args) {
    bool known = false;
    for (const SettingKey& k : kAllKeys) {
      known = known || key == k.arg || (k.alt_arg != nullptr && key == k.alt_arg);
    }
    // dmlc launchers set more DMLC_* variables than a worker needs; rabit_* keys must be ours.
    if (!known && key.rfind("rabit_", 0) == 0) {
      RB_FAIL("unknown collective setting '" << key
                                             << "'; allowed (key=value, or the environment "
                                                "variable):"
                                             << TcpSettingKeys());
    }
  }
  TcpSettings t;
  if (auto v = Lookup(config, kTrackerUri)) t.tracker_uri = v->second;
  if (t.tracker_uri.empty()) {
    RB_FAIL(
        "communicator=tcp needs the tracker's address: DMLC_TRACKER_URI (set by "
        "ringboost-submit, dmlc-submit or XGBoost's RabitTracker)");
  }
  if (auto v = Lookup(config, kTrackerPort)) t.tracker_port = ParseInteger(*v, 1, 65535);
  if (auto v = Lookup(config, kTaskId)) t.task_id = v->second;
  // The length only: ringboost-submit's ids carry the job token, which no message may show.
  if (t.task_id.empty() || t.task_id.size() > 256) {
    RB_FAIL("DMLC_TASK_ID: " << t.task_id.size() << " characters; must be 1 to 256");
  }
  if (auto v = Lookup(config, kNumWorker)) {
    t.world_size = ParseInteger(*v, 1, proto::kMaxWorldSize);
  }
  if (auto v = Lookup(config, kRole); v && v->second != "worker") {
    RB_FAIL(v->first << "=" << v->second << ": ringboost runs as a worker only; allowed: worker");
  }
  if (auto v = Lookup(config, kNumAttempt)) t.num_attempt = ParseInteger(*v, 0, 1 << 20);
  if (auto v = Lookup(config, kToken)) t.token = v->second;
  if (t.token.size() > 1024) RB_FAIL("RINGBOOST_JOB_TOKEN: longer than 1024 characters");
  // ringboost-submit's DMLC_TASK_ID is "<id>:<token>" (for foreign workers' sake); the token is
  // proven to the tracker, never sent, and kept out of every message: only the bare id is kept.
  proto::TaskIdHasToken(t.task_id, t.token, &t.task_id);
  if (auto v = Lookup(config, kTimeout)) t.timeout_s = ParseSeconds(*v);
  if (auto v = Lookup(config, kConnectTimeout)) t.connect_timeout_s = ParseSeconds(*v);
  if (auto v = Lookup(config, kHandshakeTimeout)) t.handshake_timeout_s = ParseSeconds(*v);
  if (auto v = Lookup(config, kHeartbeat)) t.heartbeat_s = ParseSeconds(*v);
  if (auto v = Lookup(config, kPeerTimeout)) t.peer_timeout_s = ParseSeconds(*v);
  if (t.peer_timeout_s <= t.heartbeat_s) {
    RB_FAIL("rabit_peer_timeout_sec=" << t.peer_timeout_s << " must be above rabit_heartbeat_sec="
                                      << t.heartbeat_s << " (a few beats at least)");
  }
  if (auto v = Lookup(config, kListenHost)) t.listen_host = v->second;
  if (auto v = Lookup(config, kRingMinCount)) {
    t.ring_min_count = ParseInteger(*v, 1, int64_t{1} << 62);
  }
  if (auto v = Lookup(config, kRecover)) t.recover = ParseInteger(*v, 0, 1) == 1;
  if (auto v = Lookup(config, kMock)) t.mock = ParseMock(*v);
  if (auto v = Lookup(config, kSocketBuffer)) {
    t.socket_buffer = static_cast<int>(ParseInteger(*v, 0, 1 << 30));
  }
  if (auto v = Lookup(config, kLatency)) t.latency_us = ParseNumber(*v, 0, 1e9);
  if (auto v = Lookup(config, kBandwidth)) t.bandwidth_mbps = ParseNumber(*v, 1e-3, 1e9);
  if (auto v = Lookup(config, kSpin)) t.spin_us = static_cast<int>(ParseInteger(*v, 0, 1000000));
  if (auto v = Lookup(config, kAlgorithm)) {
    if (v->second != "auto" && v->second != "tree" && v->second != "ring" &&
        v->second != "halving") {
      RB_FAIL(v->first << "=" << v->second << ": allowed: auto, tree, ring, halving");
    }
    t.algorithm = v->second;
  }
  return t;
}

CostModel MakeCostModel(const TcpSettings& settings) {
  CostModel m;
  m.alpha_s = settings.latency_us * 1e-6;
  m.bytes_per_s = settings.bandwidth_mbps * 1e6 / 8;
  return m;
}

}  // namespace ringboost::rabit
