// SPDX-License-Identifier: MIT
// The point-to-point engine of one rank: its channels (channel.hpp: node-local, an SPSC ring and a bulk
// pipeline per peer and direction; or a Takyon path per peer, path_channel.hpp), the eager /
// rendezvous / synchronous protocols, matching and progress. One class, one file per protocol:
//   engine.cpp       construction, matching, the dispatch of arriving cells, progress, liveness
//   eager.cpp        eager and synchronous messages, the blocking fast paths
//   rendezvous.cpp   rendezvous and the bulk pipeline
//   single_copy.cpp  CMA and shared-heap single copies, the split single copy
//   cancel.cpp       cancelling a send (kCancel / kCancelAnswer)
// What they share is engine_internal.hpp. Single-threaded: only the MPI thread calls it
// (MPI_THREAD_FUNNELED).
//
// Protocols (peer = another rank on the node; self-sends go through the unexpected queue directly):
//   eager  (bytes <= cell payload): one cell with envelope + data; matched against posted receives
//          when it is polled, else copied to the heap (the ring never waits for a receive).
//   sync   eager with kFlagSync; the receiver answers kAck when it matches (MPI_Ssend).
//   rndv   kRts (envelope, size) -> the receiver matches and answers kCts (bytes wanted) -> the
//          sender streams the data through the pair's bulk pipeline in kCts order (on a path channel:
//          as kData frames in the same ordered stream as every other frame). A kRts over shm (lone,
//          kFlagSolo, or one of a window) is instead read by the receiver from the sender's memory in
//          one copy, once nothing this rank cleared for the pipeline is still streaming from that peer
//          (process_vm_readv, or memcpy where the buffer is in the sender's shared heap, shm/heap.hpp, mapped
//          here) and answered with kAck; if the kernel refuses, that peer falls back to the pipeline for
//          good. TAKYON_MPI_CMA=0: never.
//   split  a kRts of at least TAKYON_MPI_CMA_SPLIT_MIN bytes, lone or of a one-way window (the
//          receiver sends nothing to that peer), when every rank has a core: both
//          ranks copy half at once. The receiver reads the first page (proving CMA works), answers
//          kCts with kFlagSplit (its buffer's address and the split point), reads the head; the sender
//          writes the tail into the receiver's memory (process_vm_writev, or memcpy into its shared
//          heap) and answers kAck with kFlagSplit (payload: 1 written, 0 refused -- then the receiver
//          reads the tail itself); the receiver completes on that and answers the plain kAck that
//          completes the send. Messages over TAKYON_MPI_CMA_MAX take the pipeline, unless the sender's
//          buffer is in its shared heap.
//          TAKYON_MPI_CMA=readonly: the sender acts as if writing were refused (tests the fallback);
//          TAKYON_MPI_CMA=split: split even with more ranks than cores (tests).
//   cancel MPI_Cancel of a send: kCancel (the message's id) -> the receiver withdraws the message if
//          it is still unexpected -> kCancelAnswer (1 withdrawn, 0 already matched).
// Flow control: a send that finds the ring full waits in the peer's pending FIFO (later sends queue
// behind it, keeping order) while progress keeps draining this rank's own inbox.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/process_watch.hpp"
#include "pt2pt/backoff.hpp"
#include "pt2pt/channel.hpp"
#include "pt2pt/matching.hpp"
#include "pt2pt/path_channel.hpp"
#include "pt2pt/peer_failure.hpp"
#include "pt2pt/request.hpp"
#include "shm/bulk.hpp"
#include "shm/ring.hpp"

