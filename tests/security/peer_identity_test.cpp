// SPDX-License-Identifier: MIT
// Another local user (uid 65534, the impostor program) against the same-host providers: posing as
// endpoint A, posing as endpoint B, holding a path's names, squatting /dev/shm names. Every attempt
// is refused with an error that names the other user, no byte of the victim's goes to the impostor
// or comes from it, and the victim's path still works where the impostor only got in the way.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "support/path_attrs.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_extensions.h"
#include "takyon/takyon_providers.h"

namespace {

constexpr unsigned kImpostorUid = 65534;

double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

uint32_t unique_id() {
  static uint32_t counter = 0;
  return static_cast<uint32_t>(getpid()) * 64u + 700000000u + counter++;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The impostor program, copied where uid 65534 may run it, started under setpriv.
class Impostor {
 public:
  ~Impostor() { stop(); }

  static std::string why_unavailable() {
    if (geteuid() != 0) return "needs root to run a process as uid 65534 (setpriv)";
    if (system("command -v setpriv >/dev/null 2>&1") != 0) return "setpriv (util-linux) is not installed";
    return "";
  }

  void start(const std::vector<std::string>& args) {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const std::string binary = copy();
    std::vector<std::string> argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      std::vector<char*> raw;
      for (std::string& a : argv) raw.push_back(a.data());
      raw.push_back(nullptr);
      execvp(raw[0], raw.data());
      _exit(127);
    }
    close(out[1]);
    out_ = out[0];
  }

  // One line of its output, or "" after `seconds`.
  std::string line(double seconds = 10.0) {
    std::string text;
    const double end = now_s() + seconds;
    while (now_s() < end) {
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      char c = 0;
      if (read(out_, &c, 1) != 1) break;
      if (c == '\n') return text;
      text += c;
    }
    return text;
  }

  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    if (out_ >= 0) close(out_);
    out_ = -1;
  }

  // Waits for it to finish on its own and returns its last line.
  std::string result() {
    const std::string text = line(20.0);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return text;
  }

 private:
  static std::string copy() {
    static std::string path;
    if (path.empty()) {
      char dir[] = "/tmp/takyon-impostor-XXXXXX";
      if (mkdtemp(dir) == nullptr) return TAKYON_IMPOSTOR;
      chmod(dir, 0755);
      path = std::string(dir) + "/takyon_impostor";
      static const struct Remove {
        std::string dir;
        ~Remove() { std::filesystem::remove_all(dir); }
      } remove{dir};
      std::filesystem::copy_file(TAKYON_IMPOSTOR, path);
      chmod(path.c_str(), 0755);
    }
    return path;
  }

  pid_t pid_ = -1;
  int out_ = -1;
};

struct Created {
  TakyonPath* path = nullptr;
  std::string error;
  double seconds = 0;
};

Created create(const std::string& provider, bool endpoint_a, double timeout) {
  TakyonPathAttributes attrs = takyonAllocAttributes(endpoint_a, true, 1, 1, 4096, timeout, provider.c_str());
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  Created out;
  const double start = now_s();
  out.path = takyonCreate(&attrs);
  out.seconds = now_s() - start;
  if (attrs.error_message != nullptr) out.error = attrs.error_message;
  std::free(attrs.error_message);
  takyonFreeAttributes(attrs);
  return out;
}

void destroy(TakyonPath*& path) {
  if (path != nullptr) std::free(takyonDestroy(&path));
}

