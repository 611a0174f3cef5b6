// SPDX-License-Identifier: MIT
// The RMA protocol (rma/window.hpp): issuing operations at the origin, running them at the target
// (the service, from the engine's progress hook), and every synchronization mode.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "coll/schedule.hpp"
#include "comm/group.hpp"
#include "datatype/datatype.hpp"
#include "datatype/type.hpp"
#include "errors.hpp"
#include "messages.hpp"
#include "op/op.hpp"
#include "rma/window.hpp"
#include "runtime.hpp"

namespace takyon::mpi::rma {

namespace {

bool has_reply(Kind k) {
  return k == Kind::kGet || k == Kind::kGetAcc || k == Kind::kCas;
}

std::vector<char> make_message(const Header& h, const WireBlock* blocks, std::size_t nblocks,
                               std::size_t data_bytes, const std::string& error = {}) {
  std::vector<char> buf(sizeof(Header) + nblocks * sizeof(WireBlock) + data_bytes + error.size());
  Header copy = h;
  copy.nblocks = nblocks;
  copy.data_bytes = data_bytes;
  copy.error_len = std::uint32_t(error.size());
  std::memcpy(buf.data(), &copy, sizeof copy);
  if (nblocks != 0) std::memcpy(buf.data() + sizeof(Header), blocks, nblocks * sizeof(WireBlock));
  if (!error.empty()) {
    std::memcpy(buf.data() + sizeof(Header) + nblocks * sizeof(WireBlock) + data_bytes, error.data(),
                error.size());
  }
  return buf;
}

char* data_of(std::vector<char>& msg) {
  Header h;
  std::memcpy(&h, msg.data(), sizeof h);
  return msg.data() + sizeof(Header) + h.nblocks * sizeof(WireBlock);
}

P2pArgs byte_args(const Window& w, int target, int tag, std::size_t bytes) {
  P2pArgs a;
  a.comm = w.info;
  a.bytes = bytes;
  a.world_peer = w.world[std::size_t(target)];
  a.tag = tag;
  a.count = bytes;
  a.contiguous = true;
  a.lb = 0;
  return a;
}

void send_message(Window& w, int target, std::vector<char> buf, int tag = kAmTag) {
  Outgoing& o = w.outgoing.emplace_back(Outgoing{nullptr, std::move(buf)});
  o.req = make_send(byte_args(w, target, tag, o.buf.size()), o.buf.data(), MPI_BYTE, SendMode::kStandard);
  engine().start_send(o.req);
}

void send_control(Window& w, int target, Kind kind, std::uint64_t seq = 0, int lock_type = 0,
                  int error_class = 0, const std::string& error = {}) {
  Header h{};
  h.kind = kind;
  h.seq = seq;
  h.lock_type = lock_type;
  h.error_class = error_class;
  send_message(w, target, make_message(h, nullptr, 0, 0, error));
}

/// A kAck to `origin`, carrying the first error its operations met here since the last report.
void send_ack(Window& w, int origin) {
  const auto o = std::size_t(origin);
  send_control(w, origin, Kind::kAck, 0, 0, w.error_class_for[o], w.error_for[o]);
  w.error_class_for[o] = 0;
  w.error_for[o].clear();
}

void record_error(Window& w, int origin, int error_class, const std::string& what) {
  const auto o = std::size_t(origin);
  if (w.error_class_for[o] != 0) return;  // the first one is reported
  w.error_class_for[o] = error_class;
  w.error_for[o] = what;
}

void note_remote_error(Window& w, int from, const Header& h, const char* text) {
  if (h.error_class == 0) return;
  const auto f = std::size_t(from);
  if (w.remote_class[f] != 0) return;
  w.remote_class[f] = h.error_class;
  w.remote_error[f].assign(text, h.error_len);
}

void grant_locks(Window& w) {
  while (!w.lock_waiters.empty()) {
    auto [origin, type] = w.lock_waiters.front();
    if (w.lock_exclusive || (type == MPI_LOCK_EXCLUSIVE && w.lock_shared > 0)) return;
    w.lock_waiters.pop_front();
    if (type == MPI_LOCK_EXCLUSIVE) {
      w.lock_exclusive = true;
    } else {
      ++w.lock_shared;
    }
    send_control(w, origin, Kind::kGrant);
  }
}

/// The bytes [lo, hi) that `count` items of a type (its extent and true bounds) starting at byte `off`
/// cover; false where a bound overflows 64 bits.
bool span_of(std::int64_t off, std::uint64_t count, std::int64_t extent, std::int64_t true_lb,
             std::int64_t true_ub, std::int64_t& lo, std::int64_t& hi) {
  if (count == 0) {
    lo = hi = off;
    return true;
  }
  std::int64_t reach = 0;  // from the first item's start to the last's (negative extents run down)
  if (count - 1 > std::uint64_t(INT64_MAX) ||
      __builtin_mul_overflow(std::int64_t(count - 1), extent, &reach)) {
    return false;
  }
  const std::int64_t first = std::min<std::int64_t>(0, reach);
  const std::int64_t last = std::max<std::int64_t>(0, reach);
  return !__builtin_add_overflow(off, first, &lo) && !__builtin_add_overflow(lo, true_lb, &lo) &&
         !__builtin_add_overflow(off, last, &hi) && !__builtin_add_overflow(hi, true_ub, &hi);
}

/// Where the operation's target data starts here; nullptr (and the error recorded) when any byte of
/// it lies outside the window.
char* target_address(Window& w, int origin, const Header& h) {
  if (h.count == 0) return w.base;
  const std::string who =
      "rank " + std::to_string(w.rank) + ": an operation from rank " + std::to_string(origin);
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    // The displacement is an address; [lo, hi) may span adjacent attachments: walk from lo through
    // the regions that cover it.
    if (!span_of(std::int64_t(h.disp), h.count, h.extent, h.true_lb, h.true_ub, lo, hi) || lo < 0) {
      record_error(w, origin, MPI_ERR_RMA_RANGE, who + " addresses memory outside any address");
      return nullptr;
    }
    std::uintptr_t at = std::uintptr_t(lo);
    bool advanced = true;
    while (advanced && at < std::uintptr_t(hi)) {
      advanced = false;
      for (const auto& [start, len] : w.attached) {
        if (at >= start && at < start + len) {
          at = start + len;
          advanced = true;
          break;
        }
      }
    }
    if (at >= std::uintptr_t(hi)) return reinterpret_cast<char*>(std::uintptr_t(h.disp));
    record_error(w, origin, MPI_ERR_RMA_RANGE, who + " addresses memory not attached to the dynamic window");
    return nullptr;
  }
  std::int64_t off = 0;
  if (__builtin_mul_overflow(std::int64_t(h.disp), std::int64_t(w.disp_unit), &off) ||
      !span_of(off, h.count, h.extent, h.true_lb, h.true_ub, lo, hi) || lo < 0 ||
      hi > std::int64_t(w.bytes)) {
    record_error(w, origin, MPI_ERR_RMA_RANGE, who + " reaches outside the window");
    return nullptr;
  }
  return w.base + off;
}

/// Copies the target data (its blocks: WireBlock, or the datatype's own Block) into `out`, item by item.
template <class B>
void gather(const char* at, const Header& h, const B* blocks, char* out) {
  for (std::uint64_t i = 0; i < h.count; ++i) {
    const char* item = at + std::int64_t(i) * h.extent;
    for (std::uint64_t b = 0; b < h.nblocks; ++b) {
      std::memcpy(out, item + blocks[b].disp, blocks[b].len);
      out += blocks[b].len;
    }
  }
}

/// Copies `data` (packed) into the target's blocks, item by item.
template <class B>
void scatter(char* at, const Header& h, const B* blocks, const char* data) {
  for (std::uint64_t i = 0; i < h.count; ++i) {
    char* item = at + std::int64_t(i) * h.extent;
    for (std::uint64_t b = 0; b < h.nblocks; ++b) {
      std::memcpy(item + blocks[b].disp, data, blocks[b].len);
      data += blocks[b].len;
    }
  }
}

/// target = data op target, element by element over the target's blocks. The reduction kernels
/// (op/op.hpp) work on packed items: an element type with holes of its own (the pair types of
/// MPI_MINLOC/MPI_MAXLOC) is combined on the packed target data, then copied back.
template <class B>
void accumulate_into(char* at, const Header& h, const B* blocks, const char* data) {
  const auto op = reinterpret_cast<MPI_Op>(static_cast<std::intptr_t>(h.op));
  const auto basic = reinterpret_cast<MPI_Datatype>(static_cast<std::intptr_t>(h.basic));
  if (op == MPI_NO_OP) return;
  const std::size_t esize = type_size(basic);
  const Type* bt = find_predefined(basic);
  if (bt != nullptr && !bt->contiguous && op != MPI_REPLACE) {
    std::size_t bytes = 0;
    for (std::uint64_t b = 0; b < h.nblocks; ++b) bytes += blocks[b].len;
    bytes *= h.count;
    std::vector<char> packed(bytes);
    gather(at, h, blocks, packed.data());
    apply_op(op, basic, data, packed.data(), bytes / esize);
    scatter(at, h, blocks, packed.data());
    return;
  }
  for (std::uint64_t i = 0; i < h.count; ++i) {
    char* item = at + std::int64_t(i) * h.extent;
    for (std::uint64_t b = 0; b < h.nblocks; ++b) {
      char* dst = item + blocks[b].disp;
      if (op == MPI_REPLACE) {
        std::memcpy(dst, data, blocks[b].len);
      } else {
        apply_op(op, basic, data, dst, blocks[b].len / esize);
      }
      data += blocks[b].len;
    }
  }
}

std::size_t target_bytes(const Header& h, const WireBlock* blocks) {
  std::size_t per = 0;
  for (std::uint64_t b = 0; b < h.nblocks; ++b) per += blocks[b].len;
  return per * h.count;
}

void execute(Window& w, int origin, const Header& h, const WireBlock* blocks, const char* data) {
  char* at = target_address(w, origin, h);
  const std::size_t bytes = target_bytes(h, blocks);
  std::vector<char> reply;
  if (has_reply(h.kind)) {
    reply.assign(bytes, 0);  // zeros if the operation was refused: the origin still gets its reply
    if (at != nullptr) gather(at, h, blocks, reply.data());
  }
  if (at != nullptr) {
    switch (h.kind) {
      case Kind::kPut:
        scatter(at, h, blocks, data);
        break;
      case Kind::kAcc:
      case Kind::kGetAcc:
        accumulate_into(at, h, blocks, data);
        break;
      case Kind::kCas:
        if (std::memcmp(reply.data(), data + bytes, bytes) == 0)
          std::memcpy(at + blocks[0].disp, data, bytes);
        break;
      default:
        break;
    }
  }
  if (has_reply(h.kind)) {
    Outgoing& o = w.outgoing.emplace_back(Outgoing{nullptr, std::move(reply)});
    o.req = make_send(byte_args(w, origin, kReplyBase + int(h.seq), o.buf.size()), o.buf.data(), MPI_BYTE,
                      SendMode::kStandard);
    engine().start_send(o.req);
  }
}

void on_message(Window& w, int from, std::vector<char>& msg) {
  Header h;
  std::memcpy(&h, msg.data(), sizeof h);
  const auto* blocks = reinterpret_cast<const WireBlock*>(msg.data() + sizeof(Header));
  const char* data = data_of(msg);
  const char* error_text = data + h.data_bytes;
  const auto f = std::size_t(from);
  switch (h.kind) {
    case Kind::kPut:
    case Kind::kGet:
    case Kind::kAcc:
    case Kind::kGetAcc:
    case Kind::kCas:
      try {
        execute(w, from, h, blocks, data);
      } catch (const MpiError& e) {
        record_error(w, from, e.error_class(), e.what());
      }
      break;
    case Kind::kLock:
      w.lock_waiters.emplace_back(from, h.lock_type);
      grant_locks(w);
      break;
    case Kind::kUnlock:
      if (w.lock_exclusive) {
        w.lock_exclusive = false;
      } else if (w.lock_shared > 0) {
        --w.lock_shared;
      }
      grant_locks(w);
      send_ack(w, from);
      break;
    case Kind::kFlush:
      send_ack(w, from);
      break;
    case Kind::kGrant:
      ++w.grants[f];
      break;
    case Kind::kAck:
      note_remote_error(w, from, h, error_text);
      ++w.acks[f];
      break;
    case Kind::kPost:
      ++w.posts[f];
      break;
    case Kind::kComplete:
      ++w.completes[f];
      break;
    case Kind::kFence:
      note_remote_error(w, from, h, error_text);
      ++w.fence_arrivals[h.seq];
      break;
    case Kind::kFenceReport:
      note_remote_error(w, from, h, error_text);
      ++w.fence_reports[h.seq];
      break;
    case Kind::kFree:
      ++w.free_arrivals;
      break;
  }
}

/// Receives and runs what arrived for `w`; returns whether anything moved.
bool service(Window& w) {
  Engine& e = engine();
  bool moved = false;
  for (auto it = w.outgoing.begin(); it != w.outgoing.end();) {
    if (it->req->complete) {
      e.requests().release(it->req);
      it = w.outgoing.erase(it);
      moved = true;
    } else {
      ++it;
    }
  }
  while (std::unique_ptr<Unexpected> u = e.take_unexpected(w.info->ctx, kAnySource, kAmTag)) {
    Incoming& in = w.incoming.emplace_back(
        Incoming{nullptr, std::vector<char>(u->bytes), from_world(*w.info, u->source)});
    P2pArgs a = byte_args(w, in.source, kAmTag, u->bytes);
    in.req = make_recv(a, in.buf.data(), MPI_BYTE);
    e.start_matched_recv(in.req, std::move(u));
    moved = true;
  }
  while (!w.incoming.empty() && w.incoming.front().req->complete) {
    Incoming in = std::move(w.incoming.front());
    w.incoming.pop_front();
    e.requests().release(in.req);
    if (in.buf.size() >= sizeof(Header)) on_message(w, in.source, in.buf);
    moved = true;
  }
  return moved;
}

bool g_in_hook = false;

bool progress_hook() {
  bool moved = progress_nonblocking();
  if (g_in_hook) return moved;
  g_in_hook = true;
  try {
    for (const std::unique_ptr<Window>& w : live_windows()) moved = service(*w) || moved;
  } catch (...) {
    g_in_hook = false;
    throw;
  }
  g_in_hook = false;
  return moved;
}

inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// Waits until done() holds: a short spin first (a peer's counter or message is often a few hundred
/// nanoseconds away; unless ranks outnumber the cores, where the peer needs this one's), then
/// Engine::wait_until, which progresses everything and reports a dead peer.
template <class Done>
void wait_for(const Done& done) {
  if (done()) return;
  if (!node_oversubscribed()) {
    for (int i = 0; i < 512; ++i) {
      cpu_pause();
      if (done()) return;
    }
  }
  engine().wait_until(done);
}

/// Waits for the replies of operations to `target` (-1: all) and hands them to their buffers.
void finish_replies(Window& w, int target) {
  for (auto it = w.replies.begin(); it != w.replies.end();) {
    if (target >= 0 && it->target != target) {
      ++it;
      continue;
    }
    Request* r = it->req;
    wait_for([r] { return r->complete; });
    deliver(*r);
    engine().requests().release(r);
    it = w.replies.erase(it);
  }
}

/// Raises the first error a target reported (target -1: any).
void raise_remote(Window& w, int target) {
  for (int t = 0; t < w.size; ++t) {
    if (target >= 0 && t != target) continue;
    const auto i = std::size_t(t);
    if (w.remote_class[i] != 0) {
      const int cls = w.remote_class[i];
      std::string text = w.remote_error[i];
      w.remote_class[i] = 0;
      w.remote_error[i].clear();
      throw MpiError(cls, text);
    }
  }
}

std::string rank_text(int r) {
  return "rank " + std::to_string(r);
}

void check_target(const Window& w, int target, const char* fn) {
  if (target < 0 || target >= w.size) {
    fail(MPI_ERR_RANK, fn,
         "invalid target rank " + std::to_string(target) + " (window of " + std::to_string(w.size) +
             " ranks)");
  }
}

/// The window ranks of `group`'s members; MPI_ERR_GROUP for one outside the window.
std::vector<int> window_ranks(const Window& w, MPI_Group group, const char* fn) {
  const Group& g = check_group(group, fn, "group");
  std::vector<int> out;
  for (int world : g.ranks) {
    const int r = from_world(*w.info, world);
    if (r < 0)
      fail(MPI_ERR_GROUP, fn,
           "the group holds a process outside the window (world rank " + std::to_string(world) + ")");
    out.push_back(r);
  }
  return out;
}

/// An access epoch of PSCW: the first operation to `target` waits for its kPost.
void take_post(Window& w, int target) {
  const auto t = std::size_t(target);
  if (w.post_taken[t] != 0) return;
  if (w.direct) {
    const std::uint64_t want = ++w.posts_taken[t];
    auto count = std::atomic_ref<std::uint64_t>(w.post_counts[std::size_t(w.rank) * std::size_t(w.size) + t]);
    wait_for([&count, want] { return count.load(std::memory_order_acquire) >= want; });
  } else {
    wait_for([&w, t] { return w.posts[t] > 0; });
    --w.posts[t];
  }
  w.post_taken[t] = 1;
}

/// The one predefined type accumulate works element by element on, for a type made of it.
/// The Type of a checked handle (predefined ones without a registry lookup).
const Type* lookup(MPI_Datatype dt) {
  const Type* t = find_predefined(dt);
  return t != nullptr ? t : find_type(dt);
}

/// Whether every predefined type `c` is built from (recursively) is one type; it goes to `leaf`.
bool one_leaf(const Contents& c, MPI_Datatype& leaf) {
  for (std::size_t i = 0; i < c.handles.size(); ++i) {
    if (c.handles[i] != nullptr) {
      if (leaf == MPI_DATATYPE_NULL) leaf = c.handles[i];
      if (c.handles[i] != leaf) return false;
    } else if (i < c.held.size() && c.held[i] != nullptr) {
      if (c.held[i]->contents == nullptr || !one_leaf(*c.held[i]->contents, leaf)) return false;
    }
  }
  return true;
}

/// The one predefined type accumulate works element by element on, for a type made of it.
MPI_Datatype basic_of(MPI_Datatype dt, const char* fn) {
  const Type* t = lookup(dt);
  if (t->predefined) return dt;
  MPI_Datatype leaf = MPI_DATATYPE_NULL;
  if (t->contents != nullptr && one_leaf(*t->contents, leaf) && leaf != MPI_DATATYPE_NULL) return leaf;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  for (const ElemRun& run : t->elems) {
    if (basic == MPI_DATATYPE_NULL) basic = run.basic;
    if (run.basic != basic)
      fail(MPI_ERR_TYPE, fn, "an accumulate's datatype must be made of one predefined type");
  }
  return basic == MPI_DATATYPE_NULL ? dt : basic;
}

std::size_t checked_bytes(MPI_Datatype dt, std::size_t count, const char* fn, const char* arg) {
  if (const Type* t = find_predefined(dt); t != nullptr && count <= t->max_items) return count * t->size;
  check_type(dt, fn);
  return items_bytes(dt, count, fn, arg);
}

// ---- Direct windows (rma/window.hpp) -------------------------------------------------------------

template <class T>
std::atomic_ref<T> shared_ref(void* p) {
  return std::atomic_ref<T>(*static_cast<T*>(p));
}

bool integer_type(MPI_Datatype dt) {
  static const MPI_Datatype kIntegers[] = {
      MPI_INT,     MPI_UNSIGNED, MPI_LONG,    MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG,
      MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T,      MPI_AINT,      MPI_COUNT,
      MPI_OFFSET,  MPI_INTEGER4, MPI_INTEGER8};
  return std::find(std::begin(kIntegers), std::end(kIntegers), dt) != std::end(kIntegers);
}

/// Spins (progressing the engine, which reports a dead peer) until `try_once` succeeds.
template <class Try>
void acquire(const Try& try_once) {
  wait_for(try_once);
}

void lock_accumulates(Window& w, int target) {
  auto word = shared_ref<std::uint32_t>(&w.control[target].acc_lock);
  acquire([&word] {
    std::uint32_t expected = 0;
    return word.compare_exchange_weak(expected, 1, std::memory_order_acquire, std::memory_order_relaxed);
  });
}

void unlock_accumulates(Window& w, int target) {
  shared_ref<std::uint32_t>(&w.control[target].acc_lock).store(0, std::memory_order_release);
}

/// The origin's data packed (a view of it when its datatype is contiguous).
const char* packed_origin(const OpArgs& a, std::size_t bytes, std::vector<char>& scratch) {
  if (bytes == 0) return nullptr;
  if (const Type* t = lookup(a.origin_type); t->contiguous) return data_at(a.origin, t->lb);
  scratch.resize(bytes);
  pack(a.origin, a.origin_count, a.origin_type, scratch.data());
  return scratch.data();
}

/// Where a result goes packed: the result buffer itself when contiguous, else `scratch` (then unpack_result).
char* packed_result(const OpArgs& a, std::size_t bytes, std::vector<char>& scratch) {
  if (const Type* t = lookup(a.result_type); t->contiguous) return data_at(a.result, t->lb);
  scratch.resize(bytes);
  return scratch.data();
}

void unpack_result(const OpArgs& a, std::size_t bytes, const std::vector<char>& scratch) {
  if (!lookup(a.result_type)->contiguous && bytes != 0)
    unpack(scratch.data(), bytes, a.result_count, a.result_type, a.result);
}

/// Runs a checked operation on a direct window's mapped memory.
void run_direct(Window& w, const OpArgs& a, Header h, const Type* tt, const std::vector<Block>& blocks,
                std::size_t tbytes, std::size_t obytes, std::size_t rbytes) {
  const auto t = std::size_t(a.target);
  char* at = w.bases[t] + std::int64_t(a.disp) * std::int64_t(w.units[t]);
  if (tbytes == 0) return;
  std::vector<char> oscratch;
  std::vector<char> rscratch;
  const bool contiguous_target = tt->contiguous;
  if (a.kind == Kind::kPut && contiguous_target) {
    std::memcpy(at + tt->lb, packed_origin(a, obytes, oscratch), tbytes);
    return;
  }
  if (a.kind == Kind::kGet && contiguous_target) {
    std::memcpy(packed_result(a, rbytes, rscratch), at + tt->lb, tbytes);
    unpack_result(a, rbytes, rscratch);
    return;
  }
  h.nblocks = blocks.size();
  switch (a.kind) {
    case Kind::kPut:
      scatter(at, h, blocks.data(), packed_origin(a, obytes, oscratch));
      return;
    case Kind::kGet:
      gather(at, h, blocks.data(), packed_result(a, rbytes, rscratch));
      unpack_result(a, rbytes, rscratch);
      return;
    case Kind::kAcc:
    case Kind::kGetAcc: {
      const char* data = a.op == MPI_NO_OP ? nullptr : packed_origin(a, obytes, oscratch);
      char* old = a.kind == Kind::kGetAcc ? packed_result(a, rbytes, rscratch) : nullptr;
      lock_accumulates(w, a.target);
      if (old != nullptr) gather(at, h, blocks.data(), old);
      if (data != nullptr) accumulate_into(at, h, blocks.data(), data);
      unlock_accumulates(w, a.target);
      if (old != nullptr) unpack_result(a, rbytes, rscratch);
      return;
    }
    case Kind::kCas: {
      char* p = at + blocks[0].disp;
      const char* value = packed_origin(a, obytes, oscratch);
      char compare[16];  // compare-and-swap takes types of at most 16 bytes (api/rma.cpp)
      pack(a.compare, 1, a.origin_type, compare);
      char* old = packed_result(a, rbytes, rscratch);
      lock_accumulates(w, a.target);
      std::memcpy(old, p, obytes);
      if (std::memcmp(old, compare, obytes) == 0) std::memcpy(p, value, obytes);
      unlock_accumulates(w, a.target);
      unpack_result(a, rbytes, rscratch);
      return;
    }
    default:
      return;
  }
}

void direct_lock(Window& w, int target, int lock_type) {
  auto word = shared_ref<std::uint64_t>(&w.control[target].lock);
  if (lock_type == MPI_LOCK_EXCLUSIVE) {
    acquire([&word] {
      std::uint64_t expected = 0;
      return word.compare_exchange_weak(expected, kExclusiveBit, std::memory_order_acquire,
                                        std::memory_order_relaxed);
    });
  } else {
    acquire([&word] {
      std::uint64_t v = word.load(std::memory_order_relaxed);
      return (v & kExclusiveBit) == 0 &&
             word.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed);
    });
  }
}

