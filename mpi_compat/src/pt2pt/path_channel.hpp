// SPDX-License-Identifier: MIT
// A channel to one peer over a Takyon path (InterProcessMemcpy/-Pointer, InterProcessSocket, Ucx):
// the same frames as the shm ring (shm::CellHeader + payload), so the engine's protocols run unchanged.
//
// Buffers: nbufs data buffers per direction, used round-robin (the k-th frame goes to buffer k % nbufs,
// so taking them in the same order gives one ordered stream), plus one credit buffer (index nbufs).
// Flow control is the library's own, not Takyon's: a data buffer is written only after the receiver
// has handed it back (a Takyon receive buffer may be overwritten the moment takyonRecv returns, while
// the frame is still being read). Credits ride in each frame's header (CellHeader::seq), or, when no
// frame goes back, as a message in the credit buffer whose *size* is the count (its bytes are never
// read, so nothing can race with a write). Receives poll with timeout 0: nothing ever blocks inside
// Takyon while other peers need progress. A path error becomes PeerFailure naming the rank.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shm/layout.hpp"
#include "takyon/takyon.h"

namespace takyon::mpi {

struct PathConfig {
  std::string interconnect;  ///< Takyon provider string
  bool endpoint_a = false;
  int peer = 0;   ///< the peer's world rank (messages)
  int nbufs = 8;  ///< data buffers per direction
  std::uint32_t buf_bytes = 128 * 1024;
  double create_timeout = 20.0;
};

/// Buffer geometry a provider gets: sockets keep everything in flight within the kernel's socket buffer
/// (a send that does not fit would block inside Takyon while the peer might be blocked the same way).
PathConfig path_geometry(const std::string& provider, int nranks);

class PathChannel {
 public:
  /// Creates the path (blocks until the peer's endpoint meets it). Throws std::runtime_error.
  explicit PathChannel(const PathConfig& config);
  PathChannel(const PathChannel&) = delete;
  PathChannel& operator=(const PathChannel&) = delete;
  ~PathChannel();  ///< forced destroy if destroy() was not called

  // --- producer (the engine's emit side; same shape as shm::RingProducer) ---
  /// The next data buffer as a frame to fill, or nullptr while the peer holds every buffer.
  shm::CellHeader* try_acquire();
  /// Sends the frame from try_acquire(): header + cell->bytes of payload.
  void publish(shm::CellHeader* cell);
  /// Largest eager payload.
  [[nodiscard]] std::uint32_t payload_capacity() const { return eager_bytes_; }
  /// Largest rendezvous chunk (a whole buffer less the header).
  [[nodiscard]] std::uint32_t chunk_capacity() const {
    return buf_bytes_ - std::uint32_t(sizeof(shm::CellHeader));
  }

  // --- consumer ---
  /// The next frame from the peer, or nullptr; stays valid until release().
  const shm::CellHeader* peek();
  void release();

  /// Receives credit messages and sends one when half the buffers are owed; returns whether anything moved.
  bool service();
  /// Graceful destroy (after the final barrier); errors are ignored (the job is over).
  void destroy();
  [[nodiscard]] const std::string& interconnect() const { return interconnect_; }

 private:
  [[noreturn]] void fail(const char* op);
  bool send_ready(int buffer);

  TakyonPath* path_ = nullptr;
  std::string interconnect_;
  int peer_ = 0;
  int nbufs_ = 0;
  std::uint32_t buf_bytes_ = 0;
  std::uint32_t eager_bytes_ = 0;
  std::vector<char*> send_bufs_;  ///< [nbufs] is the credit buffer
  std::vector<char*> recv_bufs_;
  std::vector<bool> in_flight_;  ///< takyonIsSendFinished is due before reuse
  std::uint64_t sent_ = 0;       ///< frames sent
  std::uint64_t credited_ = 0;   ///< buffers the peer has handed back
  std::uint64_t received_ = 0;   ///< frames released
  std::uint32_t owed_ = 0;       ///< buffers released but not yet handed back
  const shm::CellHeader* current_ = nullptr;
};

}  // namespace takyon::mpi
