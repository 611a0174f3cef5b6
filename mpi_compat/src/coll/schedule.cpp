// SPDX-License-Identifier: MIT
// Schedules and nonblocking collective requests (see schedule.hpp).
#include "coll/schedule.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "datatype/datatype.hpp"
#include "datatype/pack.hpp"
#include "errors.hpp"
#include "messages.hpp"
#include "op/op.hpp"
#include "pt2pt/backoff.hpp"
#include "pt2pt/copy_tuner.hpp"
#include "pt2pt/peer_failure.hpp"

namespace takyon::mpi {
namespace {

/// Collective tags wrap at 2^30: tags from 2^30 up in the collective context stay free for other
/// internal exchanges there (communicator creation uses one).
constexpr unsigned kCollTagMask = (1U << 30) - 1;

}  // namespace

Schedule::Schedule(CommInfo& c, const char* fn)
    : comm_(&c), fn_(fn), rank_(comm_rank(c)), size_(comm_size(c)), tag_(int(c.coll_seq++ & kCollTagMask)) {}

namespace {

/// Freed schedules kept for reuse (single-threaded: the MPI thread).
struct ScheduleCache {
  static constexpr int kKeep = 4;
  void* blocks[kKeep] = {};
  int count = 0;
  ScheduleCache() = default;
  ScheduleCache(const ScheduleCache&) = delete;
  ScheduleCache& operator=(const ScheduleCache&) = delete;
  ~ScheduleCache() {
    for (int i = 0; i < count; ++i) ::operator delete(blocks[i]);
  }
};
ScheduleCache g_cache;

}  // namespace

void* Schedule::operator new(std::size_t bytes) {
  if (bytes == sizeof(Schedule) && g_cache.count > 0) return g_cache.blocks[--g_cache.count];
  return ::operator new(bytes);
}

void Schedule::operator delete(void* p) {
  if (g_cache.count < ScheduleCache::kKeep) {
    g_cache.blocks[g_cache.count++] = p;
  } else {
    ::operator delete(p);
  }
}

Schedule::~Schedule() {
  abandon();
}

void Schedule::abandon() {
  // Only reached with transfers in flight when a collective failed (a peer died, a size mismatch).
  // A receive the engine has matched still writes into its buffer -- scratch_, inline_scratch_ (in
  // this recycled object) or the user's, reused once the error returns -- so it is abandoned: waited
  // for while its sender lives, cut off once it is gone. Sends are left to complete and released then.
  // A send still in flight may read its data later (from a pending cell, the pipeline, or the
  // peer's single copy at the address it was given): data in scratch stays alive with the request.
  // Nothing in flight needs no engine: a persistent collective never freed is destroyed at exit.
  if (inflight_.empty()) return;
  Engine& e = engine();
  for (const Inflight& f : inflight_) {
    Request* r = f.req;
    if (r->kind == RequestKind::kRecv && !r->complete) {
      e.abandon_recv(r);
      continue;
    }
    if (r->kind == RequestKind::kSend && !r->complete) keep_send_data(*r);
    e.free_request(r);
  }
  inflight_.clear();
}

void Schedule::rewind() {
  abandon();  // nothing after a success
  round_ = 0;
  started_ = false;
}

int Schedule::scratch_of(const void* buf, std::size_t bytes) const {
  auto inside = [&](const char* lo, std::size_t n) {
    return buf >= static_cast<const void*>(lo) && static_cast<const char*>(buf) + bytes <= lo + n;
  };
  if (inside(inline_scratch_, kInlineScratch)) return kInline;
  for (std::size_t i = 0; i < scratch_.size(); ++i) {
    if (inside(scratch_[i].data.get(), scratch_[i].bytes)) return int(i);
  }
  return kNotScratch;
}

void Schedule::keep_send_data(Request& r) {
  const int at = scratch_of(r.buf, r.bytes);
  if (at == kInline) {
    // This object is recycled: the (small, hence eager: no address was published) data is copied.
    r.owned = std::make_unique_for_overwrite<char[]>(r.bytes == 0 ? 1 : r.bytes);
    std::memcpy(r.owned.get(), r.buf, r.bytes);
    r.buf = r.owned.get();
  } else if (at >= 0) {
    r.keep = scratch_[std::size_t(at)].data;
  }
}

bool Schedule::receives_to_reduce() const {
  bool reduces = false;
  bool receives = false;
  for (const Step& t : steps_) {
    reduces = reduces || t.kind == Step::Kind::kReduce;
    receives = receives || t.kind == Step::Kind::kRecv;
  }
  return reduces && receives;
}

bool Schedule::exchanges() const {
  std::size_t begin = 0;
  for (std::size_t end : round_end_) {
    for (std::size_t i = begin; i < end; ++i) {
      if (steps_[i].kind != Step::Kind::kRecv) continue;
      for (std::size_t j = begin; j < end; ++j) {
        if (steps_[j].kind == Step::Kind::kSend && steps_[j].peer == steps_[i].peer) return true;
      }
    }
    begin = end;
  }
  return false;
}

void Schedule::next_round() {
  if (round_end_.empty() || round_end_.back() != steps_.size()) round_end_.push_back(steps_.size());
}

void Schedule::send(int peer, const void* buf, std::size_t bytes) {
  Step s{Step::Kind::kSend};
  s.peer = peer;
  s.src = buf;
  s.bytes = bytes;
  steps_.push_back(s);
}

void Schedule::recv(int peer, void* buf, std::size_t bytes) {
  recv_largest_ = std::max(recv_largest_, bytes);
  recv_total_ += bytes;
  Step s{Step::Kind::kRecv};
  s.peer = peer;
  s.dst = buf;
  s.bytes = bytes;
  steps_.push_back(s);
}

void Schedule::add_copy(Step::Kind kind, const void* src, void* dst, std::size_t bytes) {
  if (bytes == 0 || src == dst) return;
  Step s{kind};
  s.src = src;
  s.dst = dst;
  s.bytes = bytes;
  steps_.push_back(s);
}

void Schedule::copy(const void* src, void* dst, std::size_t bytes) {
  add_copy(Step::Kind::kCopy, src, dst, bytes);
}

void Schedule::copy_early(const void* src, void* dst, std::size_t bytes) {
  add_copy(Step::Kind::kCopyEarly, src, dst, bytes);
}

void Schedule::reduce(const void* in, void* inout, std::size_t count, MPI_Datatype dt, MPI_Op op) {
  if (count == 0) return;
  Step s{Step::Kind::kReduce};
  s.src = in;
  s.dst = inout;
  s.count = count;
  s.dt = dt;
  s.op = op;
  steps_.push_back(s);
  hold(dt);
  hold(hold_op(op));
}

void Schedule::hold(std::shared_ptr<const void> object) {
  if (object == nullptr) return;  // predefined: always valid
  if (!held_.empty() && held_.back() == object) return;
  held_.push_back(std::move(object));
}

const void* Schedule::hold(MPI_Datatype dt) {
  std::shared_ptr<const void> t = hold_type(dt);
  const void* type = t.get();
  hold(std::move(t));
  return type;
}

void Schedule::unpack(const void* in, std::size_t count, MPI_Datatype dt, void* buf) {
  if (count == 0) return;
  Step s{Step::Kind::kUnpack};
  s.src = in;
  s.dst = buf;
  s.count = count;
  s.dt = dt;
  s.type = hold(dt);
  steps_.push_back(s);
}

void Schedule::pack(const void* buf, std::size_t count, MPI_Datatype dt, char* packed) {
  if (count == 0) return;
  Step s{Step::Kind::kPack};
  s.src = buf;
  s.dst = packed;
  s.count = count;
  s.dt = dt;
  s.type = hold(dt);
  packs_.push_back(s);
}

char* Schedule::scratch(std::size_t bytes) {
  std::size_t rounded = (bytes + 63) & ~std::size_t(63);
  if (rounded <= kInlineScratch - inline_used_) {
    char* p = inline_scratch_ + inline_used_;
    inline_used_ += rounded == 0 ? 64 : rounded;
    if (inline_used_ > kInlineScratch) inline_used_ = kInlineScratch;
    return p;
  }
  scratch_.push_back({std::make_shared_for_overwrite<char[]>(bytes == 0 ? 1 : bytes), bytes});
  return scratch_.back().data.get();
}

namespace {

bool overlaps(const void* a, std::size_t an, const void* b, std::size_t bn) {
  auto p = reinterpret_cast<std::uintptr_t>(a);
  auto q = reinterpret_cast<std::uintptr_t>(b);
  return p < q + bn && q < p + an;
}

}  // namespace

bool Schedule::dead_scratch(const void* buf, std::size_t bytes, std::size_t skip_a,
                            std::size_t skip_b) const {
  if (scratch_of(buf, bytes) == kNotScratch) return false;
  auto reads = [&](const Step& t) {
    std::size_t n =
        t.kind == Step::Kind::kReduce ? t.count * type_size(t.dt)
        : t.kind == Step::Kind::kUnpack
            ? t.count * (t.type != nullptr ? static_cast<const Type*>(t.type)->size : type_size(t.dt))
            : t.bytes;
    if (t.kind == Step::Kind::kRecv) return false;
    if (overlaps(buf, bytes, t.src, n)) return true;
    return t.kind == Step::Kind::kReduce && overlaps(buf, bytes, t.dst, n);  // inout is read too
  };
  // This round's other steps; then round by round: its sends read, its receives write (a receive
  // covering the whole buffer ends its life), its local steps read.
  for (std::size_t round = round_; round < round_end_.size(); ++round) {
    std::size_t begin = round == 0 ? 0 : round_end_[round - 1];
    std::size_t end = round_end_[round];
    bool covered = false;
    for (std::size_t i = begin; i < end; ++i) {
      const Step& t = steps_[i];
      if (i == skip_a || i == skip_b) continue;
      bool transfer = t.kind == Step::Kind::kSend || t.kind == Step::Kind::kRecv;
      if (round == round_ || transfer) {
        if (reads(t)) return false;
      }
      if (round != round_ && t.kind == Step::Kind::kRecv && t.dst <= buf &&
          static_cast<const char*>(buf) + bytes <= static_cast<const char*>(t.dst) + t.bytes) {
        covered = true;
      }
    }
    if (covered) return true;
    if (round == round_) continue;
    for (std::size_t i = begin; i < end; ++i) {
      bool transfer = steps_[i].kind == Step::Kind::kSend || steps_[i].kind == Step::Kind::kRecv;
      if (!transfer && reads(steps_[i])) return false;
    }
  }
  return true;
}

void Schedule::plan_fold(std::size_t begin, std::size_t end) {
  fold_.active = false;
  // The round's first local step must be the reduction: it then runs first after the transfers, so
  // running it during them reorders nothing. Early copies run during them too: none may be present.
  std::size_t j = begin;
  while (j < end && (steps_[j].kind == Step::Kind::kSend || steps_[j].kind == Step::Kind::kRecv)) ++j;
  if (j == end || steps_[j].kind != Step::Kind::kReduce || !is_predefined_op(steps_[j].op)) return;
  for (std::size_t i = j; i < end; ++i) {
    if (steps_[i].kind == Step::Kind::kCopyEarly) return;
  }
  const Step& red = steps_[j];
  const std::size_t item = type_size(red.dt);
  const std::size_t bytes = red.count * item;
  for (std::size_t k = begin; k < j; ++k) {
    const Step& rv = steps_[k];
    if (rv.kind != Step::Kind::kRecv || rv.bytes != bytes || bytes == 0) continue;
    const bool into_landing = rv.dst == red.dst;  // recv lands in inout: inout = in op arrived
    const bool onto_acc = rv.dst == red.src;      // recv lands in `in`:  inout = arrived op inout
    if (!into_landing && !onto_acc) continue;
    // What the fold reads besides the data (into_landing: `in`) or writes (onto_acc: inout) must be
    // no other transfer's buffer of this round while the data arrives.
    const void* touched = into_landing ? red.src : red.dst;
    if (overlaps(touched, bytes, rv.dst, bytes)) return;
    // Folded onto the accumulator, the data never reaches its landing buffer: only scratch that no
    // later step reads may be skipped (an exscan's landing buffer is the user's result).
    if (onto_acc && !dead_scratch(rv.dst, bytes, k, j)) return;
    for (std::size_t i = begin; i < j; ++i) {
      const Step& t = steps_[i];
      if (i == k) continue;
      if (t.kind == Step::Kind::kRecv && overlaps(touched, bytes, t.dst, t.bytes)) return;
      if (t.kind == Step::Kind::kSend && onto_acc && overlaps(touched, bytes, t.src, t.bytes)) return;
    }
    fold_.recv_step = k;
    fold_.reduce_step = j;
    fold_.other = static_cast<const char*>(red.src);
    fold_.out = static_cast<char*>(red.dst);
    fold_.data_is_x = onto_acc;
    fold_.op = red.op;
    fold_.dt = red.dt;
    fold_.item = item;
    fold_.active = true;
    return;
  }
}

void Schedule::fold_data(const void* ctx, const char* data, std::size_t at, std::size_t bytes) {
  const auto& f = *static_cast<const FoldPlan*>(ctx);
  char* out = f.out + at;
  if (f.data_is_x) {
    apply_op_into(f.op, f.dt, data, out, out, bytes / f.item);
  } else {
    apply_op_into(f.op, f.dt, f.other + at, data, out, bytes / f.item);
  }
}

void Schedule::start_round() {
  std::size_t begin = round_ == 0 ? 0 : round_end_[round_ - 1];
  std::size_t end = round_end_[round_];
  Engine& e = engine();
  bool early = false;
  int nrecv = 0;
  int nsend = 0;
  for (std::size_t i = begin; i < end; ++i) {
    early = early || steps_[i].kind == Step::Kind::kCopyEarly;
    nrecv += steps_[i].kind == Step::Kind::kRecv ? 1 : 0;
    nsend += steps_[i].kind == Step::Kind::kSend ? 1 : 0;
  }
  const bool fan_in = nrecv >= 2 && nsend == 0;  // a gather's or reduce's root
  // Unless run() decided (pt2pt/copy_tuner.hpp: blocking, a receive of 64 KiB or more), a reduction
  // receives through the bulk pipeline instead of a single copy: there the data is folded into
  // place straight from the sender's chunks (plan_fold), or at least copied out by this rank while
  // the sender copies in. With the two ranks' CPUs far apart (no shared cache), that overlap makes
  // a two-rank allreduce and a nonblocking reduce's root clearly faster than a single copy.
  if (pipelined_ < 0) pipelined_ = receives_to_reduce() ? 1 : 0;
  if (round_ == 0) {
    for (const Step& p : packs_) {
      if (p.type != nullptr) {
        pack_items(p.src, p.count, *static_cast<const Type*>(p.type), p.dst);
      } else {
        takyon::mpi::pack(p.src, p.count, p.dt, p.dst);
      }
    }
  }
  plan_fold(begin, end);
  // Receives first: a message from a peer that is already waiting then lands in place.
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = begin; i < end; ++i) {
      const Step& s = steps_[i];
      bool want = pass == 0 ? s.kind == Step::Kind::kRecv : s.kind == Step::Kind::kSend;
      if (!want) continue;
      // A small send to a peer with ring space goes out at once, without a request.
      if (s.kind == Step::Kind::kSend &&
          e.try_send_eager_now(to_world(*comm_, s.peer), comm_->coll_ctx, tag_, s.src, s.bytes)) {
        continue;
      }
      P2pArgs a;
      a.comm = comm_;
      a.bytes = s.bytes;
      a.world_peer = to_world(*comm_, s.peer);
      a.tag = tag_;
      Request* r = s.kind == Step::Kind::kRecv ? make_recv(a, s.dst, MPI_BYTE)
                                               : make_send(a, s.src, MPI_BYTE, SendMode::kStandard);
      r->ctx = comm_->coll_ctx;
      r->local_work = early;
      r->fan_in = fan_in;
      r->pipelined = pipelined_ == 1;
      if (fold_.active && i == fold_.recv_step) r->fold = Fold{&fold_data, &fold_, fold_.item};
      inflight_.push_back(Inflight{r, i});
      if (s.kind == Step::Kind::kRecv) {
        e.start_recv(r);
      } else {
        e.start_send(r);
      }
    }
  }
  started_ = true;
  // Early copies in pieces, polling the channels between them: a rendezvous request that arrives
  // meanwhile is answered at once, so its sender copies while this rank does.
  constexpr std::size_t kPiece = 64 * 1024;
  for (std::size_t i = begin; early && i < end; ++i) {
    const Step& s = steps_[i];
    if (s.kind != Step::Kind::kCopyEarly) continue;
    const auto* src = static_cast<const char*>(s.src);
    const auto* dst = static_cast<const char*>(s.dst);
    if (src < dst + s.bytes && dst < src + s.bytes) {  // overlapping: one memmove
      std::memmove(s.dst, s.src, s.bytes);
      continue;
    }
    for (std::size_t at = 0; at < s.bytes; at += kPiece) {
      std::memmove(static_cast<char*>(s.dst) + at, static_cast<const char*>(s.src) + at,
                   std::min(kPiece, s.bytes - at));
      e.progress_channels();
    }
  }
}