void direct_unlock(Window& w, int target, int lock_type) {
  auto word = shared_ref<std::uint64_t>(&w.control[target].lock);
  if (lock_type == MPI_LOCK_EXCLUSIVE) {
    word.store(0, std::memory_order_release);
  } else {
    word.fetch_sub(1, std::memory_order_release);
  }
}

/// A direct window's fence: publish this rank's count, wait until every rank has reached it.
void direct_fence(Window& w) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const std::uint64_t seq = ++w.fence_seq;
  shared_ref<std::uint64_t>(&w.control[w.rank].fence).store(seq, std::memory_order_release);
  for (int r = 0; r < w.size; ++r) {
    auto count = shared_ref<std::uint64_t>(&w.control[r].fence);
    acquire([&count, seq] { return count.load(std::memory_order_acquire) >= seq; });
  }
}

}  // namespace

void install_service() {
  engine().after_progress = &progress_hook;
}

namespace {

/// Operations in flight that an origin may have before it waits for the oldest: a program that
/// issues 100000 gets of 128 KiB in one epoch must not hold all their replies (or their requests
/// at the target) at once.
constexpr std::size_t kMaxReplies = 64;
constexpr std::size_t kMaxOutgoing = 256;
constexpr std::size_t kMaxOutgoingBytes = std::size_t(64) << 20;

void throttle(Window& w) {
  while (w.replies.size() > kMaxReplies) {
    Request* r = w.replies.front().req;
    wait_for([r] { return r->complete; });
    deliver(*r);
    engine().requests().release(r);
    w.replies.pop_front();
  }
  auto over = [&w] {
    std::size_t bytes = 0;
    for (const Outgoing& o : w.outgoing) bytes += o.buf.size();
    return w.outgoing.size() > kMaxOutgoing || bytes > kMaxOutgoingBytes;
  };
  if (over()) {
    wait_for([&] {
      service(w);
      return !over();
    });
  }
}

}  // namespace