namespace takyon::mpi {

/// What Engine::recv_eager_now received (a receive's status, without a Request).
struct FastRecv {
  int source = 0;  ///< world rank
  int tag = 0;
  std::size_t bytes = 0;
};

/// What Engine::probe found.
struct ProbeResult {
  int source = 0;  ///< world rank
  int tag = 0;
  std::size_t bytes = 0;
};

class Engine {
 public:
  /// `inboxes[r]` is rank r's mapped inbox (inboxes[rank] this rank's own); all use `layout`. A null
  /// inbox means rank r is reached through a path (attach_path); inboxes[rank] may be null when no
  /// peer uses shm. `pids[r]` is rank r's process id on this host (liveness checks), 0 if on another.
  Engine(int rank, int size, const shm::InboxLayout& layout, std::vector<void*> inboxes,
         std::vector<int> pids);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine();

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  RequestPool& requests() { return pool_; }
  /// Whether world rank `peer` runs on this host (whatever channel reaches it).
  [[nodiscard]] bool same_host(int peer) const {
    return peer == rank_ || (peer >= 0 && peer < size_ && peers_[std::size_t(peer)].live.watch.pid() != 0);
  }
  /// Where `bytes` at address `addr` of world rank `peer` (another rank on this host) are mapped here
  /// through that rank's shared heap (shm/heap.hpp), mapping it on first use; nullptr where they are
  /// not in it, or it cannot be mapped (one-sided windows over such memory, rma/window.hpp).
  char* peer_heap(int peer, std::uint64_t addr, std::size_t bytes) {
    if (peer < 0 || peer >= size_ || peer == rank_) return nullptr;
    return heap_view(peers_[std::size_t(peer)], addr, bytes);
  }
  /// Bytes this engine copied with memcpy through a peer's mapped shared heap (tests).
  [[nodiscard]] std::uint64_t heap_copied_bytes() const { return heap_copied_bytes_; }

  /// Blocking-send fast path: if the message is eager, goes to another rank, nothing is queued before
  /// it and the ring has room, writes it and returns true (no request needed); else returns false.
  bool try_send_eager_now(int dest, int ctx, int tag, const void* buf, std::size_t bytes);
  /// Blocking-receive fast path: with no receive posted and nothing matching in the unexpected queue,
  /// waits for the next message from `source` (world rank or kAnySource; shared-memory peers only)
  /// and, if it is a plain eager message that matches and fits, copies it from the ring straight into
  /// `buf` and returns true (no request, no heap copy). Returns false as soon as the general path must
  /// take over (something else arrived that matches, a path channel, a self-send, a synchronous or
  /// rendezvous or oversized message): what arrived meanwhile was handled as progress() handles it,
  /// so a receive started then finds it in the unexpected queue. Throws PeerFailure like wait_until.
  bool recv_eager_now(int ctx, int source, int tag, void* buf, std::size_t capacity, FastRecv& out);
  /// Starts a filled-in send / receive request (null_proc ones complete at once).
  void start_send(Request* r);
  void start_recv(Request* r);
  /// Polls every channel once; returns whether anything moved.
  bool progress();
  /// progress() without after_progress (no collective advances): safe inside a collective's step.
  bool progress_channels();
  /// Cancels a receive not yet matched; returns whether it was cancelled.
  bool cancel_recv(Request* r);
  /// MPI_Cancel of an active send (pt2pt/cancel.cpp): one still queued here, or to this rank itself
  /// and unmatched, is cancelled at once; otherwise the receiver is asked (kCancel) and the request
  /// completes when it answers: cancelled if the message was still unmatched there (it is withdrawn,
  /// no receive ever matches it), else once the transfer completes as usual.
  void cancel_send(Request* r);
  /// Gives up a receive whose buffer its owner is about to free or reuse (a failed collective's
  /// schedule), then releases `r`: cancelled if still posted; if matched, every channel is progressed
  /// (the sender may itself wait on this rank) until the receive completes or the sender is gone
  /// (finalized or exited; a peer that lives on without progressing keeps this waiting), and then
  /// nothing writes to r->buf any more (a split's sender writes into it from its own process until it
  /// answers). Never throws.
  void abandon_recv(Request* r) noexcept;
  /// The oldest unexpected message a receive for (ctx, source, tag) would match, without taking it.
  bool probe(int ctx, int source, int tag, ProbeResult& out);
  /// A matched probe (MPI_Mprobe / MPI_Improbe): the message probe() would find, taken out of
  /// matching so that no receive matches it any more; nullptr if none. Nothing is answered yet: a
  /// synchronous or rendezvous sender waits until start_matched_recv.
  std::unique_ptr<Unexpected> take_unexpected(int ctx, int source, int tag) {
    return unexpected_.take(ctx, source, tag);
  }
  /// Starts receive `r` (filled in as for start_recv) on message `u` from take_unexpected
  /// (MPI_Mrecv / MPI_Imrecv): as start_recv does when it finds `u` in the unexpected queue.
  void start_matched_recv(Request* r, std::unique_ptr<Unexpected> u);
  /// Pairs receive `recv` and send `send` into one MPI_Isendrecv request (the receive, returned to
  /// the user): it completes once both halves have, and the send is released then. Call before
  /// starting either.
  static void pair(Request* recv, Request* send) {
    recv->companion = send;
    send->companion = recv;
  }
  /// Releases `r` now if it is complete, else marks it to be released when it completes.
  void free_request(Request* r);
  /// Called at the end of every progress() when set: advances the nonblocking collectives (which
  /// start requests of their own); returns whether anything moved.
  bool (*after_progress)() = nullptr;
  /// Called when set for a request freed while active (MPI_Request_free) as it completes, before it
  /// is released: the API layer unpacks a non-contiguous receive into the user's buffer there.
  void (*on_freed_complete)(Request&) = nullptr;