// A sends 1000 patterned bytes, B checks every one; then both are destroyed.
void expect_path_works(TakyonPath* a, TakyonPath* b) {
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  auto* out = reinterpret_cast<unsigned char*>(a->attrs.sender_addr_list[0]);
  for (int i = 0; i < 1000; ++i) out[i] = static_cast<unsigned char>(i * 7 + 3);
  bool timed_out = false;
  ASSERT_TRUE(takyonSend(a, 0, 1000, 0, 0, &timed_out)) << a->attrs.error_message;
  uint64_t bytes = 0;
  uint64_t offset = 0;
  ASSERT_TRUE(takyonRecv(b, 0, &bytes, &offset, &timed_out)) << b->attrs.error_message;
  ASSERT_FALSE(timed_out);
  ASSERT_EQ(bytes, 1000u);
  const auto* in = reinterpret_cast<const unsigned char*>(b->attrs.recver_addr_list[0]) + offset;
  int wrong = 0;
  for (int i = 0; i < 1000; ++i) wrong += in[i] != static_cast<unsigned char>(i * 7 + 3) ? 1 : 0;
  EXPECT_EQ(wrong, 0) << "bytes differ from what endpoint A sent";
}

void destroy_both(TakyonPath*& a, TakyonPath*& b) {
  std::thread other([&] { destroy(a); });
  destroy(b);
  other.join();
}

// Both endpoints of `provider` (B here, A on a thread that may already be running: `thread_a`
// fills `a`): both must be created and carry a message intact.
void expect_created_and_working(Created& a, std::thread& thread_a, const std::string& provider) {
  Created b = create(provider, false, 10.0);
  thread_a.join();
  EXPECT_NE(a.path, nullptr) << a.error;
  EXPECT_NE(b.path, nullptr) << b.error;
  if (a.path != nullptr && b.path != nullptr) expect_path_works(a.path, b.path);
  destroy_both(a.path, b.path);
}

// One configuration of the provider table whose endpoints meet by ID on this host, through names any
// local user could take: every connected provider reaching other processes that takes "-ID=", and
// each option variant of one (UcxTcp is tested by ID here, as the suites address it as a client).
struct Case {
  std::string label;     ///< the test name
  std::string provider;  ///< the interconnect string's first word
  std::string options;   ///< its flags after the ID
  bool claims_b;         ///< endpoint B holds a name of its own (the shared-memory providers)
};

// GoogleTest prints the parameter in each test's name: the label, not the object's bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.label;
}

std::vector<Case> cases() {
  using takyon::test::ProviderConfig;
  const std::vector<const char*> shared_memory = takyon::test::shared_memory_providers();
  std::vector<Case> out;
  for (const ProviderConfig& c : takyon::test::provider_configs()) {
    if (c.info->reach < TAKYON_REACH_PROCESSES || (c.info->addressing & TAKYON_ADDRESS_ID) == 0) continue;
    bool claims_b = false;
    for (const char* label : shared_memory) claims_b = claims_b || c.label == label;
    out.push_back({c.label, c.info->name, c.options, claims_b});
  }
  return out;
}

class PeerIdentity : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const std::string why = Impostor::why_unavailable();
    if (!why.empty()) GTEST_SKIP() << why;
    id_ = unique_id();
  }
  [[nodiscard]] std::string provider() const {
    const Case& c = GetParam();
    return c.provider + " -ID=" + std::to_string(id_) + (c.options.empty() ? "" : " " + c.options);
  }
  // The abstract socket name the two endpoints meet on.
  [[nodiscard]] std::string meeting_name() const {
    return "takyon-" + std::to_string(getuid()) + "-" + GetParam().provider + "-" + std::to_string(id_);
  }
  uint32_t id_ = 0;
};

// The impostor listens where endpoint A would: B refuses before sending a byte, naming the user.
TEST_P(PeerIdentity, ImpostorListeningAsAIsRefusedByB) {
  Impostor impostor;
  impostor.start({"listen", meeting_name(), "3"});
  ASSERT_EQ(impostor.line(), "ready");
  Created b = create(provider(), false, 5.0);
  EXPECT_EQ(b.path, nullptr) << "endpoint B connected to another user's process";
  destroy(b.path);
  EXPECT_LT(b.seconds, 2.0) << "refused only after " << b.seconds << " s: " << b.error;
  EXPECT_TRUE(contains(b.error, "another user") && contains(b.error, "uid 65534")) << b.error;
  EXPECT_EQ(impostor.result(), "accepted=1 received=0") << "the impostor got bytes from endpoint B";
}