namespace {

/// One word of an accumulate under the target's accumulate lock: MPI_SUM (integers), MPI_REPLACE or
/// MPI_NO_OP; the previous value goes to `old` when it is not null.
template <class T>
void combine_word(char* at, const void* value, void* old, MPI_Op op) {
  T prev;
  std::memcpy(&prev, at, sizeof prev);
  if (op != MPI_NO_OP) {
    T v;
    std::memcpy(&v, value, sizeof v);
    const T next = op == MPI_REPLACE ? v : static_cast<T>(prev + v);
    std::memcpy(at, &next, sizeof next);
  }
  if (old != nullptr) std::memcpy(old, &prev, sizeof prev);
}

/// The common small operation on a direct window, without the general path's bookkeeping: one
/// predefined contiguous type on both sides, inside the window's bounds, in a lock or fence epoch.
/// Returns false (nothing done) for anything else, which the general path checks and runs.
bool issue_fast(Window& w, const OpArgs& a) {
  if (!w.direct || a.target < 0 || a.target >= w.size) return false;
  const auto t = std::size_t(a.target);
  if (w.access || (!w.lock_all && w.locked[t] == 0 && !w.fence_epoch)) return false;  // PSCW: take_post
  const Type* tt = find_predefined(a.target_type);
  if (tt == nullptr || a.target_count > tt->max_items || a.disp < 0) return false;
  const std::size_t bytes = a.target_count * tt->size;
  std::int64_t off = 0;
  if (__builtin_mul_overflow(std::int64_t(a.disp), std::int64_t(w.units[t]), &off)) return false;
  if (off > std::int64_t(w.sizes[t]) || std::int64_t(bytes) > std::int64_t(w.sizes[t]) - off) return false;
  char* at = w.bases[t] + off;
  switch (a.kind) {
    case Kind::kPut:
      if (a.origin_type != a.target_type || a.origin_count != a.target_count ||
          (a.origin == nullptr && bytes != 0)) {
        return false;
      }
      std::memcpy(at, a.origin, bytes);
      return true;
    case Kind::kGet:
      if (a.result_type != a.target_type || a.result_count != a.target_count ||
          (a.result == nullptr && bytes != 0)) {
        return false;
      }
      std::memcpy(a.result, at, bytes);
      return true;
    case Kind::kAcc:
    case Kind::kGetAcc: {
      const bool fetch = a.kind == Kind::kGetAcc;
      if (a.target_count != 1 || (a.op != MPI_NO_OP && (a.origin_type != a.target_type ||
                                                        a.origin_count != 1 || a.origin == nullptr))) {
        return false;
      }
      if (fetch && (a.result_type != a.target_type || a.result_count != 1 || a.result == nullptr))
        return false;
      if (a.op != MPI_REPLACE && a.op != MPI_NO_OP && !(a.op == MPI_SUM && integer_type(a.target_type)))
        return false;
      if (bytes != 4 && bytes != 8) return false;
      lock_accumulates(w, a.target);
      if (bytes == 8) {
        combine_word<std::uint64_t>(at, a.origin, fetch ? a.result : nullptr, a.op);
      } else {
        combine_word<std::uint32_t>(at, a.origin, fetch ? a.result : nullptr, a.op);
      }
      unlock_accumulates(w, a.target);
      return true;
    }
    case Kind::kCas: {
      if (a.origin == nullptr || a.compare == nullptr || a.result == nullptr || bytes > 16) return false;
      char old[16];
      lock_accumulates(w, a.target);
      std::memcpy(old, at, bytes);
      if (std::memcmp(old, a.compare, bytes) == 0) std::memcpy(at, a.origin, bytes);
      unlock_accumulates(w, a.target);
      std::memcpy(a.result, old, bytes);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

void issue(Window& w, const OpArgs& a, const char* fn, bool wait) {
  if (issue_fast(w, a)) return;
  if (a.target == MPI_PROC_NULL) return;
  check_target(w, a.target, fn);
  const auto t = std::size_t(a.target);
  const bool in_access =
      w.access && std::find(w.access_group.begin(), w.access_group.end(), a.target) != w.access_group.end();
  if (!w.fence_epoch && !w.lock_all && w.locked[t] == 0 && !in_access) {
    fail(MPI_ERR_RMA_SYNC, fn,
         "no access epoch to " + rank_text(a.target) +
             " is open (MPI_Win_fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first)");
  }
  const bool acc = a.kind == Kind::kAcc || a.kind == Kind::kGetAcc || a.kind == Kind::kCas;
  const bool no_op = a.kind == Kind::kGetAcc && a.op == MPI_NO_OP;
  const std::size_t tbytes = checked_bytes(a.target_type, a.target_count, fn, "target_count");
  std::size_t obytes = 0;
  if (a.kind != Kind::kGet && !no_op) {
    obytes = checked_bytes(a.origin_type, a.origin_count, fn, "origin_count");
    if (obytes != tbytes) {
      fail(MPI_ERR_TYPE, fn,
           "the origin data (" + std::to_string(obytes) + " bytes) and the target data (" +
               std::to_string(tbytes) + " bytes) differ in size");
    }
  }
  std::size_t rbytes = 0;
  if (has_reply(a.kind)) {
    rbytes = checked_bytes(a.result_type, a.result_count, fn,
                           a.kind == Kind::kGet ? "origin_count" : "result_count");
    if (rbytes != tbytes) {
      fail(MPI_ERR_TYPE, fn,
           "the result buffer (" + std::to_string(rbytes) + " bytes) and the target data (" +
               std::to_string(tbytes) + " bytes) differ in size");
    }
  }
  // NULL with data of a predefined type (a derived one may hold absolute addresses, from MPI_BOTTOM).
  auto null_buffer = [](const void* p, std::size_t bytes, MPI_Datatype dt) {
    return p == nullptr && bytes > 0 && find_predefined(dt) != nullptr;
  };
  if (null_buffer(a.origin, obytes, a.origin_type)) fail(MPI_ERR_BUFFER, fn, "origin_addr is NULL");
  if (has_reply(a.kind) && null_buffer(a.result, rbytes, a.result_type)) {
    fail(MPI_ERR_BUFFER, fn, a.kind == Kind::kGet ? "origin_addr is NULL" : "result_addr is NULL");
  }
  if (a.kind == Kind::kCas && null_buffer(a.compare, obytes, a.origin_type)) {
    fail(MPI_ERR_BUFFER, fn, "compare_addr is NULL");
  }
  // An operation that moves no bytes does nothing, whatever its datatypes (MPICH's badrma).
  if (tbytes == 0 && obytes == 0 && rbytes == 0) return;
  Header h{};
  h.kind = a.kind;
  if (acc) {
    MPI_Datatype basic = basic_of(a.target_type, fn);
    if (a.kind != Kind::kCas) {
      if (!is_predefined_op(a.op))
        fail(MPI_ERR_OP, fn, "one-sided accumulates take predefined operations only");
      if (a.op != MPI_REPLACE && a.op != MPI_NO_OP) check_op(a.op, basic, fn);
      if (!no_op && basic_of(a.origin_type, fn) != basic) {
        fail(MPI_ERR_TYPE, fn, "the origin and target datatypes are made of different predefined types");
      }
    }
    h.basic = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(basic));
    h.op = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(a.op));
  }
  const Type* tt = lookup(a.target_type);
  h.disp = std::uint64_t(a.disp);
  h.count = a.target_count;
  h.extent = tt->extent();
  h.true_lb = tt->true_lb;
  h.true_ub = tt->true_ub;
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC && a.disp < 0) {
    fail(MPI_ERR_DISP, fn,
         "negative target displacement " + std::to_string(a.disp) + " (argument target_disp)");
  }
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC && a.target_count > 0 && tbytes > 0) {
    std::int64_t off = 0;
    std::int64_t lo = 0;
    std::int64_t hi = 0;
    if (__builtin_mul_overflow(std::int64_t(a.disp), std::int64_t(w.units[t]), &off) ||
        !span_of(off, a.target_count, h.extent, h.true_lb, h.true_ub, lo, hi)) {
      fail(MPI_ERR_RMA_RANGE, fn,
           "target_disp " + std::to_string(a.disp) +
               " times the displacement unit, with the target data, overflows "
               "64 bits");
    }
    if (lo < 0 || hi > std::int64_t(w.sizes[t])) {
      fail(MPI_ERR_RMA_RANGE, fn,
           "the target data [" + std::to_string(lo) + ", " + std::to_string(hi) + ") lies outside " +
               rank_text(a.target) + "'s window of " + std::to_string(w.sizes[t]) + " bytes");
    }
  }
  if (in_access) take_post(w, a.target);
  // Items of a contiguous type are one block: accumulates then combine it in one kernel call.
  const std::vector<Block>* target_blocks = &tt->blocks;
  std::vector<Block> collapsed;
  if (tt->contiguous && a.target_count > 1) {
    collapsed.assign(1, Block{tt->lb, tbytes});
    target_blocks = &collapsed;
    h.count = 1;
    h.extent = std::int64_t(tbytes);
    h.true_ub = h.true_lb + std::int64_t(tbytes);
  }
  if (w.direct) {
    run_direct(w, a, h, tt, *target_blocks, tbytes, obytes, rbytes);
    return;
  }
  std::vector<WireBlock> blocks;
  blocks.reserve(target_blocks->size());
  for (const Block& b : *target_blocks)
    blocks.push_back(WireBlock{std::int64_t(b.disp), std::uint64_t(b.len)});
  const std::size_t data_bytes = a.kind == Kind::kCas ? 2 * obytes : obytes;
  if (has_reply(a.kind)) {
    h.seq = w.next_reply;
    w.next_reply = (w.next_reply + 1) % kReplySpan;
  }
  std::vector<char> msg = make_message(h, blocks.data(), blocks.size(), data_bytes);
  if (obytes != 0) {
    char* data = data_of(msg);
    pack(a.origin, a.origin_count, a.origin_type, data);
    if (a.kind == Kind::kCas) pack(a.compare, a.origin_count, a.origin_type, data + obytes);
  }
  Request* reply = nullptr;
  if (has_reply(a.kind)) {
    P2pArgs ra = byte_args(w, a.target, kReplyBase + int(h.seq), rbytes);
    ra.count = a.result_count;
    ra.contiguous = type_is_contiguous(a.result_type) || rbytes == 0;
    ra.lb = ra.contiguous ? type_lb(a.result_type) : 0;
    reply = make_recv(ra, a.result, a.result_type);
    engine().start_recv(reply);
    w.replies.push_back(Reply{reply, a.target});
  }
  send_message(w, a.target, std::move(msg));
  throttle(w);
  if (wait && reply != nullptr) {
    wait_for([reply] { return reply->complete; });
    deliver(*reply);
    engine().requests().release(reply);
    w.replies.erase(
        std::find_if(w.replies.begin(), w.replies.end(), [reply](const Reply& r) { return r.req == reply; }));
  }
}

