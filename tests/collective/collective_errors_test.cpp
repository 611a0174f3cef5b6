// SPDX-License-Identifier: MIT
// Collectives given bad arguments, a member that never comes, a member that dies, wrong sizes and
// buffers: each returns false or NULL with a message naming the problem, and never exits.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "collective_harness.hpp"
#include "support/path_ops.hpp"
#include "takyon/takyon_extensions.h"

namespace takyon::test {
namespace {

void sum_i32(uint64_t n, void* a, void* b) {
  for (uint64_t i = 0; i < n; i++) static_cast<int32_t*>(a)[i] += static_cast<int32_t*>(b)[i];
}

std::string last_error() {
  return takyonExtensionError();
}

TEST(CollectiveInit, BadArgumentsGiveNullAndSayWhy) {
  TakyonPath fake[2]{};
  TakyonPath* two[] = {&fake[0], &fake[1]};
  TakyonPath* dup[] = {&fake[0], &fake[0]};
  TakyonPath* with_null[] = {&fake[0], nullptr};

  EXPECT_EQ(takyonBarrierInit(-1, nullptr, two), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"takyonBarrierInit", "negative"})) << last_error();
  EXPECT_EQ(takyonBarrierInit(2, nullptr, nullptr), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"child_path_list is NULL"})) << last_error();
  EXPECT_EQ(takyonReduceInit(2, nullptr, with_null), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"child_path_list[1] is NULL"})) << last_error();
  EXPECT_EQ(takyonBcastInit(2, nullptr, dup), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"appears twice"})) << last_error();
  EXPECT_EQ(takyonBarrierInit(0, nullptr, nullptr), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"no parent and no children"})) << last_error();
  EXPECT_EQ(takyonReduceInit(2, &fake[1], two), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"also the parent"})) << last_error();

  EXPECT_EQ(takyonScatterSrcInit(0, two), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"takyonScatterSrcInit", "npaths is 0"})) << last_error();
  EXPECT_EQ(takyonScatterDestInit(2, 2, &fake[0]), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"path_index 2", "0..1"})) << last_error();
  EXPECT_EQ(takyonGatherSrcInit(2, 0, nullptr), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"takyonGatherSrcInit", "path is NULL"})) << last_error();
  EXPECT_EQ(takyonGatherDestInit(2, dup), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"appears twice"})) << last_error();
  EXPECT_EQ(takyonOne2OneInit(1, 1, 1, two, two + 1), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"more than the 1"})) << last_error();

  TakyonPath* self_not_null[] = {&fake[0], &fake[1]};
  EXPECT_EQ(takyonAlltoallInit(2, 0, self_not_null), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"own entry", "must be NULL"})) << last_error();
  TakyonPath* missing[] = {nullptr, nullptr, &fake[0]};
  EXPECT_EQ(takyonAlltoallInit(3, 0, missing), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"path_list[1] is NULL"})) << last_error();
  EXPECT_EQ(takyonAlltoallInit(1, 0, missing), nullptr);
  EXPECT_TRUE(mentions_all(last_error(), {"at least 2 members"})) << last_error();

  // Run functions given NULL handles, and Finalize given NULL.
  EXPECT_FALSE(takyonBarrierRun(nullptr, 0));
  EXPECT_FALSE(takyonAllreduce(nullptr, 0, 1, 4, sum_i32, nullptr));
  EXPECT_FALSE(takyonScatterSend(nullptr, 0, nullptr, nullptr, nullptr));
  EXPECT_FALSE(takyonAlltoall(nullptr, 0, 0, nullptr, nullptr));
  takyonBarrierFinalize(nullptr);
  takyonReduceFinalize(nullptr);
  takyonBcastFinalize(nullptr);
  takyonScatterSrcFinalize(nullptr);
  takyonScatterDestFinalize(nullptr);
  takyonGatherSrcFinalize(nullptr);
  takyonGatherDestFinalize(nullptr);
  takyonOne2OneFinalize(nullptr);
  takyonAlltoallFinalize(nullptr);
}

// A member that never enters: the others time out (recv_start_timeout) and say so.
TEST(CollectiveRun, AbsentMemberMakesTheOthersTimeOut) {
  HarnessOptions options;
  options.recv_start_timeout = 0.3;
  const std::vector<int> parent = star_tree(3);
  const std::string failures =
      run_members(3, tree_edges(parent), options, [&](const MemberPaths& paths, const std::vector<Edge>&) {
        auto [up, down] = tree_links(paths, parent, paths.member);
        if (paths.member == 2) {
          usleep(900000);  // stays away longer than the timeout, then leaves without entering
          return true;
        }
        TakyonCollectiveBarrier* barrier =
            takyonBarrierInit(static_cast<int>(down.size()), up, down.empty() ? nullptr : down.data());
        const bool ok = takyonBarrierRun(barrier, 0);
        const std::string error = last_error();
        takyonBarrierFinalize(barrier);
        if (ok) {
          std::fprintf(stderr, "member %d: the barrier completed without member 2\n", paths.member);
          return false;
        }
        // The root times out waiting for member 2. Member 1 waits for its release and either times out
        // too or sees the root destroy the path first, whichever comes first.
        const bool timed_out =
            mentions_all(error, {"takyonBarrierRun", "timed out after 0.3 s", "recv_start_timeout"});
        const bool root_left =
            paths.member == 1 && mentions_all(error, {"takyonBarrierRun", "destroyed its endpoint"});
        if (!timed_out && !root_left) {
          std::fprintf(stderr, "member %d: unexpected error: %s\n", paths.member, error.c_str());
          return false;
        }
        return true;
      });
  EXPECT_EQ(failures, "");
}

