// SPDX-License-Identifier: MIT
// The member loop of the collective sweep: sync barrier, timed collective, repeat; member 0 turns
// everyone's clock readings into per-sample latencies.
#include "collective_member.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "clock.hpp"
#include "options.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_extensions.h"

namespace takyon::bench {

const char* collective_test_name(CollectiveTest test) {
  switch (test) {
    case CollectiveTest::kP2p:
      return "p2p";
    case CollectiveTest::kBarrier:
      return "barrier";
    case CollectiveTest::kReduce:
      return "reduce";
    case CollectiveTest::kAllreduce:
      return "allreduce";
    case CollectiveTest::kBcast:
      return "bcast";
    case CollectiveTest::kAlltoall:
      return "alltoall";
  }
  return "?";
}

SharedTimes::SharedTimes(int members, std::uint64_t samples)
    : members_(members),
      samples_(samples),
      bytes_(sizeof(Slot) * static_cast<std::size_t>(members) * samples) {
  static_assert(std::atomic<std::int64_t>::is_always_lock_free, "cross-process atomics need lock-free");
  mapping_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::system_error(errno, std::generic_category(),
                            "mmap(MAP_SHARED|MAP_ANONYMOUS) for the sample times");
  }
  auto* slots = static_cast<Slot*>(mapping_);
  for (std::size_t i = 0; i < static_cast<std::size_t>(members) * samples; ++i)
    new (&slots[i]) Slot{{0}, {0}};
}

SharedTimes::~SharedTimes() {
  if (mapping_ != nullptr) munmap(mapping_, bytes_);
}

SharedTimes::Slot& SharedTimes::slot(int member, std::uint64_t sample) const {
  return static_cast<Slot*>(mapping_)[static_cast<std::size_t>(member) * samples_ + sample];
}

void SharedTimes::put(int member, std::uint64_t sample, std::int64_t start_ns, std::int64_t end_ns) {
  // Release: member 0 reads them after the next barrier, whose messages order the stores.
  slot(member, sample).start.store(start_ns, std::memory_order_release);
  slot(member, sample).end.store(end_ns, std::memory_order_release);
}

std::int64_t SharedTimes::start(int member, std::uint64_t sample) const {
  return slot(member, sample).start.load(std::memory_order_acquire);
}

std::int64_t SharedTimes::end(int member, std::uint64_t sample) const {
  return slot(member, sample).end.load(std::memory_order_acquire);
}

namespace {

constexpr unsigned char kBcastPattern = 0xA5;
constexpr int kP2pRoundTrips = 8;  // per p2p sample (Member::once)

// Element-wise max: the same one pass over the elements as a sum, but idempotent, so repeated
// rounds on the same buffers keep the values (the member indices) instead of growing to inf, and
// every round's result is checkable: N-1 everywhere.
void max_doubles(std::uint64_t nelements, void* a, void* b) {
  auto* x = static_cast<double*>(a);
  const auto* y = static_cast<const double*>(b);
  for (std::uint64_t i = 0; i < nelements; ++i) x[i] = x[i] < y[i] ? y[i] : x[i];
}

void* send_buffer(TakyonPath* path, int buffer) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): Takyon keeps buffer addresses as size_t.
  return reinterpret_cast<void*>(path->attrs.sender_addr_list[buffer]);
}

void* recv_buffer(TakyonPath* path, int buffer) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  return reinterpret_cast<void*>(path->attrs.recver_addr_list[buffer]);
}

std::string path_error(const TakyonPath* path, bool timed_out) {
  if (timed_out) return "timed out";
  return path->attrs.error_message != nullptr ? path->attrs.error_message : "no error message";
}

class Member {
 public:
  Member(TakyonGraph* graph, int member, const CollectiveLayout& layout, const MemberPlan& plan,
         SharedTimes& times)
      : graph_(graph), me_(member), layout_(layout), plan_(plan), times_(times) {}
  ~Member() { release(); }
  Member(const Member&) = delete;
  Member& operator=(const Member&) = delete;