void fence(Window& w, int assert_flags, const char* fn) {
  if (w.lock_all || w.access || w.exposure ||
      std::any_of(w.locked.begin(), w.locked.end(), [](int l) { return l != 0; })) {
    fail(MPI_ERR_RMA_SYNC, fn, "a lock or PSCW epoch is open on the window");
  }
  if (w.direct) {
    direct_fence(w);
    w.fence_epoch = (assert_flags & MPI_MODE_NOSUCCEED) == 0;
    return;
  }
  finish_replies(w, -1);
  const std::uint64_t seq = ++w.fence_seq;
  for (int r = 0; r < w.size; ++r) {
    const auto i = std::size_t(r);
    send_control(w, r, Kind::kFence, seq, 0, w.error_class_for[i], w.error_for[i]);
    w.error_class_for[i] = 0;
    w.error_for[i].clear();
  }
  wait_for([&w, seq] { return w.fence_arrivals[seq] >= w.size; });
  w.fence_arrivals.erase(seq);
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    // Every origin's operations have run here now: report what they met before anyone returns.
    for (int r = 0; r < w.size; ++r) {
      const auto i = std::size_t(r);
      send_control(w, r, Kind::kFenceReport, seq, 0, w.error_class_for[i], w.error_for[i]);
      w.error_class_for[i] = 0;
      w.error_for[i].clear();
    }
    wait_for([&w, seq] { return w.fence_reports[seq] >= w.size; });
    w.fence_reports.erase(seq);
  }
  w.fence_epoch = (assert_flags & MPI_MODE_NOSUCCEED) == 0;
  raise_remote(w, -1);
}

