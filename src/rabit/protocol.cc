#include "rabit/protocol.h"

#include "rabit/auth.h"

namespace ringboost::rabit::proto {

Status SendInt(TcpSocket* sock, int32_t value, Deadline deadline) {
  return sock->SendAll(&value, sizeof(value), deadline);
}

Status RecvInt(TcpSocket* sock, int32_t* value, Deadline deadline) {
  return sock->RecvAll(value, sizeof(*value), deadline);
}

Status SendStr(TcpSocket* sock, const std::string& value, Deadline deadline) {
  Status s = SendInt(sock, static_cast<int32_t>(value.size()), deadline);
  if (!s.ok() || value.empty()) return s;
  return sock->SendAll(value.data(), value.size(), deadline);
}

Status RecvStr(TcpSocket* sock, std::string* value, Deadline deadline, int32_t max_bytes) {
  int32_t length = 0;
  Status s = RecvInt(sock, &length, deadline);
  if (!s.ok()) return s;
  if (length < 0 || length > max_bytes) {
    return Status::Fail("a string of " + std::to_string(length) + " bytes from " + sock->peer() +
                        " is refused (allowed: 0 to " + std::to_string(max_bytes) + ")");
  }
  value->assign(static_cast<std::size_t>(length), '\0');
  if (length == 0) return Status::OK();
  return sock->RecvAll(value->data(), value->size(), deadline);
}

std::string TaskIdWithToken(const std::string& task_id, const std::string& token) {
  std::string bare;
  // ringboost-submit already puts the token in DMLC_TASK_ID (for foreign workers' sake).
  if (token.empty() || TaskIdHasToken(task_id, token, &bare)) return task_id;
  return task_id + ":" + token;
}

bool TaskIdHasToken(const std::string& task_id, const std::string& token, std::string* bare_id) {
  if (token.empty()) {
    *bare_id = task_id;
    return true;
  }
  // Constant time (auth::SameSecret): a stranger's timing tells nothing about the token.
  const std::string suffix = ":" + token;
  const std::size_t cut = task_id.size() >= suffix.size() ? task_id.size() - suffix.size() : 0;
  if (!auth::SameSecret(std::string_view(task_id).substr(cut), suffix)) return false;
  *bare_id = task_id.substr(0, task_id.size() - suffix.size());
  return true;
}

}  // namespace ringboost::rabit::proto
