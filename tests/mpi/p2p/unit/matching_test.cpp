// SPDX-License-Identifier: MIT
// The matching queues alone: wildcards, first-match (non-overtaking) order, removal, contexts.
#include <gtest/gtest.h>

#include "pt2pt/matching.hpp"

namespace takyon::mpi {
namespace {

std::unique_ptr<Unexpected> msg(int ctx, int source, int tag, std::size_t bytes = 0) {
  auto u = std::make_unique<Unexpected>();
  u->ctx = ctx;
  u->source = source;
  u->tag = tag;
  u->bytes = bytes;
  return u;
}

TEST(Matching, EnvelopeWildcards) {
  EXPECT_TRUE(envelope_matches(0, kAnySource, kAnyTag, 0, 3, 7));
  EXPECT_TRUE(envelope_matches(0, 3, kAnyTag, 0, 3, 7));
  EXPECT_TRUE(envelope_matches(0, kAnySource, 7, 0, 3, 7));
  EXPECT_FALSE(envelope_matches(0, 2, kAnyTag, 0, 3, 7));
  EXPECT_FALSE(envelope_matches(0, kAnySource, 8, 0, 3, 7));
  EXPECT_FALSE(envelope_matches(1, kAnySource, kAnyTag, 0, 3, 7));  // contexts never mix
}

TEST(Matching, UnexpectedQueueGivesOldestMatchFirst) {
  UnexpectedQueue q;
  q.add(msg(0, 1, 5, 10));
  q.add(msg(0, 2, 5, 20));
  q.add(msg(0, 1, 6, 30));
  q.add(msg(0, 1, 5, 40));
  EXPECT_EQ(q.size(), 4U);
  EXPECT_EQ(q.find(0, 1, 5)->bytes, 10U);  // find does not remove
  EXPECT_EQ(q.take(0, 1, 5)->bytes, 10U);
  EXPECT_EQ(q.take(0, 1, kAnyTag)->bytes, 30U);
  EXPECT_EQ(q.take(0, kAnySource, 5)->bytes, 20U);
  EXPECT_EQ(q.take(1, kAnySource, kAnyTag), nullptr);
  EXPECT_EQ(q.take(0, kAnySource, kAnyTag)->bytes, 40U);
  EXPECT_EQ(q.size(), 0U);
}

TEST(Matching, PostedQueueMatchesInPostingOrder) {
  Request any{}, specific{}, other_ctx{};
  any.ctx = 0, any.peer = kAnySource, any.tag = kAnyTag;
  specific.ctx = 0, specific.peer = 2, specific.tag = 4;
  other_ctx.ctx = 1, other_ctx.peer = 2, other_ctx.tag = 4;
  PostedQueue q;
  q.post(&other_ctx);
  q.post(&any);
  q.post(&specific);
  EXPECT_EQ(q.match(0, 2, 4), &any);  // posted earlier, so it wins although `specific` fits too
  EXPECT_EQ(q.match(0, 2, 4), &specific);
  EXPECT_EQ(q.match(0, 2, 4), nullptr);
  EXPECT_EQ(q.match(1, 2, 4), &other_ctx);
}

TEST(Matching, PostedQueueRemoveForCancel) {
  Request a{}, b{}, c{};
  for (Request* r : {&a, &b, &c}) r->peer = kAnySource, r->tag = kAnyTag;
  PostedQueue q;
  q.post(&a);
  q.post(&b);
  q.post(&c);
  EXPECT_TRUE(q.remove(&b));
  EXPECT_FALSE(q.remove(&b));
  EXPECT_EQ(q.match(0, 0, 0), &a);
  EXPECT_EQ(q.match(0, 0, 0), &c);
  EXPECT_EQ(q.size(), 0U);
}

TEST(Matching, TenThousandUnexpectedInOrder) {
  UnexpectedQueue q;
  for (int i = 0; i < 10000; ++i) q.add(msg(0, i % 3, i % 7, std::size_t(i)));
  for (int i = 0; i < 10000; ++i) {
    auto u = q.take(0, i % 3, kAnyTag);
    ASSERT_NE(u, nullptr);
    ASSERT_EQ(u->bytes, std::size_t(i));
  }
}

}  // namespace
}  // namespace takyon::mpi