void post(Window& w, MPI_Group group, int /*assert_flags*/, const char* fn) {
  if (w.exposure) fail(MPI_ERR_RMA_SYNC, fn, "an exposure epoch is already open (MPI_Win_wait first)");
  std::vector<int> ranks = window_ranks(w, group, fn);
  if (w.direct) std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int r : ranks) {
    if (w.direct) {
      std::atomic_ref<std::uint64_t>(
          w.post_counts[std::size_t(r) * std::size_t(w.size) + std::size_t(w.rank)])
          .fetch_add(1, std::memory_order_release);
    } else {
      send_control(w, r, Kind::kPost);
    }
  }
  w.exposure_group = std::move(ranks);
  w.exposure = true;
  w.fence_epoch = false;  // a fence's epoch ends where another synchronization begins
}

void start(Window& w, MPI_Group group, int /*assert_flags*/, const char* fn) {
  if (w.access) fail(MPI_ERR_RMA_SYNC, fn, "an access epoch is already open (MPI_Win_complete first)");
  if (w.lock_all || std::any_of(w.locked.begin(), w.locked.end(), [](int l) { return l != 0; })) {
    fail(MPI_ERR_RMA_SYNC, fn, "a lock epoch is open on the window");
  }
  w.access_group = window_ranks(w, group, fn);
  w.fence_epoch = false;
  w.post_taken.assign(std::size_t(w.size), 0);
  w.access = true;
}

