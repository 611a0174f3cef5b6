// SPDX-License-Identifier: MIT
// NetnsTest: namespaces and a veth pair made with `ip`, deleted on every path out of a test.
#include "netns/netns_fixture.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#ifndef TAKYON_NETNS_PEER
#error "TAKYON_NETNS_PEER (the path of takyon_netns_peer) must be defined"
#endif

namespace takyon::test::netns {
namespace {

constexpr const char* kPrefix = "takyon-netns-";

std::atomic<unsigned> g_next_index{0};

bool is_executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

bool forbidden(const std::string& output) {
  return output.find("Permission denied") != std::string::npos ||
         output.find("Operation not permitted") != std::string::npos;
}

// Namespaces a crashed earlier test process left (its pid is gone): deleted once per process.
// Live processes' namespaces are never touched.
void remove_orphans() {
  static std::once_flag once;
  std::call_once(once, [] {
    DIR* dir = opendir("/var/run/netns");
    if (dir == nullptr) return;
    std::vector<std::string> orphans;
    while (const dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (!name.starts_with(kPrefix)) continue;
      const long pid = std::strtol(name.c_str() + std::char_traits<char>::length(kPrefix), nullptr, 10);
      if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) orphans.push_back(name);
    }
    closedir(dir);
    for (const std::string& name : orphans) (void)run_command({ip_tool(), "netns", "delete", name});
  });
}

}  // namespace

const std::string& ip_tool() {
  static const std::string path = [] {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("PATH"); env != nullptr) {
      std::string all = env;
      size_t at = 0;
      for (size_t colon = all.find(':');; colon = all.find(':', at)) {
        dirs.push_back(all.substr(at, colon == std::string::npos ? std::string::npos : colon - at));
        if (colon == std::string::npos) break;
        at = colon + 1;
      }
    }
    for (const char* d : {"/usr/sbin", "/sbin", "/usr/bin", "/bin"}) dirs.emplace_back(d);
    for (const std::string& d : dirs) {
      if (!d.empty() && is_executable(d + "/ip")) return d + "/ip";
    }
    return std::string();
  }();
  return path;
}

CommandResult Namespaces::add(const std::string& name) {
  (void)run_command({ip_tool(), "netns", "delete", name});  // a stale one from a crashed run
  CommandResult result = run_command({ip_tool(), "netns", "add", name});
  if (result.status == 0) names_.push_back(name);
  return result;
}

std::string Namespaces::remove_all() {
  std::string errors;
  for (const std::string& name : names_) {
    const CommandResult result = run_command({ip_tool(), "netns", "delete", name});
    if (result.status != 0) errors += "ip netns delete " + name + ": " + result.output + "\n";
  }
  names_.clear();
  return errors;
}

void NetnsTest::SetUp() {
  if (ip_tool().empty()) {
    GTEST_SKIP() << "the `ip` program (iproute2) is not installed: network namespace tests need it";
  }
  remove_orphans();
  index_ = g_next_index.fetch_add(1);
  const unsigned pid = static_cast<unsigned>(getpid());
  // Names: the pid and the index make them unique among concurrent test processes (ctest -j, and
  // the same tests in other build trees). Interface names must fit 15 characters.
  const std::string tag = std::to_string(pid) + "-" + std::to_string(index_);
  ns_a_ = kPrefix + tag + "-a";
  ns_b_ = kPrefix + tag + "-b";
  char veth[16];
  std::snprintf(veth, sizeof(veth), "tk%06x%04xa", pid & 0xFFFFFFu, index_ & 0xFFFFu);
  veth_a_ = veth;
  veth_b_ = veth_a_;
  veth_b_.back() = 'b';
  // The subnet 10.<x>.<y>.0/24 lives only inside this test's namespaces (nothing outside can see
  // it or route to it); deriving it from pid and index still keeps concurrent tests apart, which
  // makes a leaked address or a confused log easy to attribute.
  const unsigned key = (pid * 16u + index_) % (240u * 256u);
  subnet_x_ = static_cast<int>(16 + key / 256);
  subnet_y_ = static_cast<int>(key % 256);

  const CommandResult added = namespaces_.add(ns_a_);
  if (added.status != 0) {
    if (forbidden(added.output)) {
      GTEST_SKIP() << "this machine forbids network namespaces (`ip netns add` as uid " << getuid()
                   << " said: " << trimmed(added.output) << ")";
    }
    FAIL() << "ip netns add " << ns_a_ << " failed: " << added.output;
  }
  ASSERT_TRUE(ip({"-n", ns_a_, "link", "set", "lo", "up"}));
  if (!with_pair()) return;
  const CommandResult added_b = namespaces_.add(ns_b_);
  ASSERT_EQ(added_b.status, 0) << "ip netns add " << ns_b_ << " failed: " << added_b.output;
  // Each end is made inside its namespace (never in the host's), with the default MTU of 1500.
  ASSERT_TRUE(ip({"link", "add", veth_a_, "netns", ns_a_, "mtu", "1500", "type", "veth", "peer", "name",
                  veth_b_, "netns", ns_b_, "mtu", "1500"}));
  ASSERT_TRUE(ip({"-n", ns_b_, "link", "set", "lo", "up"}));
  ASSERT_TRUE(ip({"-n", ns_a_, "addr", "add", ip_a() + "/24", "dev", veth_a_}));
  ASSERT_TRUE(ip({"-n", ns_b_, "addr", "add", ip_b() + "/24", "dev", veth_b_}));
  ASSERT_TRUE(ip({"-n", ns_a_, "link", "set", veth_a_, "up"}));
  ASSERT_TRUE(ip({"-n", ns_b_, "link", "set", veth_b_, "up"}));
  ASSERT_TRUE(ip({"-n", ns_a_, "route", "add", "224.0.0.0/4", "dev", veth_a_}));
  ASSERT_TRUE(ip({"-n", ns_b_, "route", "add", "224.0.0.0/4", "dev", veth_b_}));
}