  void run(const CollectiveSink& sink);

 private:
  void open();
  void release();
  void fail(const std::string& what) const;
  void sync();
  void measure(CollectiveTest test, std::uint64_t bytes, const CollectiveSink& sink);
  void ping_pong(std::uint64_t bytes);
  void once(CollectiveTest test, std::uint64_t bytes, bool check);

  TakyonGraph* graph_;
  int me_;
  const CollectiveLayout& layout_;
  const MemberPlan& plan_;
  SharedTimes& times_;
  int group_id_ = -1;
  bool paths_created_ = false;
  TakyonCollectiveBarrier* barrier_ = nullptr;
  TakyonCollectiveReduce* reduce_ = nullptr;
  TakyonCollectiveBcast* bcast_ = nullptr;
  TakyonCollectiveAlltoall* alltoall_ = nullptr;
  TakyonPath* p2p_ = nullptr;           // path 0: member 0 (endpoint A) and member 1 (B)
  std::vector<double> reduce_data_;     // the root's reduce contribution and result
  std::vector<double> allreduce_data_;  // this member's allreduce contribution and result
  std::vector<unsigned char> alltoall_send_;
  std::vector<unsigned char> alltoall_recv_;
  std::string current_ = "setup";
};

void Member::fail(const std::string& what) const {
  const char* why = takyonExtensionError();
  throw std::runtime_error("member " + std::to_string(me_) + ", " + current_ + ": " + what +
                           (why != nullptr && *why != '\0' ? std::string(": ") + why : std::string()));
}

void Member::open() {
  for (int g = 0; g < graph_->group_count; ++g) {
    if (std::strcmp(graph_->group_list[g].name, kGroupName) == 0) {
      group_id_ = graph_->group_list[g].starting_group_id + me_;
    }
  }
  if (group_id_ < 0) fail(std::string("the graph has no group '") + kGroupName + "'");
  if (!takyonCreateGroupPaths(graph_, group_id_)) fail("takyonCreateGroupPaths");
  paths_created_ = true;
  barrier_ = takyonGetBarrier(graph_, kBarrierName, group_id_);
  if (barrier_ == nullptr) fail(std::string("takyonGetBarrier(") + kBarrierName + ")");
  reduce_ = takyonGetReduce(graph_, kReduceName, group_id_);
  if (reduce_ == nullptr) fail(std::string("takyonGetReduce(") + kReduceName + ")");
  bcast_ = takyonGetBcast(graph_, kBcastName, group_id_);
  if (bcast_ == nullptr) fail(std::string("takyonGetBcast(") + kBcastName + ")");
  alltoall_ = takyonGetAlltoall(graph_, kAlltoallName, group_id_);
  if (alltoall_ == nullptr) fail(std::string("takyonGetAlltoall(") + kAlltoallName + ")");
  if (alltoall_->nmembers != layout_.members) {
    fail("the alltoall has " + std::to_string(alltoall_->nmembers) + " members, expected " +
         std::to_string(layout_.members));
  }
  for (int p = 0; p < graph_->path_count; ++p) {
    const TakyonConnection& c = graph_->path_list[p];
    if (c.id != 0) continue;
    if (me_ == 0) p2p_ = c.pathA;
    if (me_ == 1) p2p_ = c.pathB;
  }
  if ((me_ == 0 || me_ == 1) && p2p_ == nullptr) fail("path 0 (the point-to-point baseline) was not created");

  // Contributions: the member index everywhere (see max_doubles); the result is N-1.
  const std::uint64_t elements = plan_.max_bytes() / sizeof(double);
  reduce_data_.assign(elements, 0.0);
  allreduce_data_.assign(elements, static_cast<double>(me_));
  if (reduce_->parent_path != nullptr) {
    auto* mine = static_cast<double*>(send_buffer(reduce_->parent_path, kReduceBuffer));
    std::fill(mine, mine + elements, static_cast<double>(me_));
  }
  // The root's broadcast bytes wait in its children's send buffers (takyonBcastRoot with data
  // NULL): no copy from application memory, like the p2p ping-pong.
  if (bcast_->parent_path == nullptr) {
    for (int c = 0; c < bcast_->nchildren; ++c) {
      std::memset(send_buffer(bcast_->child_path_list[c], kBcastBuffer), kBcastPattern, plan_.max_bytes());
    }
  }
  const std::size_t blocks = static_cast<std::size_t>(layout_.members) * plan_.max_bytes();
  alltoall_send_.assign(blocks, static_cast<unsigned char>(alltoall_->my_index));
  alltoall_recv_.assign(blocks, 0xFF);
}