void complete(Window& w, const char* fn) {
  if (!w.access) fail(MPI_ERR_RMA_SYNC, fn, "no access epoch is open (MPI_Win_start first)");
  for (int t : w.access_group) take_post(w, t);
  finish_replies(w, -1);
  for (int t : w.access_group) {
    if (w.direct) {
      std::atomic_ref<std::uint64_t>(
          w.complete_counts[std::size_t(t) * std::size_t(w.size) + std::size_t(w.rank)])
          .fetch_add(1, std::memory_order_release);
    } else {
      send_control(w, t, Kind::kComplete);
    }
  }
  w.access = false;
  w.access_group.clear();
}

bool wait_exposure(Window& w, bool block, const char* fn) {
  if (!w.exposure) fail(MPI_ERR_RMA_SYNC, fn, "no exposure epoch is open (MPI_Win_post first)");
  auto done = [&w] {
    return std::all_of(w.exposure_group.begin(), w.exposure_group.end(), [&w](int o) {
      if (!w.direct) return w.completes[std::size_t(o)] > 0;
      auto count = std::atomic_ref<std::uint64_t>(
          w.complete_counts[std::size_t(w.rank) * std::size_t(w.size) + std::size_t(o)]);
      return count.load(std::memory_order_acquire) > w.completes_taken[std::size_t(o)];
    });
  };
  if (block) {
    wait_for(done);
  } else if (!done()) {
    engine().progress();
    if (!done()) return false;
  }
  for (int o : w.exposure_group) {
    if (w.direct) {
      ++w.completes_taken[std::size_t(o)];
    } else {
      --w.completes[std::size_t(o)];
    }
  }
  w.exposure = false;
  w.exposure_group.clear();
  return true;
}