  /// Progresses until done() holds; throws PeerFailure if a peer dies meanwhile.
  template <class Done>
  void wait_until(const Done& done) {
    Backoff backoff;
    while (!done()) {
      if (progress()) {
        backoff.reset();
      } else if (backoff.idle()) {
        check_peers();
      }
    }
  }
  /// wait_until for a blocking call that owns receive `r`: if waiting throws (a peer died), `r` is
  /// given up (abandon_recv, which releases it) before the exception leaves, so nothing writes into
  /// the caller's buffer after the call returned with the error.
  template <class Done>
  void wait_receiving(Request* r, const Done& done) {
    try {
      wait_until(done);
    } catch (...) {
      abandon_recv(r);
      throw;
    }
  }
  /// Throws PeerFailure naming the first peer that exited without MPI_Finalize.
  void check_peers() const;
  /// Whether `world_rank` will never move another byte: it marked itself finalized, or its process
  /// exited (the test check_peers makes; false for a peer on another host). Never throws.
  [[nodiscard]] bool peer_gone(int world_rank) const noexcept;
  /// Whether control messages or sends still wait for ring space.
  [[nodiscard]] bool has_pending_output() const;
  /// Marks this rank finalized in its inbox (peers will not treat its exit as a failure).
  void mark_finalized();
  /// Makes `path` the channel to `peer` (whose inbox was null).
  void attach_path(int peer, std::unique_ptr<PathChannel> path);
  /// Destroys the path channels in ascending peer order (every rank alike; after the final barrier).
  void destroy_paths();

