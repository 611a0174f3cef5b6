// SPDX-License-Identifier: MIT
// Network namespaces for multi-host tests: two "hosts" joined by a veth pair (or one with lo only),
// names and subnets unique per process and test, always deleted, and peers started inside them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "netns/child_process.hpp"
#include "netns/message_format.hpp"

namespace takyon::test::netns {

/// The `ip` program (iproute2), or "" when this machine has none.
const std::string& ip_tool();

/// The namespaces one test added: each is deleted by remove_all() and, whatever happened, by the
/// destructor.
class Namespaces {
 public:
  Namespaces() = default;
  Namespaces(const Namespaces&) = delete;
  Namespaces& operator=(const Namespaces&) = delete;
  ~Namespaces() { (void)remove_all(); }

  /// Adds namespace `name` after deleting a stale one of that name. {status, output of ip}.
  CommandResult add(const std::string& name);
  /// Deletes every namespace added so far: "" or what failed.
  std::string remove_all();

 private:
  std::vector<std::string> names_;
};

/// Two namespaces A and B joined by a veth pair (A: <subnet>.1, B: <subnet>.2, MTU 1500, both with
/// lo up and a route for 224.0.0.0/4 on the veth), or, for SoloNetnsTest, namespace A alone with
/// lo up. Skips the test (with the reason) when the machine forbids namespaces or lacks `ip`.
class NetnsTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  /// Whether SetUp makes the veth pair and namespace B.
  [[nodiscard]] virtual bool with_pair() const { return true; }

  [[nodiscard]] const std::string& ns_a() const { return ns_a_; }
  [[nodiscard]] const std::string& ns_b() const { return ns_b_; }
  [[nodiscard]] const std::string& veth_a() const { return veth_a_; }
  [[nodiscard]] const std::string& veth_b() const { return veth_b_; }
  /// "10.<x>.<y>.<host>" in this test's own subnet.
  [[nodiscard]] std::string addr(int host) const;
  [[nodiscard]] std::string ip_a() const { return addr(1); }
  [[nodiscard]] std::string ip_b() const { return addr(2); }
  /// A multicast group of this test's own ("239.84.<x>.<y>").
  [[nodiscard]] std::string group() const;
  /// A small number unique to this test within the process (for IDs).
  [[nodiscard]] unsigned index() const { return index_; }

  /// Starts takyon_netns_peer with `args` inside namespace `ns`, killed after `limit_s`.
  std::unique_ptr<ChildProcess> start_peer(const std::string& ns, const std::vector<std::string>& args,
                                           double limit_s = 30.0);
  /// Runs `ip <args>`; a failure is a test failure (with ip's output). Returns success.
  bool ip(const std::vector<std::string>& args);
  /// `ip -n <ns> link set <veth> up|down` for side A or B.
  bool set_link(bool side_a, bool up);

 private:
  Namespaces namespaces_;
  unsigned index_ = 0;
  int subnet_x_ = 0;
  int subnet_y_ = 0;
  std::string ns_a_;
  std::string ns_b_;
  std::string veth_a_;
  std::string veth_b_;
};

/// Namespace A only, with lo up and no other interface: every address outside it is unreachable.
class SoloNetnsTest : public NetnsTest {
 protected:
  [[nodiscard]] bool with_pair() const override { return false; }
};

/// The fields of a peer's first output line that starts with `prefix` ({} when there is none).
std::map<std::string, std::string> fields_of(const ChildProcess& peer, const std::string& prefix);
/// A field as a number; -1 when absent or not a number.
double number_of(const std::map<std::string, std::string>& fields, const std::string& key);

/// `a` followed by `b` (a peer's arguments: its own, then the ones common to both sides).
std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b);
/// Checks a peer that exchanged `count` messages each way: exit 0, every message received, every byte
/// of the other side's messages (`theirs`) checked.
void expect_exchange(ChildProcess& peer, const char* who, std::uint64_t count, const MessageStream& theirs);

/// The peer's --mode argument for polling (true) or event driven (false).
std::string mode_arg(bool polling);
/// Test name suffix for suites parameterized on polling: "Polling" or "Event".
std::string mode_param_name(const ::testing::TestParamInfo<bool>& param);

}  // namespace takyon::test::netns
