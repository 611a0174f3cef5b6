// SPDX-License-Identifier: MIT
// Loading good graphs: every field of the C structs, buffers and addresses, print, load errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "graph/graph_test_util.hpp"
#include "takyon/takyon_extensions.h"

namespace {

int g_allocations = 0;  // only the main thread loads graphs in this test program

}  // namespace

extern "C" void* appAllocateMemory(const char* /*name*/, const char* where, uint64_t bytes,
                                   void** user_data_ret) {
  if (std::strcmp(where, "CPU") != 0) return nullptr;
  ++g_allocations;
  *user_data_ret = nullptr;
  return std::calloc(1, static_cast<size_t>(bytes));
}

extern "C" void appFreeMemory(const char* /*where*/, void* /*user_data*/, void* addr) {
  --g_allocations;
  std::free(addr);
}

namespace {

using takyon::test::LoadedGraph;
using takyon::test::TempGraphFile;

const std::string kGood = TAKYON_GRAPH_GOOD_DIR;

const TakyonConnection& path_with_id(const TakyonGraph* graph, int id) {
  for (int p = 0; p < graph->path_count; ++p) {
    if (graph->path_list[p].id == id) return graph->path_list[p];
  }
  throw std::runtime_error("no path " + std::to_string(id));
}

TEST(GraphLoad, FullGraphGroupsProcessesAndBuffers) {
  {
    LoadedGraph graph(0, kGood + "/full.txt");
    ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
    ASSERT_EQ(graph->group_count, 2);
    EXPECT_STREQ(graph->group_list[0].name, "src");
    EXPECT_EQ(graph->group_list[0].instances, 1);
    EXPECT_EQ(graph->group_list[0].starting_group_id, 0);
    EXPECT_STREQ(graph->group_list[1].name, "work");
    EXPECT_EQ(graph->group_list[1].instances, 3);
    EXPECT_EQ(graph->group_list[1].starting_group_id, 1);

    ASSERT_EQ(graph->process_count, 2);
    const TakyonProcess& p0 = graph->process_list[0];
    EXPECT_EQ(p0.id, 0);
    ASSERT_EQ(p0.thread_count, 3);
    EXPECT_EQ(p0.thread_list[0].group_id, 0);
    EXPECT_EQ(p0.thread_list[1].group_id, 1);
    EXPECT_EQ(p0.thread_list[2].group_id, 2);
    const TakyonProcess& p1 = graph->process_list[1];
    EXPECT_EQ(p1.id, 1);
    ASSERT_EQ(p1.thread_count, 1);
    EXPECT_EQ(p1.thread_list[0].group_id, 3);

    ASSERT_EQ(p0.buffer_count, 1);
    EXPECT_STREQ(p0.buffer_list[0].name, "image");
    EXPECT_STREQ(p0.buffer_list[0].where, "CPU");
    EXPECT_EQ(p0.buffer_list[0].bytes, 8192u);
    EXPECT_NE(p0.buffer_list[0].addr, nullptr);
    ASSERT_EQ(p1.buffer_count, 1);
    EXPECT_STREQ(p1.buffer_list[0].name, "remote");
    EXPECT_EQ(p1.buffer_list[0].bytes, 100u);
    EXPECT_EQ(p1.buffer_list[0].addr, nullptr) << "another process's buffer is not allocated here";
    EXPECT_EQ(g_allocations, 1);

    EXPECT_EQ(takyonGetGroup(graph.get(), 0), &graph->group_list[0]);
    EXPECT_EQ(takyonGetGroup(graph.get(), 3), &graph->group_list[1]);
    EXPECT_EQ(takyonGetGroup(graph.get(), 4), nullptr);
    EXPECT_EQ(takyonGetGroup(graph.get(), -1), nullptr);
    EXPECT_EQ(takyonGetGroupInstance(graph.get(), 0), 0);
    EXPECT_EQ(takyonGetGroupInstance(graph.get(), 3), 2);
    EXPECT_EQ(takyonGetGroupInstance(graph.get(), 4), -1);
    EXPECT_EQ(takyonGetGroup(nullptr, 0), nullptr);
  }
  EXPECT_EQ(g_allocations, 0) << "takyonFreeGraphDescription frees every buffer";
}

TEST(GraphLoad, FullGraphPathAttributes) {
  LoadedGraph graph(0, kGood + "/full.txt");
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  ASSERT_EQ(graph->path_count, 6);
  const int file_order[] = {10, 3, 7, 8, 9, 20};
  for (int p = 0; p < 6; ++p) EXPECT_EQ(graph->path_list[p].id, file_order[p]);

  const auto image = reinterpret_cast<size_t>(graph->process_list[0].buffer_list[0].addr);
  const TakyonConnection& p10 = path_with_id(graph.get(), 10);
  EXPECT_EQ(p10.group_idA, 0);
  EXPECT_EQ(p10.group_idB, 1);
  EXPECT_EQ(p10.pathA, nullptr);
  EXPECT_EQ(p10.pathB, nullptr);
  const TakyonPathAttributes& a = p10.attrsA;
  EXPECT_STREQ(a.interconnect, "InterThreadMemcpy -ID=10");
  EXPECT_TRUE(a.is_endpointA);
  EXPECT_TRUE(a.is_polling);  // from Defaults
  EXPECT_FALSE(a.abort_on_failure);
  EXPECT_EQ(a.verbosity, TAKYON_VERBOSITY_ERRORS);  // built in
  for (double timeout : {a.path_create_timeout, a.send_start_timeout, a.send_finish_timeout,
                         a.recv_start_timeout, a.recv_finish_timeout, a.path_destroy_timeout}) {
    EXPECT_EQ(timeout, TAKYON_WAIT_FOREVER);
  }
  EXPECT_EQ(a.send_completion_method, TAKYON_BLOCKING);
  EXPECT_EQ(a.recv_completion_method, TAKYON_BLOCKING);
  EXPECT_EQ(a.nbufs_AtoB, 2);
  EXPECT_EQ(a.nbufs_BtoA, 1);
  EXPECT_EQ(a.sender_max_bytes_list[0], 1024u);
  EXPECT_EQ(a.sender_max_bytes_list[1], 2048u);
  EXPECT_EQ(a.recver_max_bytes_list[0], 16u);
  EXPECT_EQ(a.sender_addr_list[0], image);
  EXPECT_EQ(a.sender_addr_list[1], image + 1024);
  EXPECT_EQ(a.recver_addr_list[0], 0u);
  EXPECT_EQ(a.error_message, nullptr);
  const TakyonPathAttributes& b = p10.attrsB;
  EXPECT_FALSE(b.is_endpointA);
  EXPECT_FALSE(b.is_polling);
  EXPECT_EQ(b.sender_max_bytes_list[0], 16u);
  EXPECT_EQ(b.recver_max_bytes_list[0], 1024u);
  EXPECT_EQ(b.recver_max_bytes_list[1], 2048u);
  EXPECT_EQ(b.sender_addr_list[0], 0u);
  EXPECT_EQ(b.recver_addr_list[0], 0u);
  EXPECT_EQ(b.recver_addr_list[1], 0u);

  const TakyonConnection& p3 = path_with_id(graph.get(), 3);
  EXPECT_EQ(p3.attrsA.verbosity, TAKYON_VERBOSITY_ERRORS | TAKYON_VERBOSITY_SEND_RECV);
  EXPECT_EQ(p3.attrsB.verbosity, 3u);
  EXPECT_EQ(p3.attrsA.send_completion_method, TAKYON_USE_IS_SEND_FINISHED);
  EXPECT_EQ(p3.attrsB.send_completion_method, TAKYON_USE_IS_SEND_FINISHED);
  EXPECT_EQ(p3.attrsA.path_create_timeout, 2.5);
  EXPECT_EQ(p3.attrsB.path_create_timeout, TAKYON_WAIT_FOREVER);
  EXPECT_FALSE(p3.attrsA.abort_on_failure);
  EXPECT_TRUE(p3.attrsB.abort_on_failure);

  // The second Defaults block replaces the list keys and adds RecvStartTimeout; IsPolling stays.
  const TakyonConnection& p7 = path_with_id(graph.get(), 7);
  EXPECT_EQ(p7.group_idA, 1);
  EXPECT_EQ(p7.group_idB, 3);
  EXPECT_EQ(p7.attrsA.nbufs_AtoB, 1);
  EXPECT_EQ(p7.attrsA.nbufs_BtoA, 0);
  EXPECT_EQ(p7.attrsA.recv_start_timeout, 1.0);
  EXPECT_EQ(p7.attrsB.recv_start_timeout, 2.0);
  EXPECT_TRUE(p7.attrsA.is_polling);
  EXPECT_EQ(p7.attrsA.sender_max_bytes_list[0], 64u);
  EXPECT_EQ(p7.attrsA.recver_max_bytes_list, nullptr);
  EXPECT_EQ(p7.attrsB.recver_max_bytes_list[0], 64u);
  EXPECT_EQ(p7.attrsB.recver_addr_list[0], 0u) << "endpoint B lives in process 1: not resolved here";

  const TakyonConnection& p20 = path_with_id(graph.get(), 20);
  EXPECT_EQ(p20.group_idA, -1);
  EXPECT_EQ(p20.group_idB, 2);
  EXPECT_STREQ(p20.attrsA.interconnect, "-");
  EXPECT_STREQ(p20.attrsB.interconnect, "UnicastSendSocket -IP=127.0.0.1 -port=4000");
  EXPECT_EQ(p20.attrsB.nbufs_AtoB, 0);
  EXPECT_EQ(p20.attrsB.nbufs_BtoA, 1);
  EXPECT_EQ(p20.attrsB.sender_max_bytes_list[0], 512u);
}

TEST(GraphLoad, FullGraphForTheOtherProcessResolvesItsAddresses) {
  LoadedGraph graph(1, kGood + "/full.txt");
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  EXPECT_EQ(graph->process_list[0].buffer_list[0].addr, nullptr);
  const auto remote = reinterpret_cast<size_t>(graph->process_list[1].buffer_list[0].addr);
  ASSERT_NE(remote, 0u);
  EXPECT_EQ(path_with_id(graph.get(), 7).attrsB.recver_addr_list[0], remote + 36);
  EXPECT_EQ(path_with_id(graph.get(), 10).attrsA.sender_addr_list[0], 0u);
}

TEST(GraphLoad, FullGraphCollectives) {
  LoadedGraph graph(0, kGood + "/full.txt");
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  ASSERT_EQ(graph->collective_count, 7);
  const TakyonCollective& tree = graph->collective_list[0];
  EXPECT_STREQ(tree.name, "tree");
  EXPECT_EQ(tree.type, TAKYON_COLLECTIVE_BARRIER);
  ASSERT_EQ(tree.num_paths, 3);
  EXPECT_EQ(tree.path_list[0].path_id, 10);
  EXPECT_TRUE(tree.path_list[0].src_is_endpointA);
  ASSERT_NE(tree.path_tree, nullptr);
  const TakyonPathTree& root = *tree.path_tree;
  EXPECT_EQ(root.path_index, -1);
  EXPECT_EQ(root.parent, nullptr);
  ASSERT_EQ(root.num_children, 1);
  const TakyonPathTree& n10 = root.children[0];
  EXPECT_EQ(n10.path_index, 0);
  EXPECT_EQ(n10.parent, &root);
  ASSERT_EQ(n10.num_children, 1);
  EXPECT_EQ(n10.children[0].path_index, 1);
  ASSERT_EQ(n10.children[0].num_children, 1);
  EXPECT_EQ(n10.children[0].children[0].path_index, 2);
  EXPECT_EQ(n10.children[0].children[0].num_children, 0);

  const TakyonCollectiveType types[] = {TAKYON_COLLECTIVE_BARRIER,  TAKYON_COLLECTIVE_SCATTER,
                                        TAKYON_COLLECTIVE_GATHER,   TAKYON_COLLECTIVE_ONE2ONE,
                                        TAKYON_COLLECTIVE_ALLTOALL, TAKYON_COLLECTIVE_REDUCE,
                                        TAKYON_COLLECTIVE_BCAST};
  for (int c = 0; c < 7; ++c) {
    EXPECT_EQ(graph->collective_list[c].type, types[c]) << c;
    const bool tree_type = types[c] == TAKYON_COLLECTIVE_BARRIER || types[c] == TAKYON_COLLECTIVE_REDUCE ||
                           types[c] == TAKYON_COLLECTIVE_BCAST;
    EXPECT_EQ(graph->collective_list[c].path_tree != nullptr, tree_type) << c;
  }
  const TakyonCollective& all = graph->collective_list[4];
  ASSERT_EQ(all.num_paths, 3);
  EXPECT_EQ(all.path_list[1].path_id, 8);
  EXPECT_FALSE(all.path_list[1].src_is_endpointA);
  const TakyonCollective& bc = graph->collective_list[6];
  EXPECT_EQ(bc.path_tree->num_children, 2);
}

TEST(GraphLoad, PrintShowsEveryItem) {
  LoadedGraph graph(0, kGood + "/full.txt");
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  ::testing::internal::CaptureStdout();
  takyonPrintGraph(graph.get());
  takyonPrintGraph(nullptr);
  const std::string out = ::testing::internal::GetCapturedStdout();
  for (const char* text :
       {"src: 1 instance, group IDs 0..0", "work: 3 instances, group IDs 1..3",
        "buffer image: CPU, 8192 bytes", "Path 20:", "UnicastSendSocket -IP=127.0.0.1 -port=4000",
        "tree (BARRIER): 10:A ( 9:A ( 8:A ) )", "all (ALLTOALL): 9:A 8:B 7:A", "Graph: NULL"}) {
    EXPECT_NE(out.find(text), std::string::npos) << "missing '" << text << "' in:\n" << out;
  }
}

TEST(GraphLoad, ProcessIdOutOfRange) {
  for (int process_id : {2, -1}) {
    EXPECT_EQ(takyonLoadGraphDescription(process_id, (kGood + "/no_buffers.txt").c_str()), nullptr);
    EXPECT_EQ(std::string(takyonExtensionError()), kGood + "/no_buffers.txt: process ID " +
                                                       std::to_string(process_id) +
                                                       " is not in the graph (it defines processes 0..0)");
  }
}

TEST(GraphLoad, UnreadableFile) {
  EXPECT_EQ(takyonLoadGraphDescription(0, "/nonexistent/graph.txt"), nullptr);
  EXPECT_EQ(std::string(takyonExtensionError()),
            "/nonexistent/graph.txt: cannot open the graph file: No such file or directory");
  EXPECT_EQ(takyonLoadGraphDescription(0, nullptr), nullptr);
  EXPECT_EQ(std::string(takyonExtensionError()), "takyonLoadGraphDescription: filename is NULL");
  EXPECT_EQ(takyonLoadGraphDescription(0, "/tmp"), nullptr);
  takyonFreeGraphDescription(nullptr, 0);
}

TEST(GraphLoad, AllocatorReturningNullNamesTheBuffer) {
  std::string text =
      "Groups\nGroup: g\n  Instances: 1\nProcesses\nProcess: 0\n  GroupIDs: g[0]\nBuffers\n"
      "Buffer: ok\n  ProcessId: 0\n  Where: CPU\n  Bytes: 10\n"
      "Buffer: gpu\n  ProcessId: 0\n  Where: CUDA:7\n  Bytes: 10\nPaths\nPath: 1\n  Endpoints: g[0], -\n"
      "  InterconnectA: UnicastSendSocket -IP=127.0.0.1 -port=9\n  InterconnectB: -\n"
      "  NBufsAtoB: 1, 0\n  NBufsBtoA: 0, 0\n  SenderMaxBytesList: 10, -\n  RecverMaxBytesList: -, -\n"
      "Collectives\n";
  TempGraphFile file(text);
  EXPECT_EQ(takyonLoadGraphDescription(0, file.path().c_str()), nullptr);
  EXPECT_EQ(std::string(takyonExtensionError()),
            file.path() + ":12: buffer 'gpu': appAllocateMemory(\"gpu\", \"CUDA:7\", 10) returned NULL");
  EXPECT_EQ(g_allocations, 0) << "the buffers allocated before the failure are freed";
}

TEST(GraphLoad, LookupsNeedTheLoadingProcessAndCreatedPaths) {
  LoadedGraph graph(0, kGood + "/full.txt");
  ASSERT_NE(graph.get(), nullptr) << takyonExtensionError();
  EXPECT_FALSE(takyonCreateGroupPaths(graph.get(), 3));
  EXPECT_EQ(std::string(takyonExtensionError()),
            "takyonCreateGroupPaths: work[2] (group ID 3) runs in process 1, but this graph was loaded for "
            "process 0");
  EXPECT_FALSE(takyonCreateGroupPaths(graph.get(), 9));
  EXPECT_EQ(std::string(takyonExtensionError()),
            "takyonCreateGroupPaths: group ID 9 is not in the graph (group IDs are 0..3)");
  EXPECT_FALSE(takyonCreateGroupPaths(nullptr, 0));
  EXPECT_EQ(takyonGetBarrier(graph.get(), "nope", 0), nullptr);
  EXPECT_EQ(takyonGetScatterSrc(graph.get(), "tree", 0), nullptr) << "the name exists, but as a BARRIER";
  EXPECT_EQ(takyonGetGatherDest(graph.get(), "ga", 1), nullptr);
}

}  // namespace