 private:
  struct Outgoing {
    /// kSplitCts: kCts with kFlagSplit; kSplitDone: kAck with kFlagSplit (sender -> receiver).
    enum class Kind : std::uint8_t {
      kMessage,
      kCts,
      kAck,
      kSplitCts,
      kSplitDone,
      kCancel,
      kCancelAnswer
    } kind;
    Request* req;             ///< kMessage: the send
    std::uint32_t msg_id;     ///< kCts / kAck: the sender's id
    std::uint64_t bytes;      ///< kCts: bytes the receiver wants; kSplitDone, kCancelAnswer: 1 yes, 0 no
    std::uint64_t addr = 0;   ///< kSplitCts: the receiver's buffer
    std::uint64_t split = 0;  ///< kSplitCts: the sender writes [split, bytes)
  };
  /// Everything this rank keeps about one peer, by protocol.
  struct Peer {
    // The channel (channel.hpp): the shm ring pair, or a Takyon path; what waits for room in it.
    shm::RingProducer out;
    shm::RingConsumer in;
    std::unique_ptr<PathChannel> path;    ///< set: this peer is reached through a Takyon path
    std::deque<Outgoing> pending;         ///< waiting for ring space, in order
    std::uint32_t in_at_last_send = ~0U;  ///< in.taken() at the previous send (stream_hint)
    /// Rendezvous and the pipeline (rendezvous.cpp).
    struct Rendezvous {
      shm::BulkProducer bulk_out;
      shm::BulkConsumer bulk_in;
      std::deque<Request*> streaming_out;                    ///< cleared sends, in kCts order
      std::deque<Request*> streaming_in;                     ///< cleared receives, in kCts order
      std::unordered_map<std::uint32_t, Request*> awaiting;  ///< sends waiting for kCts / kAck
      std::unordered_map<std::uint32_t, Request*> cancels;   ///< sends waiting for kCancelAnswer
      std::uint32_t next_msg_id = 1;
      char* bulk_out_chunks = nullptr;  ///< this rank's pipeline chunks in the peer's inbox (warm_bulk)
      char* bulk_in_chunks = nullptr;   ///< the peer's pipeline chunks in this rank's inbox
      bool bulk_out_warm = false;
      bool bulk_in_warm = false;
    } rndv;
    /// Single copies (single_copy.cpp).
    struct SingleCopy {
      struct SplitIn {
        Request* req;
        std::uint64_t addr;  ///< the sender's data
      };
      std::unordered_map<std::uint32_t, SplitIn> split_in;  ///< split receives waiting for the tail
      bool cma = false;             ///< process_vm_readv works on this peer (until it fails once)
      char* heap = nullptr;         ///< the peer's shared heap mapped here (map_peer_heap)
      std::uint64_t heap_base = 0;  ///< its address in the peer
      std::uint64_t heap_bytes = 0;
      bool heap_tried = false;
    } copy;
    /// Liveness (engine.cpp: exited, check_peers).
    struct Liveness {
      const shm::InboxHeader* header = nullptr;  ///< the peer's inbox (its finalized flag); nullptr: a path
      /// The peer's process: its pid and whether it exited (pidfd, else kill(pid, 0) and /proc); pid 0
      /// for a peer on another host, which it never reports gone.
      common::ProcessWatch watch;
    } live;
  };

