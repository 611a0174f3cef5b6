// SPDX-License-Identifier: MIT
// CopyTuner (pt2pt/copy_tuner.hpp): tries both ways first (an exchange: the single copy first, the
// pipeline from call kReexplore), then keeps the faster by the median of its last times, re-explores
// periodically, keys by collective, ranks and size class, and obeys a forced choice.
#include "pt2pt/copy_tuner.hpp"

#include <gtest/gtest.h>

namespace takyon::mpi {
namespace {

using Mode = CopyTuner::Mode;

/// Runs `calls` calls of (key, ranks, bytes) where single copy takes `single_ns` and the pipeline
/// `pipeline_ns`; returns how many calls used the pipeline.
int drive(CopyTuner& t, const void* key, int ranks, std::size_t bytes, int calls, std::uint64_t single_ns,
          std::uint64_t pipeline_ns) {
  int piped = 0;
  for (int i = 0; i < calls; ++i) {
    CopyTuner::Ticket k = t.begin(key, ranks, bytes);
    EXPECT_TRUE(k.decided);
    EXPECT_GE(k.entry, 0);
    piped += k.mode == Mode::kPipeline ? 1 : 0;
    t.end(k, k.mode == Mode::kPipeline ? pipeline_ns : single_ns);
  }
  return piped;
}

TEST(CopyTuner, ExploresBothThenKeepsTheFaster) {
  CopyTuner t;
  const char* key = "MPI_Bcast";
  // Warm-up (the pipeline), then exactly half of the next kExplore calls each way.
  EXPECT_EQ(drive(t, key, 2, 1 << 20, CopyTuner::kWarmup + CopyTuner::kExplore, 100, 60),
            CopyTuner::kWarmup + CopyTuner::kExplore / 2);
  EXPECT_EQ(t.preferred(key, 2, 1 << 20), Mode::kPipeline);
  // Then the pipeline, except the periodic re-exploration (kReexploreCalls calls per kReexplore),
  // which finds nothing better.
  const int calls = 2 * int(CopyTuner::kReexplore);
  int piped = drive(t, key, 2, 1 << 20, calls, 100, 60);
  EXPECT_EQ(piped, calls - 2 * CopyTuner::kReexploreCalls);
  EXPECT_EQ(t.preferred(key, 2, 1 << 20), Mode::kPipeline);
}

TEST(CopyTuner, FollowsAChangeSeenWhenReexploring) {
  CopyTuner t;
  const char* key = "MPI_Allreduce";
  drive(t, key, 2, 1 << 20, CopyTuner::kWarmup + CopyTuner::kExplore, 50, 90);
  EXPECT_EQ(t.preferred(key, 2, 1 << 20), Mode::kSingle);
  // The single copy becomes slow (another placement of the cores): within a few re-explorations
  // the median of the pipeline's times wins.
  drive(t, key, 2, 1 << 20, 6 * int(CopyTuner::kReexplore), 200, 90);
  EXPECT_EQ(t.preferred(key, 2, 1 << 20), Mode::kPipeline);
}

TEST(CopyTuner, OneOutlierDoesNotFlipTheChoice) {
  CopyTuner t;
  const char* key = "MPI_Gather";
  for (int i = 0; i < CopyTuner::kWarmup + CopyTuner::kExplore; ++i) {
    CopyTuner::Ticket k = t.begin(key, 3, 200000);
    // The single copy is faster, but one of its counted calls was preempted (and the warm-up was slow).
    std::uint64_t ns = k.mode == Mode::kPipeline
                           ? 80
                           : (i < CopyTuner::kWarmup || i == CopyTuner::kWarmup + 2 ? 100000 : 50);
    t.end(k, ns);
  }
  EXPECT_EQ(t.preferred(key, 3, 200000), Mode::kSingle);
}

TEST(CopyTuner, ThePipelineMustBeClearlyFaster) {
  CopyTuner t;
  drive(t, "MPI_Alltoall", 2, 1 << 20, CopyTuner::kWarmup + CopyTuner::kExplore, 100, 95);
  EXPECT_EQ(t.preferred("MPI_Alltoall", 2, 1 << 20), Mode::kSingle);  // 5% faster: not enough
  drive(t, "MPI_Gather", 2, 1 << 20, CopyTuner::kWarmup + CopyTuner::kExplore, 100, 85);
  EXPECT_EQ(t.preferred("MPI_Gather", 2, 1 << 20), Mode::kPipeline);
}

TEST(CopyTuner, AnExchangeStartsWithTheSingleCopyAndTriesThePipelineLater) {
  CopyTuner t;
  const char* key = "MPI_Alltoall";
  // Up to call kReexplore: the single copy only, warm-up included, though the pipeline is faster.
  for (std::uint32_t i = 0; i < CopyTuner::kReexplore; ++i) {
    CopyTuner::Ticket k = t.begin(key, 2, 1 << 20, 0, true);
    ASSERT_TRUE(k.decided);
    ASSERT_EQ(k.mode, Mode::kSingle) << "call " << i;
    EXPECT_EQ(k.record, i >= std::uint32_t(CopyTuner::kWarmup)) << "call " << i;
    t.end(k, 100);
  }
  EXPECT_EQ(t.preferred(key, 2, 1 << 20), Mode::kSingle);
  // Then the periodic exploration tries the pipeline, and a clearly faster one is taken.
  int piped = 0;
  for (int i = 0; i < CopyTuner::kReexploreCalls; ++i) {
    CopyTuner::Ticket k = t.begin(key, 2, 1 << 20, 0, true);
    piped += k.mode == Mode::kPipeline ? 1 : 0;
    t.end(k, k.mode == Mode::kPipeline ? 50 : 100);
  }
  EXPECT_GE(piped, 2);  // the first (not counted) and the second, after which the choice flips
  EXPECT_EQ(t.preferred(key, 2, 1 << 20), Mode::kPipeline);
  // Not an exchange: the usual warm-up through the pipeline.
  EXPECT_EQ(t.begin("MPI_Bcast", 2, 1 << 20, 0, false).mode, Mode::kPipeline);
}

TEST(CopyTuner, KeysAreSeparateAndSmallCallsAreNotTuned) {
  CopyTuner t;
  const char* a = "MPI_Bcast";
  const char* b = "MPI_Scatter";
  drive(t, a, 2, 1 << 20, CopyTuner::kWarmup + CopyTuner::kExplore, 100, 60);
  EXPECT_EQ(t.preferred(a, 2, 1 << 20), Mode::kPipeline);
  EXPECT_EQ(t.preferred(b, 2, 1 << 20), Mode::kSingle);          // another collective
  EXPECT_EQ(t.preferred(a, 4, 1 << 20), Mode::kSingle);          // another communicator size
  EXPECT_EQ(t.preferred(a, 2, 1 << 18), Mode::kSingle);          // another size class
  EXPECT_EQ(t.preferred(a, 2, (1 << 20) + 5), Mode::kPipeline);  // same size class
  // The size class is that of all received bytes: 4 receives of 256 KiB are not one of 256 KiB.
  drive(t, b, 2, 1 << 18, CopyTuner::kWarmup + CopyTuner::kExplore, 100, 60);
  for (int i = 0; i < CopyTuner::kWarmup + CopyTuner::kExplore; ++i) {
    CopyTuner::Ticket k = t.begin(b, 2, 1 << 18, 1 << 20);
    t.end(k, k.mode == Mode::kPipeline ? 100 : 60);
  }
  EXPECT_EQ(t.preferred(b, 2, 1 << 18), Mode::kPipeline);
  EXPECT_EQ(t.preferred(b, 2, 1 << 20), Mode::kSingle);
  CopyTuner::Ticket small = t.begin(a, 2, CopyTuner::kMinBytes - 1);
  EXPECT_FALSE(small.decided);
  EXPECT_LT(small.entry, 0);
}

TEST(CopyTuner, ForcedChoiceIsAlwaysUsed) {
  CopyTuner single(CopyTuner::Forced::kSingle);
  CopyTuner pipeline(CopyTuner::Forced::kPipeline);
  for (std::size_t bytes : {std::size_t(100), std::size_t(1) << 20}) {
    CopyTuner::Ticket s = single.begin("MPI_Bcast", 2, bytes);
    CopyTuner::Ticket p = pipeline.begin("MPI_Bcast", 2, bytes);
    EXPECT_TRUE(s.decided);
    EXPECT_TRUE(p.decided);
    EXPECT_EQ(s.mode, Mode::kSingle);
    EXPECT_EQ(p.mode, Mode::kPipeline);
    EXPECT_LT(s.entry, 0);  // nothing timed
  }
}

}  // namespace
}  // namespace takyon::mpi