void NetnsTest::TearDown() {
  const std::string errors = namespaces_.remove_all();
  EXPECT_TRUE(errors.empty()) << "deleting this test's namespaces failed:\n" << errors;
}

std::string NetnsTest::addr(int host) const {
  return "10." + std::to_string(subnet_x_) + "." + std::to_string(subnet_y_) + "." + std::to_string(host);
}

std::string NetnsTest::group() const {
  return "239.84." + std::to_string(subnet_x_) + "." + std::to_string(subnet_y_);
}

std::unique_ptr<ChildProcess> NetnsTest::start_peer(const std::string& ns,
                                                    const std::vector<std::string>& args, double limit_s) {
  std::vector<std::string> argv = {ip_tool(), "netns", "exec", ns, TAKYON_NETNS_PEER};
  argv.insert(argv.end(), args.begin(), args.end());
  auto peer = std::make_unique<ChildProcess>(argv, limit_s);
  EXPECT_TRUE(peer->started()) << peer->describe();
  return peer;
}

bool NetnsTest::ip(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ip_tool()};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult result = run_command(argv);
  std::string text = "ip";
  for (const std::string& a : args) text += " " + a;
  EXPECT_EQ(result.status, 0) << "`" << text << "` failed: " << result.output;
  return result.status == 0;
}

bool NetnsTest::set_link(bool side_a, bool up) {
  return ip({"-n", side_a ? ns_a_ : ns_b_, "link", "set", side_a ? veth_a_ : veth_b_, up ? "up" : "down"});
}

std::map<std::string, std::string> fields_of(const ChildProcess& peer, const std::string& prefix) {
  const std::optional<std::string> line = peer.line(prefix);
  return line ? parse_fields(*line) : std::map<std::string, std::string>{};
}

double number_of(const std::map<std::string, std::string>& fields, const std::string& key) {
  const auto it = fields.find(key);
  if (it == fields.end() || it->second.empty()) return -1;
  char* end = nullptr;
  const double value = std::strtod(it->second.c_str(), &end);
  return end != nullptr && *end == '\0' ? value : -1;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void expect_exchange(ChildProcess& peer, const char* who, std::uint64_t count, const MessageStream& theirs) {
  const int status = peer.wait(30);
  EXPECT_EQ(status, 0) << who << ": " << peer.describe();
  const auto result = fields_of(peer, "RESULT ");
  ASSERT_FALSE(result.empty()) << who << " printed no RESULT: " << peer.describe();
  EXPECT_EQ(number_of(result, "sent"), static_cast<double>(count)) << who << ": " << peer.describe();
  EXPECT_EQ(number_of(result, "received"), static_cast<double>(count)) << who << ": " << peer.describe();
  EXPECT_EQ(number_of(result, "bad"), 0) << who << ": " << peer.describe();
  EXPECT_EQ(number_of(result, "checked_bytes"), static_cast<double>(theirs.total_bytes(count)))
      << who << " did not check every byte it should have received: " << peer.describe();
}

std::string mode_arg(bool polling) {
  return polling ? "--mode=poll" : "--mode=event";
}

std::string mode_param_name(const ::testing::TestParamInfo<bool>& param) {
  return param.param ? "Polling" : "Event";
}

}  // namespace takyon::test::netns