// The impostor connects to a waiting endpoint A: A drops it without a byte and takes the real B.
TEST_P(PeerIdentity, ImpostorConnectingAsBIsDroppedAndTheRealBConnects) {
  Created a;
  std::thread thread_a([&] { a = create(provider(), true, 10.0); });
  Impostor impostor;
  impostor.start({"connect", meeting_name(), "5"});
  ASSERT_EQ(impostor.line(), "ready");
  const std::string seen = impostor.result();
  EXPECT_EQ(seen, "connected=1 closed_by_peer=1 received=0") << "endpoint A talked to the impostor";
  expect_created_and_working(a, thread_a, provider());
}

// The impostor holds the path's names: creating either side is refused at once, naming the user;
// once it lets go, the path is created and works.
TEST_P(PeerIdentity, NamesHeldByAnotherUserAreRefusedNamingTheUser) {
  {
    Impostor impostor;
    impostor.start({"hold", meeting_name(), "30"});
    ASSERT_EQ(impostor.line(), "ready");
    Created a = create(provider(), true, 5.0);
    EXPECT_EQ(a.path, nullptr);
    destroy(a.path);
    EXPECT_LT(a.seconds, 2.0) << a.error;
    EXPECT_TRUE(contains(a.error, "held by another user") && contains(a.error, "uid 65534")) << a.error;
  }
  if (GetParam().claims_b) {
    Impostor impostor;
    impostor.start({"hold", meeting_name() + "-B", "30"});
    ASSERT_EQ(impostor.line(), "ready");
    Created b = create(provider(), false, 5.0);
    EXPECT_EQ(b.path, nullptr);
    destroy(b.path);
    EXPECT_LT(b.seconds, 2.0) << b.error;
    EXPECT_TRUE(contains(b.error, "held by another user") && contains(b.error, "uid 65534")) << b.error;
  }
  Created a;
  std::thread thread_a([&] { a = create(provider(), true, 10.0); });
  expect_created_and_working(a, thread_a, provider());
}

std::string case_name(const ::testing::TestParamInfo<Case>& param) {
  return param.param.label;
}

INSTANTIATE_TEST_SUITE_P(SameHost, PeerIdentity, ::testing::ValuesIn(cases()), case_name);

// /dev/shm names another user created where segments used to be named (mode 0666, sticky
// directory: the victim cannot remove them) do not concern the shared-memory providers, whose
// segments have no name.
TEST(SharedMemoryNames, SquattedNamesDoNotBlockAPath) {
  const std::string why = Impostor::why_unavailable();
  if (!why.empty()) GTEST_SKIP() << why;
  for (const char* label : takyon::test::shared_memory_providers()) {
    SCOPED_TRACE(label);
    const std::string word = takyon::test::provider_name(label);
    const uint32_t id = unique_id();
    const std::string stem =
        "/dev/shm/takyon-" + std::to_string(getuid()) + "-" + word + "-" + std::to_string(id);
    Impostor impostor;
    impostor.start({"squat", stem + "-A", stem + "-B", stem});
    ASSERT_EQ(impostor.line(), "ready");
    EXPECT_EQ(impostor.result(), "squatted=3");
    const std::string provider = word + " -ID=" + std::to_string(id);
    Created a;
    std::thread thread_a([&] { a = create(provider, true, 10.0); });
    expect_created_and_working(a, thread_a, provider);
    struct stat st {};
    EXPECT_EQ(stat((stem + "-A").c_str(), &st), 0) << "the other user's file was touched";
    EXPECT_EQ(st.st_uid, kImpostorUid);
    for (const char* suffix : {"-A", "-B", ""}) std::remove((stem + suffix).c_str());
  }
}

}  // namespace
