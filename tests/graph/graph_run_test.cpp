// SPDX-License-Identifier: MIT
// Graphs that run: group threads create their paths concurrently, send, receive and destroy them.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "graph/graph_test_util.hpp"
#include "support/path_ids.hpp"
#include "takyon/takyon_extensions.h"

extern "C" void* appAllocateMemory(const char* /*name*/, const char* where, uint64_t bytes,
                                   void** user_data_ret) {
  if (std::strcmp(where, "CPU") != 0) return nullptr;
  *user_data_ret = nullptr;
  return std::calloc(1, static_cast<size_t>(bytes));
}

extern "C" void appFreeMemory(const char* /*where*/, void* /*user_data*/, void* addr) {
  std::free(addr);
}

namespace {

using takyon::test::LoadedGraph;
using takyon::test::substitute;
using takyon::test::TempGraphFile;
using takyon::test::unique_path_id;

constexpr char kDefaults[] =
    "Defaults\n  NBufsAtoB: 1, 1\n  NBufsBtoA: 1, 1\n  SenderMaxBytesList: 64, 64\n  RecverMaxBytesList: 64, "
    "64\n"
    "  PathCreateTimeout: 30, 30\n  RecvStartTimeout: 30, 30\n  PathDestroyTimeout: 30, 30\n";

std::string id_text() {
  return std::to_string(unique_path_id());
}

// Runs fn(group_id) on one thread per group instance of `process_id` and collects failures.
void run_groups(TakyonGraph* graph, int process_id, const std::function<std::string(int)>& fn) {
  std::mutex mutex;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  const TakyonProcess& process = graph->process_list[process_id];
  for (int t = 0; t < process.thread_count; ++t) {
    const int group_id = process.thread_list[t].group_id;
    threads.emplace_back([&, group_id] {
      const std::string failure = fn(group_id);
      if (!failure.empty()) {
        const std::lock_guard<std::mutex> lock(mutex);
        failures.push_back("group " + std::to_string(group_id) + ": " + failure);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

std::string send_bytes(TakyonPath* path, uint8_t seed, uint64_t bytes) {
  auto* data = reinterpret_cast<uint8_t*>(path->attrs.sender_addr_list[0]);
  for (uint64_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(seed + i);
  if (!takyonSend(path, 0, bytes, 0, 0, nullptr)) return std::string("send: ") + path->attrs.error_message;
  return "";
}

std::string recv_bytes(TakyonPath* path, uint8_t seed, uint64_t bytes) {
  uint64_t got = 0;
  uint64_t offset = 0;
  bool timed_out = false;
  if (!takyonRecv(path, 0, &got, &offset, &timed_out))
    return std::string("recv: ") + path->attrs.error_message;
  if (timed_out) return "recv timed out";
  if (got != bytes) return "received " + std::to_string(got) + " bytes, expected " + std::to_string(bytes);
  const auto* data = reinterpret_cast<const uint8_t*>(path->attrs.recver_addr_list[0] + offset);
  for (uint64_t i = 0; i < bytes; ++i) {
    if (data[i] != static_cast<uint8_t>(seed + i)) return "byte " + std::to_string(i) + " differs";
  }
  return "";
}

const TakyonConnection& path_with_id(const TakyonGraph* graph, int id) {
  for (int p = 0; p < graph->path_count; ++p) {
    if (graph->path_list[p].id == id) return graph->path_list[p];
  }
  throw std::runtime_error("no path " + std::to_string(id));
}

TEST(GraphRun, ApplicationBufferBehindTheSendBuffer) {
  const std::string text = substitute(
      std::string("Groups\nGroup: node\n  Instances: 2\nProcesses\nProcess: 0\n  GroupIDs: node[1] node[0]\n"
                  "Buffers\nBuffer: block\n  ProcessId: 0\n  Where: CPU\n  Bytes: 1024\nPaths\n") +
          kDefaults +
          "Path: 5\n  Endpoints: node[0], node[1]\n  InterconnectA: InterThreadMemcpy -ID={id}\n"
          "  InterconnectB: InterThreadMemcpy -ID={id}\n  SenderAddrList: block:512, NULL\n"
          "  RecverAddrList: NULL, block:64\nCollectives\n",
      "id", id_text());
  TempGraphFile file(text);
  LoadedGraph graph(0, file.path());
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  const auto block = reinterpret_cast<size_t>(graph->process_list[0].buffer_list[0].addr);
  run_groups(graph.get(), 0, [&](int group_id) -> std::string {
    if (!takyonCreateGroupPaths(graph.get(), group_id)) return takyonExtensionError();
    const TakyonConnection& connection = graph->path_list[0];
    std::string failure;
    if (group_id == 0) {
      if (connection.pathA->attrs.sender_addr_list[0] != block + 512)
        failure = "send buffer is not block:512";
      if (failure.empty()) failure = send_bytes(connection.pathA, 7, 64);
    } else {
      if (connection.pathB->attrs.recver_addr_list[0] != block + 64)
        failure = "receive buffer is not block:64";
      if (failure.empty()) failure = recv_bytes(connection.pathB, 7, 64);
    }
    if (!takyonDestroyGroupPaths(graph.get(), group_id) && failure.empty()) failure = takyonExtensionError();
    return failure;
  });
  EXPECT_EQ(graph->path_list[0].pathA, nullptr);
  EXPECT_EQ(graph->path_list[0].pathB, nullptr);
}

// Each instance is endpoint A of one path and B of another (a cycle), and the file lists the
// paths out of ID order: creating "my A sides first" or in file order per side would deadlock.
TEST(GraphRun, TriangleCreatedConcurrentlyWithoutDeadlock) {
  std::string text =
      std::string(
          "Groups\nGroup: node\n  Instances: 3\nProcesses\nProcess: 0\n  GroupIDs: node[2] node[0] node[1]\n"
          "Buffers\nPaths\n") +
      kDefaults;
  const int ids[] = {2, 0, 1};
  for (int id : ids) {
    const int a = id;
    const int b = (id + 1) % 3;
    text += "Path: " + std::to_string(id) + "\n  Endpoints: node[" + std::to_string(a) + "], node[" +
            std::to_string(b) + "]\n  InterconnectA: InterThreadMemcpy -ID={id" + std::to_string(id) +
            "}\n  InterconnectB: InterThreadMemcpy -ID={id" + std::to_string(id) + "}\n";
  }
  text += "Collectives\n";
  for (int id : ids) text = substitute(text, "id" + std::to_string(id), id_text());
  TempGraphFile file(text);
  LoadedGraph graph(0, file.path());
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  for (int round = 0; round < 3; ++round) {
    run_groups(graph.get(), 0, [&](int group_id) -> std::string {
      if (!takyonCreateGroupPaths(graph.get(), group_id)) return takyonExtensionError();
      TakyonPath* out = path_with_id(graph.get(), group_id).pathA;
      TakyonPath* in = path_with_id(graph.get(), (group_id + 2) % 3).pathB;
      std::string failure = send_bytes(out, static_cast<uint8_t>(group_id), 32);
      if (failure.empty()) failure = recv_bytes(in, static_cast<uint8_t>((group_id + 2) % 3), 32);
      if (!takyonDestroyGroupPaths(graph.get(), group_id) && failure.empty())
        failure = takyonExtensionError();
      return failure;
    });
  }
}

TEST(GraphRun, TwoProcessesOverInterProcessMemcpy) {
  const std::string text = substitute(
      std::string("Groups\nGroup: node\n  Instances: 2\nProcesses\nProcess: 0\n  GroupIDs: node[0]\n"
                  "Process: 1\n  GroupIDs: node[1]\nBuffers\nPaths\n") +
          kDefaults +
          "Path: 0\n  Endpoints: node[0], node[1]\n  InterconnectA: InterProcessMemcpy -ID={id}\n"
          "  InterconnectB: InterProcessMemcpy -ID={id}\nCollectives\n",
      "id", id_text());
  TempGraphFile file(text);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TakyonGraph* graph = takyonLoadGraphDescription(1, file.path().c_str());
    bool ok = graph != nullptr && takyonCreateGroupPaths(graph, 1);
    ok = ok && recv_bytes(graph->path_list[0].pathB, 42, 64).empty();
    ok = ok && send_bytes(graph->path_list[0].pathB, 43, 16).empty();
    if (graph != nullptr) ok = takyonDestroyGroupPaths(graph, 1) && ok;
    takyonFreeGraphDescription(graph, 1);
    _exit(ok ? 0 : 1);
  }
  {
    LoadedGraph graph(0, file.path());
    ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
    ASSERT_TRUE(takyonCreateGroupPaths(graph.get(), 0)) << takyonExtensionError();
    EXPECT_EQ(send_bytes(graph->path_list[0].pathA, 42, 64), "");
    EXPECT_EQ(recv_bytes(graph->path_list[0].pathA, 43, 16), "");
    EXPECT_TRUE(takyonDestroyGroupPaths(graph.get(), 0)) << takyonExtensionError();
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the process 1 side failed";
}

TEST(GraphRun, OneSidedUnicastSend) {
  const int receiver = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(receiver, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(receiver, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(receiver, reinterpret_cast<sockaddr*>(&address), &length), 0);
  timeval timeout{30, 0};
  setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));

  const std::string text = substitute(
      "Groups\nGroup: sender\n  Instances: 1\nProcesses\nProcess: 0\n  GroupIDs: sender[0]\nBuffers\nPaths\n"
      "Path: 0\n  Endpoints: sender[0], -\n  InterconnectA: UnicastSendSocket -IP=127.0.0.1 -port={port}\n"
      "  InterconnectB: -\n  NBufsAtoB: 1, 0\n  NBufsBtoA: 0, 0\n  SenderMaxBytesList: 64, -\n"
      "  RecverMaxBytesList: -, -\nCollectives\n",
      "port", std::to_string(ntohs(address.sin_port)));
  TempGraphFile file(text);
  LoadedGraph graph(0, file.path());
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  ASSERT_TRUE(takyonCreateGroupPaths(graph.get(), 0)) << takyonExtensionError();
  EXPECT_EQ(send_bytes(graph->path_list[0].pathA, 9, 48), "");
  uint8_t data[128] = {};
  const ssize_t got = recv(receiver, data, sizeof(data), 0);
  EXPECT_EQ(got, 48);
  for (ssize_t i = 0; i < got; ++i) EXPECT_EQ(data[i], static_cast<uint8_t>(9 + i)) << i;
  EXPECT_TRUE(takyonDestroyGroupPaths(graph.get(), 0)) << takyonExtensionError();
  close(receiver);
}

TEST(GraphRun, CreateFailureNamesTheEndpoint) {
  const std::string text = substitute(
      "Groups\nGroup: sender\n  Instances: 1\nProcesses\nProcess: 0\n  GroupIDs: sender[0]\nBuffers\nPaths\n"
      "Path: 4\n  Endpoints: sender[0], -\n  InterconnectA: UnicastSendSocket -IP=127.0.0.1 -port=9\n"
      "  InterconnectB: -\n  NBufsAtoB: 1, 0\n  NBufsBtoA: 1, 0\n  SenderMaxBytesList: 64, -\n"
      "  RecverMaxBytesList: 64, -\nCollectives\n",
      "unused", "");
  TempGraphFile file(text);
  LoadedGraph graph(0, file.path());
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  EXPECT_FALSE(takyonCreateGroupPaths(graph.get(), 0));
  const std::string error = takyonExtensionError();
  EXPECT_EQ(error.rfind("takyonCreateGroupPaths: sender[0] (group ID 0): path 4 endpoint A "
                        "'UnicastSendSocket -IP=127.0.0.1 -port=9': ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("only sends"), std::string::npos) << error;
  EXPECT_TRUE(takyonDestroyGroupPaths(graph.get(), 0));
}

// The eleven-node tree of graph-format-notes.md: uneven fan-out, lookups from every node.
TEST(GraphRun, ElevenNodeTreeLookupsAndBarrier) {
  std::string text = [] {
    std::ifstream in(std::string(TAKYON_GRAPH_GOOD_DIR) + "/tree11.txt");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  for (int i = 0; i < 10; ++i) text = substitute(text, "id" + std::to_string(i), id_text());
  TempGraphFile file(text);
  LoadedGraph graph(0, file.path());
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  const int parent_path[11] = {-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<int> children[11] = {{0, 1}, {2, 3}, {4, 5, 6}, {}, {7, 8}, {9}, {}, {}, {}, {}, {}};
  run_groups(graph.get(), 0, [&](int me) -> std::string {
    if (!takyonCreateGroupPaths(graph.get(), me)) return takyonExtensionError();
    std::string failure;
    TakyonCollectiveBarrier* barrier = takyonGetBarrier(graph.get(), "tree", me);
    if (barrier == nullptr) {
      failure = takyonExtensionError();
    } else {
      const TakyonPath* expected_parent =
          parent_path[me] < 0 ? nullptr : path_with_id(graph.get(), parent_path[me]).pathB;
      if (barrier->parent_path != expected_parent) failure = "wrong parent path";
      if (barrier->nchildren != static_cast<int>(children[me].size())) failure = "wrong number of children";
      for (size_t c = 0; failure.empty() && c < children[me].size(); ++c) {
        if (barrier->child_path_list[c] != path_with_id(graph.get(), children[me][c]).pathA)
          failure = "wrong child";
      }
      if (failure.empty() && !takyonBarrierRun(barrier, 0)) failure = takyonExtensionError();
      takyonBarrierFinalize(barrier);
    }
    if (takyonGetReduce(graph.get(), "tree", me) != nullptr) failure = "found 'tree' as a REDUCE";
    if (!takyonDestroyGroupPaths(graph.get(), me) && failure.empty()) failure = takyonExtensionError();
    return failure;
  });
}

}  // namespace
