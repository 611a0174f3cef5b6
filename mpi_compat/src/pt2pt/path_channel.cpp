// SPDX-License-Identifier: MIT
// A channel to one peer over a Takyon path (see path_channel.hpp).
#include "pt2pt/path_channel.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "pt2pt/backoff.hpp"
#include "pt2pt/peer_failure.hpp"
#include "takyon/takyon.hpp"

namespace takyon::mpi {
namespace {

constexpr std::uint32_t kEagerMax = 16 * 1024;  ///< larger messages go rendezvous (no big heap copies)
constexpr double kFinishTimeout = 30.0;         ///< a frame that started to move must finish
constexpr double kDestroyTimeout = 5.0;

}  // namespace

PathConfig path_geometry(const std::string& provider, int nranks) {
  PathConfig c;
  const TakyonProviderInfo* info = takyon::find_provider(provider);
  if (info != nullptr && info->stream) {
    c.nbufs = 4;  // 4 x 32 KiB in flight per direction: well inside a Unix socket's 208 KiB
    c.buf_bytes = 32 * 1024;
  } else if (nranks > 16) {
    c.buf_bytes = 32 * 1024;
  }
  return c;
}

PathChannel::PathChannel(const PathConfig& config)
    : interconnect_(config.interconnect),
      peer_(config.peer),
      nbufs_(config.nbufs),
      buf_bytes_(config.buf_bytes),
      eager_bytes_(
          std::min<std::uint32_t>(kEagerMax, config.buf_bytes - std::uint32_t(sizeof(shm::CellHeader)))) {
  const int total = nbufs_ + 1;
  std::vector<std::uint64_t> sizes(std::size_t(total), buf_bytes_);
  sizes[std::size_t(nbufs_)] = std::uint64_t(nbufs_);  // credit messages: size = count, at most nbufs
  std::vector<std::uint64_t> sizes2 = sizes;
  std::vector<std::size_t> addrs(std::size_t(total), 0);
  std::vector<std::size_t> addrs2(std::size_t(total), 0);
  TakyonPathAttributes attrs{};
  if (interconnect_.size() >= sizeof attrs.interconnect) throw std::runtime_error("interconnect too long");
  std::memcpy(attrs.interconnect, interconnect_.c_str(), interconnect_.size() + 1);
  attrs.is_endpointA = config.endpoint_a;
  attrs.is_polling = true;
  attrs.abort_on_failure = false;
  attrs.path_create_timeout = config.create_timeout;
  attrs.send_start_timeout = 0;
  attrs.send_finish_timeout = kFinishTimeout;
  attrs.recv_start_timeout = 0;
  attrs.recv_finish_timeout = kFinishTimeout;
  attrs.path_destroy_timeout = kDestroyTimeout;
  attrs.send_completion_method = TAKYON_USE_IS_SEND_FINISHED;
  attrs.recv_completion_method = TAKYON_BLOCKING;
  attrs.nbufs_AtoB = total;
  attrs.nbufs_BtoA = total;
  attrs.sender_max_bytes_list = sizes.data();
  attrs.recver_max_bytes_list = sizes2.data();
  attrs.sender_addr_list = addrs.data();
  attrs.recver_addr_list = addrs2.data();
  path_ = takyonCreate(&attrs);
  if (path_ == nullptr) {
    std::string why = attrs.error_message != nullptr ? attrs.error_message : "unknown error";
    std::free(attrs.error_message);
    throw std::runtime_error("cannot create the path to rank " + std::to_string(peer_) + " ('" +
                             interconnect_ + "'): " + why);
  }
  for (int i = 0; i < total; ++i) {
    send_bufs_.push_back(reinterpret_cast<char*>(path_->attrs.sender_addr_list[i]));
    recv_bufs_.push_back(reinterpret_cast<char*>(path_->attrs.recver_addr_list[i]));
  }
  in_flight_.assign(std::size_t(total), false);
}

PathChannel::~PathChannel() {
  destroy();
}

void PathChannel::destroy() {
  if (path_ == nullptr) return;
  char* err = takyonDestroy(&path_);
  std::free(err);
  path_ = nullptr;
}

void PathChannel::fail(const char* op) {
  const char* why = path_->attrs.error_message != nullptr ? path_->attrs.error_message : "unknown error";
  throw PeerFailure("rank " + std::to_string(peer_) + " is unreachable: " + op + " on path '" +
                    interconnect_ + "' failed: " + why);
}

bool PathChannel::send_ready(int buffer) {
  if (!in_flight_[std::size_t(buffer)]) return true;
  bool timed_out = false;
  if (!takyonIsSendFinished(path_, buffer, &timed_out)) fail("takyonIsSendFinished");
  if (timed_out) return false;
  in_flight_[std::size_t(buffer)] = false;
  return true;
}

shm::CellHeader* PathChannel::try_acquire() {
  if (sent_ - credited_ >= std::uint64_t(nbufs_)) return nullptr;
  int i = int(sent_ % std::uint64_t(nbufs_));
  if (!send_ready(i)) return nullptr;
  return reinterpret_cast<shm::CellHeader*>(send_bufs_[std::size_t(i)]);
}

void PathChannel::publish(shm::CellHeader* cell) {
  int i = int(sent_ % std::uint64_t(nbufs_));
  cell->seq.store(owed_, std::memory_order_relaxed);  // credits ride along
  owed_ = 0;
  std::uint64_t bytes = sizeof(shm::CellHeader) + cell->bytes;
  // Our credits say the peer has received this buffer's previous frame, and Takyon learned that before
  // we did (its credit travels first), so the send starts at once; the loop only guards the contract.
  std::uint64_t deadline = 0;
  for (;;) {
    bool timed_out = false;
    if (!takyonSend(path_, i, bytes, 0, 0, &timed_out)) fail("takyonSend");
    if (!timed_out) break;
    std::uint64_t now = monotonic_ns();
    if (deadline == 0) deadline = now + std::uint64_t(kFinishTimeout * 1e9);
    if (now > deadline) {
      throw PeerFailure("rank " + std::to_string(peer_) + ": path '" + interconnect_ +
                            "' refused a send the peer had cleared for 30 s",
                        PeerFailure::Kind::kMisbehaved);
    }
  }
  in_flight_[std::size_t(i)] = true;
  ++sent_;
}

const shm::CellHeader* PathChannel::peek() {
  if (current_ != nullptr) return current_;
  int i = int(received_ % std::uint64_t(nbufs_));
  std::uint64_t bytes = 0;
  std::uint64_t offset = 0;
  bool timed_out = false;
  if (!takyonRecv(path_, i, &bytes, &offset, &timed_out)) fail("takyonRecv");
  if (timed_out) return nullptr;
  const auto* cell = reinterpret_cast<const shm::CellHeader*>(recv_bufs_[std::size_t(i)] + offset);
  if (bytes < sizeof(shm::CellHeader) || offset != 0 || bytes != sizeof(shm::CellHeader) + cell->bytes) {
    throw PeerFailure("rank " + std::to_string(peer_) + ": malformed frame of " + std::to_string(bytes) +
                          " bytes on path '" + interconnect_ + "'",
                      PeerFailure::Kind::kMisbehaved);
  }
  credited_ += cell->seq.load(std::memory_order_relaxed);
  current_ = cell;
  return cell;
}

void PathChannel::release() {
  current_ = nullptr;
  ++received_;
  ++owed_;
}

bool PathChannel::service() {
  bool moved = false;
  std::uint64_t bytes = 0;
  bool timed_out = false;
  if (!takyonRecv(path_, nbufs_, &bytes, nullptr, &timed_out)) fail("takyonRecv");
  if (!timed_out) {
    credited_ += bytes;
    moved = true;
  }
  // Hand buffers back alone only when half are owed: a ping-pong returns them in its replies.
  if (owed_ != 0 && owed_ * 2 >= std::uint32_t(nbufs_) && send_ready(nbufs_)) {
    timed_out = false;
    if (!takyonSend(path_, nbufs_, owed_, 0, 0, &timed_out)) fail("takyonSend");
    if (!timed_out) {
      in_flight_[std::size_t(nbufs_)] = true;
      owed_ = 0;
      moved = true;
    }
  }
  return moved;
}

}  // namespace takyon::mpi