void lock(Window& w, int lock_type, int target, int assert_flags, const char* fn) {
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
    fail(MPI_ERR_LOCKTYPE, fn,
         "invalid lock type " + std::to_string(lock_type) + " (MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE)");
  }
  if (target == MPI_PROC_NULL) return;
  check_target(w, target, fn);
  const auto t = std::size_t(target);
  if (w.locked[t] != 0 || w.lock_all) fail(MPI_ERR_RMA_SYNC, fn, rank_text(target) + " is already locked");
  if (w.access || w.exposure) fail(MPI_ERR_RMA_SYNC, fn, "a PSCW epoch is open on the window");
  if ((assert_flags & MPI_MODE_NOCHECK) != 0) {
    w.nocheck[t] = 1;
  } else if (w.direct) {
    w.nocheck[t] = 0;
    direct_lock(w, target, lock_type);
  } else {
    w.nocheck[t] = 0;
    send_control(w, target, Kind::kLock, 0, lock_type);
    const std::uint64_t want = ++w.grants_wanted[t];
    wait_for([&w, t, want] { return w.grants[t] >= want; });
  }
  w.locked[t] = lock_type;
  w.fence_epoch = false;
}

namespace {

/// Ends the lock on `target` (or a MPI_MODE_NOCHECK one with a flush): kUnlock / kFlush, without waiting.
std::uint64_t send_unlock(Window& w, int target) {
  const auto t = std::size_t(target);
  send_control(w, target, w.nocheck[t] != 0 ? Kind::kFlush : Kind::kUnlock);
  return ++w.acks_wanted[t];
}

}  // namespace

