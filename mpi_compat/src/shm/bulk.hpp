// SPDX-License-Identifier: MIT
// The rendezvous data pipeline of one (sender, receiver) pair: nchunks slots in the receiver's inbox,
// filled in order by the sender and drained in order by the receiver, so the sender copies chunk k+1
// while the receiver copies chunk k out. Which message a chunk belongs to is implied: the sender
// streams messages in the order the receiver cleared them (kCts), and the receiver remembers that order.
#pragma once

#include <cstring>

#include "shm/copy.hpp"
#include "shm/layout.hpp"

namespace takyon::mpi::shm {

class BulkProducer {
 public:
  BulkProducer() = default;
  BulkProducer(BulkSlot* slots, char* chunks, std::uint32_t nchunks, std::uint32_t chunk_bytes)
      : slots_(slots), chunks_(chunks), nchunks_(nchunks), chunk_bytes_(chunk_bytes) {}

  /// Copies as much of [src, src+bytes) as free slots allow; returns the bytes taken (0 if none free).
  std::size_t push(const char* src, std::size_t bytes) {
    std::size_t done = 0;
    while (done < bytes) {
      BulkSlot& slot = slots_[next_];
      if (slot.filled.load(std::memory_order_acquire) != 0) break;
      std::size_t n = bytes - done < chunk_bytes_ ? bytes - done : chunk_bytes_;
      copy_bulk(chunks_ + std::size_t(next_) * chunk_bytes_, src + done, n);
      slot.filled.store(n, std::memory_order_release);
      next_ = next_ + 1 == nchunks_ ? 0 : next_ + 1;
      done += n;
    }
    return done;
  }
  [[nodiscard]] std::uint32_t chunk_bytes() const { return chunk_bytes_; }

 private:
  BulkSlot* slots_ = nullptr;
  char* chunks_ = nullptr;
  std::uint32_t nchunks_ = 0;
  std::uint32_t chunk_bytes_ = 0;
  std::uint32_t next_ = 0;
};

class BulkConsumer {
 public:
  BulkConsumer() = default;
  BulkConsumer(BulkSlot* slots, char* chunks, std::uint32_t nchunks, std::uint32_t chunk_bytes)
      : slots_(slots), chunks_(chunks), nchunks_(nchunks), chunk_bytes_(chunk_bytes) {}

  /// Copies filled chunks to dst (up to `bytes`, the rest of the current message); returns bytes copied.
  /// `streaming`: with non-temporal stores (a large message, see copy.hpp).
  std::size_t pop(char* dst, std::size_t bytes, bool streaming = false) {
    return consume(bytes, [&](const char* chunk, std::size_t at, std::size_t n) {
      if (streaming) {
        copy_streaming(dst + at, chunk, n);
      } else {
        copy_bulk(dst + at, chunk, n);
      }
    });
  }
  /// Hands filled chunks (up to `bytes`) to use(chunk, offset from this call's start, n) in order,
  /// freeing each after; returns the bytes consumed. Chunks are full except a message's last.
  template <class Use>
  std::size_t consume(std::size_t bytes, const Use& use) {
    std::size_t done = 0;
    while (done < bytes) {
      BulkSlot& slot = slots_[next_];
      std::uint64_t n = slot.filled.load(std::memory_order_acquire);
      if (n == 0) break;
      use(static_cast<const char*>(chunks_ + std::size_t(next_) * chunk_bytes_), done, std::size_t(n));
      slot.filled.store(0, std::memory_order_release);
      next_ = next_ + 1 == nchunks_ ? 0 : next_ + 1;
      done += n;
    }
    return done;
  }
  [[nodiscard]] std::uint32_t chunk_bytes() const { return chunk_bytes_; }

 private:
  BulkSlot* slots_ = nullptr;
  char* chunks_ = nullptr;
  std::uint32_t nchunks_ = 0;
  std::uint32_t chunk_bytes_ = 0;
  std::uint32_t next_ = 0;
};

}  // namespace takyon::mpi::shm
