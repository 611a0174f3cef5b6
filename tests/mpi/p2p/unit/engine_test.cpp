// SPDX-License-Identifier: MIT
// Two engines in one process, wired through real inbox segments: the eager, synchronous and
// rendezvous protocols, unexpected messages, ANY_SOURCE, truncation, cancel and ring-full flow control;
// failures: a cell whose handling throws, abandoned receives, a peer whose pid is reused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pt2pt/engine.hpp"
#include "shm/heap.hpp"
#include "shm/layout.hpp"
#include "shm/segment.hpp"

namespace takyon::mpi {
namespace {

/// Starts a send of `bytes` at `buf` on engine `e` to rank `to`.
Request* start_send_on(Engine& e, int to, int tag, const void* buf, std::size_t bytes,
                       SendMode mode = SendMode::kStandard) {
  Request* r = e.requests().acquire();
  r->kind = RequestKind::kSend;
  r->mode = mode;
  r->buf = const_cast<void*>(buf);
  r->bytes = bytes;
  r->peer = to;
  r->tag = tag;
  e.start_send(r);
  return r;
}

/// Starts a receive of up to `bytes` into `buf` on engine `e` from rank `from`.
Request* start_recv_on(Engine& e, int from, int tag, void* buf, std::size_t bytes) {
  Request* r = e.requests().acquire();
  r->kind = RequestKind::kRecv;
  r->buf = buf;
  r->bytes = bytes;
  r->peer = from;
  r->tag = tag;
  e.start_recv(r);
  return r;
}

class EnginePair : public ::testing::Test {
 protected:
  void SetUp() override {
    layout_ = shm::InboxLayout::for_ranks(2);
    layout_.ncells = 8;  // small ring: flow control kicks in quickly
    for (int r = 0; r < 2; ++r) {
      seg_[r] = shm::Segment::create(
          "/takyon-mpi-engine-test-" + std::to_string(getpid()) + "-" + std::to_string(r),
          layout_.total_bytes());
      seg_[r].unlink();
    }
    std::vector<void*> bases{seg_[0].data(), seg_[1].data()};
    std::vector<int> pids{getpid(), getpid()};
    e_[0] = std::make_unique<Engine>(0, 2, layout_, bases, pids);
    e_[1] = std::make_unique<Engine>(1, 2, layout_, bases, pids);
  }
  Request* send(int from, int to, int tag, const void* buf, std::size_t bytes,
                SendMode mode = SendMode::kStandard) {
    return start_send_on(*e_[from], to, tag, buf, bytes, mode);
  }
  Request* recv(int at, int from, int tag, void* buf, std::size_t bytes) {
    return start_recv_on(*e_[at], from, tag, buf, bytes);
  }
  /// Rebuilds both engines with TAKYON_MPI_CMA=`cma` (read at construction).
  void rebuild(const char* cma) {
    setenv("TAKYON_MPI_CMA", cma, 1);
    std::vector<void*> bases{seg_[0].data(), seg_[1].data()};
    std::vector<int> pids{getpid(), getpid()};
    e_[0] = std::make_unique<Engine>(0, 2, layout_, bases, pids);
    e_[1] = std::make_unique<Engine>(1, 2, layout_, bases, pids);
    unsetenv("TAKYON_MPI_CMA");
  }
  /// Progresses the receiving engine until `r` is matched to a message (bounded).
  void match(Request* r) {
    for (int i = 0; i < 100'000 && r->recv_state != RecvState::kMatched; ++i) e_[1]->progress();
    ASSERT_EQ(r->recv_state, RecvState::kMatched);
  }
  /// Progresses both engines until every request is complete (bounded).
  void drive(std::initializer_list<Request*> reqs) {
    for (int i = 0; i < 10'000'000; ++i) {
      bool done = true;
      for (Request* r : reqs) done = done && r->complete;
      if (done) return;
      e_[0]->progress();
      e_[1]->progress();
    }
    FAIL() << "requests did not complete";
  }

  shm::InboxLayout layout_;
  shm::Segment seg_[2];
  std::unique_ptr<Engine> e_[2];
};

TEST_F(EnginePair, EagerPostedAndUnexpected) {
  int a = 11, b = 22, x = 0, y = 0;
  Request* r1 = recv(1, 0, 1, &x, sizeof x);  // posted first
  Request* s1 = send(0, 1, 1, &a, sizeof a);
  Request* s2 = send(0, 1, 2, &b, sizeof b);  // arrives unexpected
  EXPECT_TRUE(s1->complete && s2->complete);  // eager: complete once in the ring
  drive({r1});
  Request* r2 = recv(1, kAnySource, kAnyTag, &y, sizeof y);
  drive({r2});
  EXPECT_EQ(x, 11);
  EXPECT_EQ(y, 22);
  EXPECT_EQ(r2->status_tag, 2);
  EXPECT_EQ(r2->status_source, 0);
}

TEST_F(EnginePair, RendezvousBothOrdersAndTruncation) {
  std::vector<char> big(3 << 20), in(3 << 20), small(1000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = char(i * 13);
  Request* s = send(0, 1, 5, big.data(), big.size());
  EXPECT_FALSE(s->complete);
  Request* r = recv(1, 0, 5, in.data(), in.size());
  drive({s, r});
  EXPECT_EQ(big, in);
  Request* r2 = recv(1, 0, 6, small.data(), small.size());  // posted first, too small
  Request* s2 = send(0, 1, 6, big.data(), big.size());
  drive({s2, r2});
  EXPECT_TRUE(r2->truncated);
  EXPECT_EQ(r2->status_bytes, small.size());
  EXPECT_EQ(r2->sent_bytes, big.size());
  EXPECT_TRUE(std::equal(small.begin(), small.end(), big.begin()));
}

TEST_F(EnginePair, SyncSendWaitsForTheMatch) {
  int v = 5, got = 0;
  Request* s = send(0, 1, 3, &v, sizeof v, SendMode::kSync);
  for (int i = 0; i < 100; ++i) {
    e_[0]->progress();
    e_[1]->progress();
  }
  EXPECT_FALSE(s->complete);  // unexpected at rank 1, not matched yet
  Request* r = recv(1, 0, 3, &got, sizeof got);
  drive({s, r});
  EXPECT_EQ(got, 5);
}

TEST_F(EnginePair, FullRingQueuesInOrder) {
  std::vector<int> vals(1000);
  for (int i = 0; i < 1000; ++i) vals[std::size_t(i)] = i;
  std::vector<Request*> sends;
  for (int i = 0; i < 1000; ++i) sends.push_back(send(0, 1, 9, &vals[std::size_t(i)], sizeof(int)));
  EXPECT_FALSE(sends.back()->complete);  // 8 cells: most wait in the pending queue
  for (int i = 0; i < 1000; ++i) {
    int got = -1;
    Request* r = recv(1, 0, 9, &got, sizeof got);
    drive({r});
    ASSERT_EQ(got, i);
  }
  for (Request* s : sends) EXPECT_TRUE(s->complete);
}

TEST_F(EnginePair, CancelPostedReceive) {
  int x = 0;
  Request* r = recv(1, kAnySource, 4, &x, sizeof x);
  EXPECT_TRUE(e_[1]->cancel_recv(r));
  EXPECT_TRUE(r->complete && r->cancelled);
  EXPECT_FALSE(e_[1]->cancel_recv(r));
}

// A send unmatched at the receiver, eager or rendezvous, is withdrawn there when cancelled: the
// receiver's next receive gets the message after it. One already matched is not cancelled.
TEST_F(EnginePair, CancelUnmatchedSendWithdrawsIt) {
  for (std::size_t n : {std::size_t(8), std::size_t(300'000)}) {
    std::vector<char> first(n, 'a'), second(n, 'b'), in(n, 0);
    Request* s1 = send(0, 1, 4, first.data(), n);
    for (int i = 0; i < 100; ++i) e_[1]->progress();  // unexpected at rank 1
    e_[0]->cancel_send(s1);
    EXPECT_FALSE(s1->complete);  // until rank 1 answers
    drive({s1});
    EXPECT_TRUE(s1->cancelled);
    ProbeResult pr;
    EXPECT_FALSE(e_[1]->probe(0, kAnySource, kAnyTag, pr));  // nothing left to match
    Request* s2 = send(0, 1, 4, second.data(), n);
    Request* r = recv(1, 0, 4, in.data(), n);
    drive({s2, r});
    EXPECT_FALSE(s2->cancelled);
    EXPECT_EQ(in, second);
    e_[0]->requests().release(s1);
    e_[0]->requests().release(s2);
  }
}

TEST_F(EnginePair, CancelMatchedSendCompletesIt) {
  for (std::size_t n : {std::size_t(8), std::size_t(300'000)}) {
    std::vector<char> out(n, 'c'), in(n, 0);
    Request* r = recv(1, 0, 6, in.data(), n);
    Request* s = send(0, 1, 6, out.data(), n);
    match(r);
    e_[0]->cancel_send(s);
    drive({s, r});
    EXPECT_FALSE(s->cancelled);
    EXPECT_EQ(in, out);
  }
  // A synchronous send matched from the unexpected queue: its kAck comes before the answer.
  int v = 9, got = 0;
  Request* s = send(0, 1, 7, &v, sizeof v, SendMode::kSync);
  for (int i = 0; i < 100; ++i) e_[1]->progress();
  Request* r = recv(1, 0, 7, &got, sizeof got);
  e_[0]->cancel_send(s);
  drive({s, r});
  EXPECT_FALSE(s->cancelled);
  EXPECT_EQ(got, 9);
}

// A send still queued for ring space never left the rank: cancelled at once, the rest keep their order.
TEST_F(EnginePair, CancelQueuedSendLeavesTheRestInOrder) {
  std::vector<int> vals(40);
  std::vector<Request*> sends;
  for (int i = 0; i < 40; ++i) {
    vals[std::size_t(i)] = i;
    sends.push_back(send(0, 1, 9, &vals[std::size_t(i)], sizeof(int)));
  }
  ASSERT_FALSE(sends[30]->complete);  // 8 cells: queued
  e_[0]->cancel_send(sends[30]);
  EXPECT_TRUE(sends[30]->complete && sends[30]->cancelled);
  for (int i = 0; i < 40; ++i) {
    if (i == 30) continue;
    int got = -1;
    Request* r = recv(1, 0, 9, &got, sizeof got);
    drive({r});
    ASSERT_EQ(got, i);
  }
}

TEST_F(EnginePair, SelfSendAndProbe) {
  int v = 7, got = 0;
  Request* s = send(0, 0, 8, &v, sizeof v);
  EXPECT_TRUE(s->complete);
  ProbeResult p;
  ASSERT_TRUE(e_[0]->probe(0, kAnySource, kAnyTag, p));
  EXPECT_EQ(p.source, 0);
  EXPECT_EQ(p.tag, 8);
  EXPECT_EQ(p.bytes, sizeof v);
  Request* r = recv(0, 0, 8, &got, sizeof got);
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(got, 7);
}

// A lone rendezvous message is read by the receiver from the sender's memory (CMA); several in flight
// take the pipeline. Both must deliver every byte, posted first or unexpected.
TEST_F(EnginePair, SoloRendezvousSingleCopyAndPipelined) {
  const std::size_t n = 200'000;
  std::vector<char> a(n), b(n), c(n), x(n), y(n), z(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = char(i * 7);
    b[i] = char(i * 11 + 1);
    c[i] = char(i * 13 + 2);
  }
  Request* r1 = recv(1, 0, 1, x.data(), n);
  Request* s1 = send(0, 1, 1, a.data(), n);  // alone: single copy
  drive({r1, s1});
  EXPECT_EQ(x, a);
  Request* s2 = send(0, 1, 2, b.data(), n);  // alone, but unexpected
  Request* s3 = send(0, 1, 3, c.data(), n);  // behind s2: the pipeline
  Request* r3 = recv(1, 0, 3, z.data(), n);
  Request* r2 = recv(1, 0, 2, y.data(), n);
  drive({r2, r3, s2, s3});
  EXPECT_EQ(y, b);
  EXPECT_EQ(z, c);
}

// Buffers in the shared heap (shm/heap.hpp) are copied with memcpy through a mapping of the peer's
// heap, whichever side holds them: the sender's (the receiver reads the head, and all of a lone
// copy), the receiver's (the sender writes the tail of a split), or both; past CMA's 1 MiB limit too
// when the sender's buffer is in the heap (else the pipeline, no heap copy). Here both "peers" publish
// this process's heap; the engines map it a second time through pidfd_getfd, as a peer would.
TEST_F(EnginePair, SingleCopyThroughTheSharedHeap) {
  const shm::SharedHeap::Info info = shm::SharedHeap::instance().activate();
  ASSERT_GT(info.bytes, 0U) << "the shared heap did not activate";
  for (shm::Segment& seg : seg_) {
    auto* header = static_cast<shm::InboxHeader*>(seg.data());
    header->heap_fd = info.fd;
    header->heap_base = info.base;
    header->heap_bytes = info.bytes;
  }
  rebuild("split");  // split even where the test has fewer cores than ranks
  const std::size_t mib = std::size_t(1) << 20;
  const std::size_t big = 3 * mib;
  shm::SharedHeap& heap = shm::SharedHeap::instance();
  bool zeroed = false;
  auto* heap_a = static_cast<char*>(heap.allocate(big, 16, &zeroed));
  auto* heap_x = static_cast<char*>(heap.allocate(big, 16, &zeroed));
  ASSERT_NE(heap_a, nullptr);
  ASSERT_NE(heap_x, nullptr);
  std::vector<char> a(big), x(big);
  struct Case {
    const char* what;
    char* from;
    char* to;
    std::size_t n;
    std::uint64_t read;     ///< by the receiver through the heap: the head, half
    std::uint64_t written;  ///< by the sender through the heap: the tail
  };
  for (const Case& c : {Case{"sender's buffer in the heap", heap_a, x.data(), mib, mib / 2, 0},
                        Case{"receiver's buffer in the heap", a.data(), heap_x, mib, 0, mib / 2},
                        Case{"both in the heap", heap_a, heap_x, mib, mib / 2, mib / 2},
                        Case{"3 MiB from the heap", heap_a, x.data(), big, big / 2, 0},
                        Case{"3 MiB into the heap: the pipeline", a.data(), heap_x, big, 0, 0}}) {
    SCOPED_TRACE(c.what);
    for (std::size_t i = 0; i < c.n; ++i) c.from[i] = char(i * 31 + std::size_t(c.what[0]) + c.n);
    std::memset(c.to, 0, c.n);
    const std::uint64_t read_before = e_[1]->heap_copied_bytes();
    const std::uint64_t written_before = e_[0]->heap_copied_bytes();
    Request* r = recv(1, 0, 9, c.to, c.n);
    Request* s = send(0, 1, 9, c.from, c.n);
    drive({r, s});
    EXPECT_EQ(std::memcmp(c.to, c.from, c.n), 0);
    EXPECT_EQ(e_[1]->heap_copied_bytes() - read_before, c.read);
    EXPECT_EQ(e_[0]->heap_copied_bytes() - written_before, c.written);
  }
  heap.release(heap_a);
  heap.release(heap_x);
}

// When the kernel refuses to read the sender (here: pid 1 does not hold our buffers), the receiver
// falls back to the pipeline for that message and every later one.
TEST_F(EnginePair, SoloRendezvousFallsBackWhenTheSenderCannotBeRead) {
  std::vector<void*> bases{seg_[0].data(), seg_[1].data()};
  std::vector<int> pids{1, 1};
  e_[0] = std::make_unique<Engine>(0, 2, layout_, bases, pids);
  e_[1] = std::make_unique<Engine>(1, 2, layout_, bases, pids);
  const std::size_t n = 150'000;
  std::vector<char> a(n), x(n);
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < n; ++i) a[i] = char(i * 5 + std::size_t(round));
    std::fill(x.begin(), x.end(), 0);
    Request* r = recv(1, 0, 4, x.data(), n);
    Request* s = send(0, 1, 4, a.data(), n);
    drive({r, s});
    EXPECT_EQ(x, a) << "round " << round;
  }
}

// A cell whose handling throws is consumed all the same, once. Here the split single copy's head read
// fails after its first-page probe worked (the sender's buffer has one readable page): PeerFailure out
// of progress(). A receive posted after the error must not be matched to that kRts again (it would wait
// for data that never comes, or take another message's), and gets the next message.
TEST_F(EnginePair, CellWhoseHandlingThrowsIsConsumedOnce) {
  rebuild("split");
  const std::size_t n = 256 * 1024;
  void* mem = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  std::memset(mem, 0x11, 4096);
  ASSERT_EQ(mprotect(static_cast<char*>(mem) + 4096, n - 4096, PROT_NONE), 0);
  std::vector<char> x(n, 0), y(n, 0);
  Request* r1 = recv(1, 0, 5, x.data(), n);
  send(0, 1, 5, mem, n);
  EXPECT_THROW(e_[1]->progress(), PeerFailure);
  EXPECT_FALSE(r1->complete);
  Request* r2 = recv(1, 0, 5, y.data(), n);
  const char small[16] = "after the error";
  send(0, 1, 5, small, sizeof small);
  for (int i = 0; i < 1000 && !r2->complete; ++i) EXPECT_NO_THROW(e_[1]->progress());
  ASSERT_TRUE(r2->complete) << "the second receive was matched to the failed message again";
  EXPECT_EQ(r2->status_bytes, sizeof small);
  EXPECT_EQ(std::memcmp(y.data(), small, sizeof small), 0);
  munmap(mem, n);
}

// A matched receive given up (what a failed collective's schedule does): while its sender lives and
// progresses, abandon_recv waits until the data has landed; afterwards nothing writes into the buffer
// (its owner frees or reuses it). Split (the sender writes the tail), split refused (the receiver reads
// it), the pipeline.
TEST_F(EnginePair, AbandonedReceiveWaitsForALiveSender) {
  const std::size_t n = 512 * 1024;
  std::vector<char> a(n), x(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = char(i * 7 + 3);
  for (const char* cma : {"split", "readonly", "0"}) {
    SCOPED_TRACE(cma);
    rebuild(cma);
    std::fill(x.begin(), x.end(), 0);
    Request* r = recv(1, 0, 6, x.data(), n);
    Request* s = send(0, 1, 6, a.data(), n);
    match(r);
    if (r->complete) continue;  // a lone single copy (no core per rank here): nothing in flight
    std::atomic<bool> stop{false};
    std::thread sender([&] {
      while (!stop.load()) e_[0]->progress();
    });
    e_[1]->abandon_recv(r);
    stop = true;
    sender.join();
    EXPECT_EQ(x, a) << "abandoned before the data landed";
    std::fill(x.begin(), x.end(), 0x5a);
    drive({s});
    for (int i = 0; i < 1000; ++i) e_[1]->progress();
    EXPECT_TRUE(std::all_of(x.begin(), x.end(), [](char c) { return c == 0x5a; })) << "written after abandon";
  }
}

// Once the sender is gone (here: marked finalized), a matched receive is cut off: a late answer of the
// sender (a refused split's kSplitDone, pipeline data) no longer reaches the buffer.
TEST_F(EnginePair, AbandonedReceiveIsCutOffWhenTheSenderIsGone) {
  const std::size_t n = 512 * 1024;
  std::vector<char> a(n, 'a'), x(n);
  for (const char* cma : {"readonly", "0"}) {
    SCOPED_TRACE(cma);
    rebuild(cma);
    Request* r = recv(1, 0, 7, x.data(), n);
    send(0, 1, 7, a.data(), n);
    match(r);
    if (r->complete) continue;  // a lone single copy (no core per rank here): nothing in flight
    e_[0]->mark_finalized();
    EXPECT_TRUE(e_[1]->peer_gone(0));
    e_[1]->abandon_recv(r);
    std::fill(x.begin(), x.end(), 0x5a);
    for (int i = 0; i < 1000; ++i) {
      e_[0]->progress();
      e_[1]->progress();
    }
    EXPECT_TRUE(std::all_of(x.begin(), x.end(), [](char c) { return c == 0x5a; })) << "written after abandon";
  }
}

/// A child process that waits until fds[1] is closed, then exits.
pid_t spawn_waiter(int fds[2]) {
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[1]);
    char c;
    while (read(fds[0], &c, 1) > 0) {
    }
    _exit(0);
  }
  close(fds[0]);
  return pid;
}

void end_waiter(pid_t pid, int fds[2]) {
  close(fds[1]);
  waitpid(pid, nullptr, 0);
}

/// A waiter under pid `want` (free again: its process exited and was reaped), or -1 if that cannot be
/// arranged (setting ns_last_pid needs root; other processes may take the pid first).
pid_t spawn_waiter_as(pid_t want, int fds[2]) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
    if (fd < 0) return -1;
    std::string last = std::to_string(want - 1);
    bool set = write(fd, last.data(), last.size()) == ssize_t(last.size());
    close(fd);
    if (!set) return -1;
    pid_t pid = spawn_waiter(fds);
    if (pid == want) return pid;
    if (pid > 0) end_waiter(pid, fds);
  }
  return -1;
}

/// Inboxes of two ranks, for the engines the pid tests build by hand.
struct PidTestInboxes {
  shm::InboxLayout layout = shm::InboxLayout::for_ranks(2);
  shm::Segment seg[2];
  PidTestInboxes() {
    for (int r = 0; r < 2; ++r) {
      seg[r] = shm::Segment::create(
          "/takyon-mpi-engine-pid-test-" + std::to_string(getpid()) + "-" + std::to_string(r),
          layout.total_bytes());
      seg[r].unlink();
    }
  }
};

// A peer's liveness follows its process, not its pid: once the peer exited and another process took
// its pid, check_peers still reports it dead (pidfd), and peer_gone says so. Taking the pid needs
// root (ns_last_pid): skipped when it cannot be arranged, after checking the plain exit.
TEST(EnginePidReuse, ExitedPeerIsDeadWhenItsPidIsReused) {
  PidTestInboxes in;
  int peer_pipe[2];
  const pid_t peer = spawn_waiter(peer_pipe);
  ASSERT_GT(peer, 0);
  Engine e(0, 2, in.layout, {in.seg[0].data(), nullptr}, {getpid(), peer});
  EXPECT_NO_THROW(e.check_peers());
  EXPECT_FALSE(e.peer_gone(1));
  end_waiter(peer, peer_pipe);
  int impostor_pipe[2];
  const pid_t impostor = spawn_waiter_as(peer, impostor_pipe);
  EXPECT_THROW(e.check_peers(), PeerFailure);
  EXPECT_TRUE(e.peer_gone(1));
  if (impostor < 0)
    GTEST_SKIP() << "could not give pid " << peer << " to another process; checked the plain exit only";
  end_waiter(impostor, impostor_pipe);
}

// The split's sender never writes into a process that took its receiver's pid: here the sender's
// engine knows the receiver by a pid whose process exited and was replaced by a fork of this test
// (the receiver's buffer address is mapped there too). The sender must refuse (the receiver then
// reads the tail itself: every byte arrives) instead of writing the tail into the impostor.
TEST(EnginePidReuse, SplitSenderDoesNotWriteIntoAReusedPid) {
  PidTestInboxes in;
  const std::size_t n = 512 * 1024;
  std::vector<char> a(n), x(n, 0);
  for (std::size_t i = 0; i < n; ++i) a[i] = char(i * 3 + 1);
  int peer_pipe[2];
  const pid_t peer = spawn_waiter(peer_pipe);
  ASSERT_GT(peer, 0);
  setenv("TAKYON_MPI_CMA", "split", 1);
  std::vector<void*> bases{in.seg[0].data(), in.seg[1].data()};
  Engine sender(0, 2, in.layout, bases, {getpid(), peer});  // knows the receiver as `peer`
  Engine receiver(1, 2, in.layout, bases, {getpid(), getpid()});
  unsetenv("TAKYON_MPI_CMA");
  end_waiter(peer, peer_pipe);
  int impostor_pipe[2];
  const pid_t impostor = spawn_waiter_as(peer, impostor_pipe);
  if (impostor < 0) GTEST_SKIP() << "could not give pid " << peer << " to another process";
  Request* r = start_recv_on(receiver, 0, 0, x.data(), n);
  Request* s = start_send_on(sender, 1, 0, a.data(), n);
  for (int i = 0; i < 1'000'000 && !(r->complete && s->complete); ++i) {
    receiver.progress();
    sender.progress();
  }
  end_waiter(impostor, impostor_pipe);
  ASSERT_TRUE(r->complete && s->complete);
  EXPECT_EQ(x, a) << "the tail went to the process that took the receiver's pid";
}

}  // namespace
}  // namespace takyon::mpi