bool Schedule::finish_round() {
  for (const Inflight& f : inflight_) {
    if (!f.req->complete) return false;
  }
  Engine& e = engine();
  std::string error;
  bool folded = false;
  for (const Inflight& f : inflight_) {
    Request* r = f.req;
    const Step& s = steps_[f.step];
    folded = folded || r->folded;
    if (error.empty() && r->kind == RequestKind::kRecv && (r->truncated || r->status_bytes != s.bytes)) {
      error = std::string(fn_) + ": rank " + std::to_string(s.peer) + " sent " +
              std::to_string(r->truncated ? r->sent_bytes : r->status_bytes) + " bytes where rank " +
              std::to_string(rank_) + " expected " + std::to_string(s.bytes) +
              " (counts, datatypes or the root differ across ranks)";
    }
    e.requests().release(r);
  }
  inflight_.clear();
  if (!error.empty()) throw MpiError(MPI_ERR_TRUNCATE, error);
  std::size_t begin = round_ == 0 ? 0 : round_end_[round_ - 1];
  for (std::size_t i = begin; i < round_end_[round_]; ++i) {
    const Step& s = steps_[i];
    switch (s.kind) {
      case Step::Kind::kCopy:
        std::memmove(s.dst, s.src, s.bytes);
        break;
      case Step::Kind::kReduce:
        if (!(folded && i == fold_.reduce_step)) apply_op(s.op, s.dt, s.src, s.dst, s.count);
        break;
      case Step::Kind::kUnpack:
        if (s.type != nullptr) {
          const Type& t = *static_cast<const Type*>(s.type);
          unpack_items(s.src, s.count * t.size, s.count, t, s.dst);
        } else {
          takyon::mpi::unpack(s.src, s.count * type_size(s.dt), s.count, s.dt, s.dst);
        }
        break;
      default:
        break;
    }
  }
  started_ = false;
  ++round_;
  return true;
}

bool Schedule::advance() {
  next_round();  // closes the last round (no-op when already closed)
  while (round_ < round_end_.size()) {
    if (!started_) start_round();
    if (!finish_round()) return false;
  }
  return true;
}

void Schedule::run() {
  CopyTuner& tuner = CopyTuner::instance();
  next_round();  // closes the last round, so that exchanges() sees it
  const bool exchange = recv_largest_ >= CopyTuner::kMinBytes && !receives_to_reduce() && exchanges();
  const CopyTuner::Ticket t = tuner.begin(fn_, size_, recv_largest_, recv_total_, exchange);
  if (t.decided) pipelined_ = t.mode == CopyTuner::Mode::kPipeline ? 1 : 0;
  const std::uint64_t t0 = t.entry >= 0 ? monotonic_ns() : 0;
  if (!advance()) engine().wait_until([this] { return advance(); });
  if (t.entry >= 0) tuner.end(t, monotonic_ns() - t0);
}

}  // namespace takyon::mpi