  bool emit(Peer& p, int dest, const Outgoing& o);
  /// Before the first pipelined transfer to (`out`) or from a peer: maps that pipeline's chunks in
  /// one call (MADV_POPULATE_WRITE) instead of a page fault per 4 KiB page on first use.
  void warm_bulk(Peer& p, bool out);
  /// After a message went into p's ring: if nothing arrived from p since the previous send (a stream,
  /// not a ping-pong), claims the ring's next cell ahead (RingProducer::prefetch_ahead).
  static void stream_hint(Peer& p, std::size_t bytes = 0) {
    std::uint32_t in = p.in.taken();
    if (in == p.in_at_last_send) p.out.prefetch_ahead(bytes);
    p.in_at_last_send = in;
  }
  template <FrameProducer Chan>
  bool emit_on(Chan& out, Peer& p, const Outgoing& o);
  template <FrameProducer Chan>
  bool emit_message(Chan& out, Peer& p, Request* r);
  bool progress_path(Peer& p, int source);
  bool pump_path_streams(Peer& p);
  void flush_pending(Peer& p, int dest);
  void queue_or_emit(Peer& p, int dest, const Outgoing& o);
  void handle_cell(Peer& p, int source, const shm::CellHeader* cell);
  /// handle_cell, then releases the cell from `chan` (the peer's ring or path) exactly once, also when
  /// handling throws. Every caller of handle_cell goes through here.
  template <FrameConsumer Chan>
  void handle_and_release(Chan& chan, Peer& p, int source, const shm::CellHeader* cell);
  // What each kind of cell does, by protocol: eager.cpp, rendezvous.cpp, engine.cpp (kAck).
  void on_eager(Peer& p, int source, const shm::CellHeader* cell);
  void on_rts(int source, const shm::CellHeader* cell);
  void on_cts(Peer& p, int source, const shm::CellHeader* cell);
  void on_ack(Peer& p, int source, const shm::CellHeader* cell);
  void on_data(Peer& p, const shm::CellHeader* cell);
  void on_cancel(Peer& p, int source, const shm::CellHeader* cell);  // cancel.cpp
  void on_cancel_answer(Peer& p, const shm::CellHeader* cell);       // cancel.cpp
  void deliver_eager(Request* r, int source, int tag, const char* data, std::size_t bytes);
  void start_rndv_recv(Request* r, int source, int tag, std::uint32_t msg_id, std::size_t total, bool solo,
                       bool sender_busy, std::uint64_t addr);
  /// Where the peer's `bytes` at its address `addr` are mapped here: in its shared heap (shm/heap.hpp),
  /// mapped on first use; nullptr if they are not in it (or it has none, or mapping was refused).
  char* heap_view(Peer& p, std::uint64_t addr, std::size_t bytes);
  static void map_peer_heap(Peer& p);
  /// Single copy of a lone rendezvous message: reads it from the sender's memory into r->buf.
  bool read_from_sender(Peer& p, Request* r, std::uint64_t addr, std::size_t bytes);
  /// Copies [from, to) of the sender's data at `addr` into r->buf (memcpy from its shared heap, else
  /// process_vm_readv); false if refused.
  bool read_range(Peer& p, Request* r, std::uint64_t addr, std::size_t from, std::size_t to);
  /// The sender's half of a split: writes [split, bytes) of r->buf to the receiver's `addr`.
  bool write_to_receiver(Peer& p, const Request* r, std::uint64_t addr, std::size_t split, std::size_t bytes);
  /// The receiver's half of a split, once the sender has answered (wrote: whether it wrote the tail).
  void finish_split_recv(Peer& p, int source, std::uint32_t msg_id, bool wrote);
  /// Whether p's process has exited (its pidfd is readable; without one: kill(pid, 0) and /proc).
  static bool exited(const Peer& p);
  /// Progresses p's channel only (cells, pending output, streams); returns whether anything moved.
  bool progress_peer(Peer& p, int source, bool drain_ring);
  /// Whether the engine still holds matched receive `r` from p (a split or streaming receive).
  static bool holds_recv(const Peer& p, const Request* r);
  /// Throws PeerFailure for a copy from/to `peer` that failed after CMA had worked on that buffer.
  [[noreturn]] void cma_failed(int peer, const char* what) const;
  void match_unexpected(Request* r, std::unique_ptr<Unexpected> u);
  void send_to_self(Request* r);
  void complete(Request* r);
  /// complete() of one half of a pair (pair()): whether `r` completes now (the receive, its send done).
  bool settle_pair(Request* r);
  bool pump_streams(Peer& p);
  /// progress(), except that the shm ring of `skip_ring` (a rank; kAnySource: every ring) is not drained.
  bool progress_except(int skip_ring);
  /// recv_eager_now's look at one ring: 1 the message was taken, 0 the ring is empty, -1 another cell
  /// was handled.
  int take_eager(Peer& p, int source, int ctx, int tag, void* buf, std::size_t capacity, FastRecv& out);

  int rank_;
  int size_;
  shm::InboxLayout layout_;
  std::vector<Peer> peers_;
  std::vector<int> remote_;  ///< ranks other than this one
  PostedQueue posted_;
  UnexpectedQueue unexpected_;
  RequestPool pool_;
  shm::InboxHeader* my_header_;
  bool cma_split_ = false;       ///< lone large messages are copied by both ranks (every rank has a core)
  bool oversubscribed_ = false;  ///< more ranks than cores
  bool cma_write_ = true;        ///< process_vm_writev allowed (TAKYON_MPI_CMA=readonly: no, for tests)
  std::uint64_t heap_copied_bytes_ = 0;
  std::uint32_t self_msg_id_ = 0;  ///< message ids of self-sends (cancel_send finds them by it)
};

}  // namespace takyon::mpi
