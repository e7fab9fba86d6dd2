// A job under ringboost-submit with strangers beside it, all real processes and sockets: 100
// hostile connections (idle, garbage, hellos without the token, forged proofs, on the tracker's
// port and on the workers' peer ports) change no byte of the model and read no byte of the
// token; 50 idle connections delay the job by a few seconds at most.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "helpers.h"
#include "rabit/auth.h"
#include "rabit/protocol.h"
#include "rabit/socket.h"
#include "submit/submit_runner.h"

namespace ringboost::submit {
namespace {

using rabit::Deadline;
using rabit::TcpSocket;
namespace auth = rabit::auth;
namespace proto = rabit::proto;

// The tiny training job, each worker leaving the job token for the test to look for, then
// waiting for `go`.
void WriteJob(const std::string& dir) {
  test::WriteTinyTrainingJob(dir);
  ringboost::test::WriteFile(dir + "/worker.sh",
                             "echo \"$RINGBOOST_JOB_TOKEN\" > token.txt\n"
                             "while [ ! -f go ]; do sleep 0.02; done\n"
                             "exec '" RINGBOOST_EXE "' train d.conf model_out=m.json\n");
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What strangers do and read, shared by their threads.
class Strangers {
 public:
  Strangers(std::string dir, int tracker_port) : dir_(std::move(dir)), tracker_(tracker_port) {}
  ~Strangers() { Join(); }

  // `threads` threads do `each` hostile connections each, kinds in turn; idle ones stay open.
  void Start(int threads, int each) {
    for (int t = 0; t < threads; ++t) {
      threads_.emplace_back([this, t, each] {
        for (int i = 0; i < each; ++i) Attack(t * each + i);
      });
    }
  }
  // Opens `count` idle connections to the tracker now.
  void OpenIdle(int count) {
    for (int i = 0; i < count; ++i) Dial(tracker_);
  }
  void Join() {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  int done() const { return done_.load(); }
  std::string seen() {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }

 private:
  TcpSocket* Dial(int port) {
    auto sock = std::make_unique<TcpSocket>();
    if (!TcpSocket::Connect("127.0.0.1", port, Deadline::After(2), sock.get()).ok()) {
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    open_.push_back(std::move(sock));
    return open_.back().get();
  }
  void Say(TcpSocket* s, const std::string& bytes) {
    (void)s->SendAll(bytes.data(), bytes.size(), Deadline::After(1));
  }
  // Reads what comes until the other end closes or is quiet for 0.3 s.
  void Listen(TcpSocket* s) {
    std::string got;
    for (;;) {
      TcpSocket* socks[1] = {s};
      const bool r[1] = {true}, w[1] = {false};
      if (!rabit::PollLinks(socks, r, w, 1, Deadline::After(0.3), "stranger").ok()) break;
      char buf[4096];
      std::size_t n = 0;
      Status st = s->RecvSome(buf, sizeof(buf), &n);
      got.append(buf, n);
      if (!st.ok() || n == 0) break;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    seen_ += got;
  }
  static std::string Str(const std::string& v) {
    return auth::IntBytes(static_cast<int32_t>(v.size())) + v;
  }
  // A worker's peer port from the tracker's log ("rank R listens on 127.0.0.1:PORT"), else the
  // tracker's.
  int PeerPort(int i) {
    const std::string log = ringboost::test::ReadFile(dir_ + "/submit.err");
    std::vector<int> ports;
    const std::string key = "listens on 127.0.0.1:";
    for (auto at = log.find(key); at != std::string::npos; at = log.find(key, at + 1)) {
      ports.push_back(std::atoi(log.c_str() + at + key.size()));
    }
    return ports.empty() ? tracker_ : ports[i % ports.size()];
  }
  void Attack(int i) {
    const int32_t rank = i % 3 - 1;
    const std::string hello = auth::IntBytes(rank) + auth::IntBytes(2) + Str(std::to_string(i % 2));
    TcpSocket* s = nullptr;
    switch (i % 6) {
      case 0:  // idle: stays open for the whole job
        Dial(i % 2 == 0 ? tracker_ : PeerPort(i));
        break;
      case 1:  // garbage
        if ((s = Dial(tracker_)) != nullptr) Say(s, std::string(64, '\xff')), Listen(s);
        break;
      case 2:  // dmlc's hellos without the token: join, print, shut down
        if ((s = Dial(tracker_)) != nullptr) {
          const char* cmd = i % 4 == 0 ? "start" : (i % 4 == 2 ? "shutdown" : "print");
          Say(s, auth::IntBytes(proto::kMagic) + hello + Str(cmd) + Str("FORGED LINE"));
          Listen(s);
        }
        break;
      case 3:  // the challenge with a made-up proof, and with the tracker's own reflected
      case 4:
        if ((s = Dial(tracker_)) != nullptr) {
          Say(s, auth::IntBytes(proto::kAuthMagic) + auth::NewNonce());
          std::string reply(4 + auth::kNonceBytes + auth::kMacBytes, '\0');
          if (s->RecvAll(reply.data(), reply.size(), Deadline::After(2)).ok()) {
            std::lock_guard<std::mutex> lock(mutex_);
            seen_ += reply;
          }
          const std::string proof =
              i % 6 == 3 ? std::string(auth::kMacBytes, 'x') : reply.substr(4 + auth::kNonceBytes);
          Say(s, proof + hello + Str("shutdown"));
          Listen(s);
        }
        break;
      default:  // a peer port's hello with a made-up proof
        if ((s = Dial(PeerPort(i))) != nullptr) {
          Say(s, auth::IntBytes(proto::kPeerMagic) + auth::NewNonce());
          Listen(s);
          Say(s, auth::IntBytes(1) + auth::IntBytes(0) + std::string(auth::kMacBytes, 'y'));
          Listen(s);
        }
    }
    ++done_;
  }

  const std::string dir_;
  const int tracker_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<TcpSocket>> open_;
  std::string seen_;
  std::atomic<int> done_{0};
  std::vector<std::thread> threads_;
};

struct JobRun {
  test::Job job;
  std::string model, token, seen;
  double seconds = 0;  // from `go` to the end of ringboost-submit
};

// One job of 2 workers; `hostile` connections (in 10 threads) and `idle` idle ones beside it.
// A third of the hostile ones are done before the workers start, the rest while they run.
JobRun RunJob(int hostile, int idle) {
  ringboost::test::TempDir dir;
  WriteJob(dir.path());
  pid_t pid =
      test::SubmitInBackground(dir.path(), "--num-workers 2 --log-level DEBUG sh worker.sh");
  const int port = test::PortFromLog(test::WaitForText(dir.File("submit.err"), "tracker on"));
  JobRun run;
  EXPECT_GT(port, 0);
  if (port <= 0) return run;
  Strangers strangers(dir.path(), port);
  strangers.OpenIdle(idle);
  if (hostile > 0) strangers.Start(10, hostile / 10);
  while (strangers.done() < hostile / 3) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double start = Now();
  ringboost::test::WriteFile(dir.File("go"), "");
  int status = 0;
  waitpid(pid, &status, 0);
  run.seconds = Now() - start;
  strangers.Join();
  run.job.exit_code = test::ExitCode(status);
  run.job.out = ringboost::test::ReadFile(dir.File("submit.out"));
  run.job.err = ringboost::test::ReadFile(dir.File("submit.err"));
  run.model = ringboost::test::ReadFile(dir.File("m.json"));
  run.token = ringboost::test::ReadFile(dir.File("token.txt"));
  while (!run.token.empty() && run.token.back() == '\n') run.token.pop_back();
  run.seen = strangers.seen();
  return run;
}

TEST(Hostile, HundredHostileConnectionsChangeNoByteOfTheModelAndLearnNoToken) {
  const JobRun calm = RunJob(0, 0);
  ASSERT_EQ(calm.job.exit_code, 0) << calm.job.out << calm.job.err;
  ASSERT_FALSE(calm.model.empty());
  const JobRun hostile = RunJob(100, 0);
  ASSERT_EQ(hostile.job.exit_code, 0) << hostile.job.out << hostile.job.err;
  EXPECT_EQ(hostile.model, calm.model);
  ASSERT_EQ(hostile.token.size(), 32u);
  EXPECT_FALSE(test::Contains(hostile.seen, hostile.token));
  EXPECT_GT(hostile.seen.size(), 0u);  // the challenges were answered (with proofs only)
  // Refused, and nothing forged reached the log.
  EXPECT_TRUE(test::Contains(hostile.job.err, "failed the job token challenge")) << hostile.job.err;
  EXPECT_TRUE(test::Contains(hostile.job.err, "does not carry the job token")) << hostile.job.err;
  EXPECT_FALSE(test::Contains(hostile.job.err + hostile.job.out, "FORGED")) << hostile.job.err;
  std::printf("job: %.2f s calm, %.2f s beside 100 hostile connections\n", calm.seconds,
              hostile.seconds);
}

TEST(Hostile, FiftyIdleConnectionsDelayTheJobByAFewSecondsAtMost) {
  const JobRun calm = RunJob(0, 0);
  ASSERT_EQ(calm.job.exit_code, 0) << calm.job.err;
  const JobRun idle = RunJob(0, 50);
  ASSERT_EQ(idle.job.exit_code, 0) << idle.job.err;
  EXPECT_EQ(idle.model, calm.model);
  std::printf("job: %.2f s calm, %.2f s beside 50 idle connections (delay %.2f s)\n", calm.seconds,
              idle.seconds, idle.seconds - calm.seconds);
  EXPECT_LT(idle.seconds - calm.seconds, 3.0);  // the bound: a few seconds
}

}  // namespace
}  // namespace ringboost::submit