void unlock(Window& w, int target, const char* fn) {
  if (target == MPI_PROC_NULL) return;
  check_target(w, target, fn);
  const auto t = std::size_t(target);
  if (w.locked[t] == 0) fail(MPI_ERR_RMA_SYNC, fn, rank_text(target) + " is not locked (MPI_Win_lock first)");
  if (w.direct) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (w.nocheck[t] == 0) direct_unlock(w, target, w.locked[t]);
    w.locked[t] = 0;
    w.nocheck[t] = 0;
    return;
  }
  const std::uint64_t want = send_unlock(w, target);
  wait_for([&w, t, want] { return w.acks[t] >= want; });
  finish_replies(w, target);
  w.locked[t] = 0;
  w.nocheck[t] = 0;
  raise_remote(w, target);
}

void lock_all(Window& w, int assert_flags, const char* fn) {
  if (w.lock_all || std::any_of(w.locked.begin(), w.locked.end(), [](int l) { return l != 0; })) {
    fail(MPI_ERR_RMA_SYNC, fn, "the window is already locked");
  }
  if (w.access || w.exposure) fail(MPI_ERR_RMA_SYNC, fn, "a PSCW epoch is open on the window");
  const bool nocheck = (assert_flags & MPI_MODE_NOCHECK) != 0;
  std::vector<std::uint64_t> want(std::size_t(w.size), 0);
  for (int t = 0; t < w.size; ++t) {
    w.nocheck[std::size_t(t)] = nocheck ? 1 : 0;
    if (!nocheck && w.direct) {
      direct_lock(w, t, MPI_LOCK_SHARED);
    } else if (!nocheck) {
      send_control(w, t, Kind::kLock, 0, MPI_LOCK_SHARED);
      want[std::size_t(t)] = ++w.grants_wanted[std::size_t(t)];
    }
  }
  if (!nocheck && !w.direct) {
    wait_for([&] {
      for (std::size_t t = 0; t < want.size(); ++t) {
        if (w.grants[t] < want[t]) return false;
      }
      return true;
    });
  }
  w.lock_all = true;
  w.fence_epoch = false;
}

void unlock_all(Window& w, const char* fn) {
  if (!w.lock_all) fail(MPI_ERR_RMA_SYNC, fn, "the window is not locked (MPI_Win_lock_all first)");
  if (w.direct) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (int t = 0; t < w.size; ++t) {
      if (w.nocheck[std::size_t(t)] == 0) direct_unlock(w, t, MPI_LOCK_SHARED);
    }
    w.lock_all = false;
    std::fill(w.nocheck.begin(), w.nocheck.end(), 0);
    return;
  }
  std::vector<std::uint64_t> want(std::size_t(w.size), 0);
  for (int t = 0; t < w.size; ++t) want[std::size_t(t)] = send_unlock(w, t);
  wait_for([&] {
    for (std::size_t t = 0; t < want.size(); ++t) {
      if (w.acks[t] < want[t]) return false;
    }
    return true;
  });
  finish_replies(w, -1);
  w.lock_all = false;
  std::fill(w.nocheck.begin(), w.nocheck.end(), 0);
  raise_remote(w, -1);
}

void flush(Window& w, int target, bool local, const char* fn) {
  if (target != -1) {
    if (target == MPI_PROC_NULL) return;
    check_target(w, target, fn);
    if (!w.lock_all && w.locked[std::size_t(target)] == 0) {
      fail(MPI_ERR_RMA_SYNC, fn,
           "no passive-target epoch to " + rank_text(target) + " is open (MPI_Win_lock first)");
    }
  } else if (!w.lock_all && std::none_of(w.locked.begin(), w.locked.end(), [](int l) { return l != 0; })) {
    fail(MPI_ERR_RMA_SYNC, fn, "no passive-target epoch is open (MPI_Win_lock or MPI_Win_lock_all first)");
  }
  if (w.direct) {  // every operation completed in its call
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  if (!local) {
    std::vector<std::uint64_t> want(std::size_t(w.size), 0);
    for (int t = 0; t < w.size; ++t) {
      const auto i = std::size_t(t);
      if ((target == -1 || t == target) && (w.lock_all || w.locked[i] != 0)) {
        send_control(w, t, Kind::kFlush);
        want[i] = ++w.acks_wanted[i];
      }
    }
    wait_for([&] {
      for (std::size_t t = 0; t < want.size(); ++t) {
        if (want[t] != 0 && w.acks[t] < want[t]) return false;
      }
      return true;
    });
  }
  finish_replies(w, target);
  if (!local) raise_remote(w, target);
}

void quiesce(Window& w, const char* /*fn*/) {
  finish_replies(w, -1);
  for (int r = 0; r < w.size; ++r) send_control(w, r, Kind::kFree);
  wait_for([&w] { return w.free_arrivals >= w.size; });
  w.free_arrivals -= w.size;
  wait_for([&w] {
    service(w);
    return w.outgoing.empty() && w.incoming.empty();
  });
}

}  // namespace takyon::mpi::rma