void Member::release() {
  takyonAlltoallFinalize(alltoall_);
  takyonBcastFinalize(bcast_);
  takyonReduceFinalize(reduce_);
  takyonBarrierFinalize(barrier_);
  alltoall_ = nullptr;
  bcast_ = nullptr;
  reduce_ = nullptr;
  barrier_ = nullptr;
  if (paths_created_) {
    paths_created_ = false;
    (void)takyonDestroyGroupPaths(graph_, group_id_);
  }
}

void Member::sync() {
  if (!takyonBarrierRun(barrier_, kBarrierBuffer)) fail("takyonBarrierRun (the barrier between samples)");
}

void Member::ping_pong(std::uint64_t bytes) {
  if (me_ > 1) return;
  bool timed_out = false;
  auto send = [&] {
    if (!takyonSend(p2p_, kP2pBuffer, bytes, 0, 0, &timed_out) || timed_out) {
      fail("takyonSend (p2p): " + path_error(p2p_, timed_out));
    }
  };
  auto recv = [&] {
    std::uint64_t got = 0;
    if (!takyonRecv(p2p_, kP2pBuffer, &got, nullptr, &timed_out) || timed_out || got != bytes) {
      fail("takyonRecv (p2p): " + std::to_string(got) + " bytes, expected " + std::to_string(bytes) + ": " +
           path_error(p2p_, timed_out));
    }
  };
  if (me_ == 0) {
    send();
    recv();
  } else {
    recv();
    send();
  }
}

void Member::once(CollectiveTest test, std::uint64_t bytes, bool check) {
  const std::uint64_t elements = bytes / sizeof(double);
  const double expected = static_cast<double>(layout_.members - 1);
  switch (test) {
    case CollectiveTest::kP2p:
      // A steady ping-pong, not one round trip: right after the barrier both members are still
      // awake, and a single round trip would catch them so (a fast answer) or not (a futex wake-up
      // each way in event mode), at random. kP2pRoundTrips in a row settle into the steady state.
      for (int r = 0; r < kP2pRoundTrips; ++r) ping_pong(bytes);
      return;
    case CollectiveTest::kBarrier:
      if (!takyonBarrierRun(barrier_, kBarrierBuffer)) fail("takyonBarrierRun");
      return;
    case CollectiveTest::kReduce:
      if (reduce_->parent_path == nullptr) {
        if (!takyonReduceRoot(reduce_, kReduceBuffer, elements, sizeof(double), max_doubles,
                              reduce_data_.data(), false)) {
          fail("takyonReduceRoot");
        }
        if (check && (reduce_data_[0] != expected || reduce_data_[elements - 1] != expected)) {
          fail("wrong reduce result " + std::to_string(reduce_data_[0]) + ", expected " +
               std::to_string(expected));
        }
      } else if (!takyonReduceChild(reduce_, kReduceBuffer, elements, sizeof(double), max_doubles, false)) {
        fail("takyonReduceChild");
      }
      return;
    case CollectiveTest::kAllreduce:
      if (!takyonAllreduce(reduce_, kReduceBuffer, elements, sizeof(double), max_doubles,
                           allreduce_data_.data())) {
        fail("takyonAllreduce");
      }
      if (check && (allreduce_data_[0] != expected || allreduce_data_[elements - 1] != expected)) {
        fail("wrong allreduce result " + std::to_string(allreduce_data_[0]) + ", expected " +
             std::to_string(expected));
      }
      return;
    case CollectiveTest::kBcast:
      if (bcast_->parent_path == nullptr) {
        if (!takyonBcastRoot(bcast_, kBcastBuffer, bytes, nullptr)) fail("takyonBcastRoot");
      } else {
        std::uint64_t got = 0;
        if (!takyonBcastChild(bcast_, kBcastBuffer, &got)) fail("takyonBcastChild");
        if (check) {
          const auto* data =
              static_cast<const unsigned char*>(recv_buffer(bcast_->parent_path, kBcastBuffer));
          if (got != bytes || data[0] != kBcastPattern || data[bytes - 1] != kBcastPattern) {
            fail("wrong bcast data (" + std::to_string(got) + " bytes)");
          }
        }
      }
      return;
    case CollectiveTest::kAlltoall:
      if (!takyonAlltoall(alltoall_, kAlltoallBuffer, bytes, alltoall_send_.data(), alltoall_recv_.data())) {
        fail("takyonAlltoall");
      }
      if (check) {
        for (int j = 0; j < layout_.members; ++j) {
          const std::size_t at = static_cast<std::size_t>(j) * bytes;
          if (j != alltoall_->my_index &&
              (alltoall_recv_[at] != j || alltoall_recv_[at + bytes - 1] != static_cast<unsigned char>(j))) {
            fail("wrong alltoall block from member " + std::to_string(j));
          }
        }
      }
      return;
  }
}