// A member process that dies without a word: the root's barrier fails naming the path, no hang.
TEST(CollectiveRun, DeadMemberProcessIsAnErrorNotAHang) {
  HarnessOptions options;
  options.processes = true;
  options.timeout = 10.0;
  const std::vector<int> parent = star_tree(3);
  const std::string failures =
      run_members(3, tree_edges(parent), options, [&](const MemberPaths& paths, const std::vector<Edge>&) {
        auto [up, down] = tree_links(paths, parent, paths.member);
        if (paths.member == 2) _exit(0);  // dies with its paths open
        TakyonCollectiveBarrier* barrier =
            takyonBarrierInit(static_cast<int>(down.size()), up, down.empty() ? nullptr : down.data());
        const bool ok = takyonBarrierRun(barrier, 0);
        const std::string error = last_error();
        takyonBarrierFinalize(barrier);
        if (paths.member == 0) {
          if (ok || !mentions_all(error, {"takyonBarrierRun", "root", "failed"})) {
            std::fprintf(stderr, "root: %s\n", ok ? "the barrier completed without member 2" : error.c_str());
            return false;
          }
          return true;
        }
        // Member 1 reported to the root, which failed before releasing it: it sees the root's path go
        // away (the root destroys it), so it fails too, also without hanging.
        return !ok;
      });
  EXPECT_EQ(failures, "");
}

TEST(CollectiveRun, WrongSizesAndBuffersAreNamed) {
  HarnessOptions options;
  options.bytes = 64;
  const std::vector<int> parent = chain_tree(2);
  const std::string failures =
      run_members(2, tree_edges(parent), options, [&](const MemberPaths& paths, const std::vector<Edge>&) {
        auto [up, down] = tree_links(paths, parent, paths.member);
        TakyonCollectiveReduce* reduce =
            takyonReduceInit(static_cast<int>(down.size()), up, down.empty() ? nullptr : down.data());
        bool fine = true;
        if (paths.member == 0) {
          int32_t data[16] = {1, 2, 3, 4};
          // Buffer out of range, and the wrong role's function: caught before any transfer.
          if (takyonReduceRoot(reduce, 5, 4, 4, sum_i32, data, false) ||
              !mentions_all(last_error(), {"buffer 5 does not exist", "which has 2"})) {
            std::fprintf(stderr, "buffer 5: %s\n", last_error().c_str());
            fine = false;
          }
          if (takyonReduceChild(reduce, 0, 4, 4, sum_i32, false) ||
              !mentions_all(last_error(), {"takyonReduceRoot()"})) {
            std::fprintf(stderr, "child on root: %s\n", last_error().c_str());
            fine = false;
          }
          if (takyonReduceRoot(reduce, 0, 100, 4, sum_i32, data, false) ||
              !mentions_all(last_error(), {"400 bytes do not fit"})) {
            std::fprintf(stderr, "too big: %s\n", last_error().c_str());
            fine = false;
          }
          // The child reduces 2 elements while the root expects 4.
          if (takyonReduceRoot(reduce, 0, 4, 4, sum_i32, data, false) ||
              !mentions_all(last_error(), {"child 0 sent 8 bytes", "4 elements of 4 bytes = 16 bytes"})) {
            std::fprintf(stderr, "size mismatch: %s\n", last_error().c_str());
            fine = false;
          }
        } else {
          auto* mine = reinterpret_cast<int32_t*>(up->attrs.sender_addr_list[0]);
          mine[0] = 5;
          mine[1] = 6;
          // The root rejects the contribution and leaves: the child, waiting for the root's notice
          // that it folded the contribution, sees the path go away instead of hanging.
          if (takyonReduceChild(reduce, 0, 2, 4, sum_i32, false) ||
              !mentions_all(last_error(), {"takyonReduceChild", "destroyed its endpoint"})) {
            std::fprintf(stderr, "child: %s\n", last_error().c_str());
            fine = false;
          }
        }
        takyonReduceFinalize(reduce);
        return fine;
      });
  EXPECT_EQ(failures, "");
}

}  // namespace
}  // namespace takyon::test