void Member::measure(CollectiveTest test, std::uint64_t bytes, const CollectiveSink& sink) {
  current_ = std::string(collective_test_name(test)) + " " + format_size(bytes);
  const std::uint64_t samples = plan_.samples(bytes);
  for (std::uint64_t i = 0; i < plan_.warmups + samples; ++i) {
    sync();
    const std::int64_t start = now_ns();
    once(test, bytes, i < plan_.warmups);
    const std::int64_t end = now_ns();
    if (i >= plan_.warmups) times_.put(me_, i - plan_.warmups, start, end);
  }
  sync();  // every member's times are in
  if (me_ != 0) return;
  std::vector<double> ns;
  ns.reserve(samples);
  for (std::uint64_t s = 0; s < samples; ++s) {
    if (test == CollectiveTest::kP2p) {
      ns.push_back(static_cast<double>(times_.end(0, s) - times_.start(0, s)) / (2.0 * kP2pRoundTrips));
      continue;
    }
    std::int64_t last_start = times_.start(0, s);
    std::int64_t last_end = times_.end(0, s);
    for (int m = 1; m < layout_.members; ++m) {
      last_start = std::max(last_start, times_.start(m, s));
      last_end = std::max(last_end, times_.end(m, s));
    }
    // Bcast: only the root has something to start; the others merely wait for it.
    const std::int64_t from = test == CollectiveTest::kBcast ? times_.start(0, s) : last_start;
    ns.push_back(static_cast<double>(last_end - from));
  }
  // Member 0 reads the slots before it enters the next test's first barrier, which no member
  // can leave (and so overwrite a slot) before member 0 is in it.
  sink(test, bytes, std::move(ns));
}

void Member::run(const CollectiveSink& sink) {
  open();
  measure(CollectiveTest::kP2p, 0, sink);
  measure(CollectiveTest::kBarrier, 0, sink);
  for (std::uint64_t bytes : plan_.sizes) {
    for (CollectiveTest test : {CollectiveTest::kP2p, CollectiveTest::kReduce, CollectiveTest::kAllreduce,
                                CollectiveTest::kBcast, CollectiveTest::kAlltoall}) {
      measure(test, bytes, sink);
    }
  }
  current_ = "teardown";
  release();
}

}  // namespace

void run_collective_member(TakyonGraph* graph, int member, const CollectiveLayout& layout,
                           const MemberPlan& plan, SharedTimes& times, const CollectiveSink& sink) {
  Member m(graph, member, layout, plan, times);
  m.run(sink);
}

}  // namespace takyon::bench
