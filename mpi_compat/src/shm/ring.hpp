// SPDX-License-Identifier: MIT
// Single-producer single-consumer ring of fixed cells in shared memory. The producer keeps its count
// privately and stamps each cell's seq with count+1 (release); the consumer polls the seq of the cell
// it expects and returns cells through RingControl::consumed, which the producer reads only when its
// cached view says the ring is full.
#pragma once

#include <cstddef>

#include "shm/layout.hpp"

namespace takyon::mpi::shm {

class RingProducer {
 public:
  RingProducer() = default;
  RingProducer(char* cells, RingControl* control, std::uint32_t ncells, std::uint32_t cell_bytes)
      : cells_(cells), control_(control), mask_(ncells - 1), cell_bytes_(cell_bytes) {}

  /// The next free cell, or nullptr when the consumer has not returned any yet.
  CellHeader* try_acquire() {
    if (head_ - cached_consumed_ > mask_) {
      cached_consumed_ = control_->consumed.load(std::memory_order_acquire);
      if (head_ - cached_consumed_ > mask_) return nullptr;
    }
    return reinterpret_cast<CellHeader*>(cells_ + std::size_t(head_ & mask_) * cell_bytes_);
  }
  /// Hands the cell from try_acquire() to the consumer: everything written before is visible to it.
  void publish(CellHeader* cell) {
    ++head_;
    cell->seq.store(head_, std::memory_order_release);
    demote_line(cell);
  }
  [[nodiscard]] std::uint32_t payload_capacity() const {
    return cell_bytes_ - std::uint32_t(sizeof(CellHeader));
  }
  [[nodiscard]] bool valid() const { return cells_ != nullptr; }
  /// Starts taking the lines of the cell after the next one for writing (PREFETCHW), so that a
  /// stream of sends does not wait for each cell's lines to come back from the consumer's cache one
  /// at a time: small windowed sends go out at a markedly higher rate. Not for a ping-pong, where
  /// the consumer polls these lines and the prefetch slows each hop (Engine::stream_hint decides).
  /// `bytes`: the payload just sent; as many lines of that cell as such a message fills are taken
  /// (a window's messages tend to have one size), at most kPrefetchLines.
  void prefetch_ahead(std::size_t bytes = 0) const {
    const char* cell = cells_ + std::size_t((head_ + 1) & mask_) * cell_bytes_;
    std::size_t lines = (sizeof(CellHeader) + bytes + 63) / 64;
    if (lines > kPrefetchLines) lines = kPrefetchLines;
    for (std::size_t i = 0; i < lines; ++i) {
      const char* line = cell + 64 * i;
#if defined(__x86_64__)
      asm volatile("prefetchw %0" : : "m"(*line));
#else
      __builtin_prefetch(line, 1, 3);
#endif
    }
  }
  static constexpr std::size_t kPrefetchLines = 16;

 private:
  char* cells_ = nullptr;
  RingControl* control_ = nullptr;
  std::uint32_t mask_ = 0;
  std::uint32_t cell_bytes_ = 0;
  std::uint32_t head_ = 0;
  std::uint32_t cached_consumed_ = 0;
};

class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(char* cells, RingControl* control, std::uint32_t ncells, std::uint32_t cell_bytes)
      : cells_(cells), control_(control), mask_(ncells - 1), cell_bytes_(cell_bytes) {}

  /// The oldest published cell not yet released, or nullptr.
  [[nodiscard]] const CellHeader* peek() const {
    auto* cell = reinterpret_cast<const CellHeader*>(cells_ + std::size_t(tail_ & mask_) * cell_bytes_);
    return cell->seq.load(std::memory_order_acquire) == tail_ + 1 ? cell : nullptr;
  }
  /// Cells taken so far.
  [[nodiscard]] std::uint32_t taken() const { return tail_; }
  /// Returns the cell from peek() to the producer.
  void release() {
    ++tail_;
    control_->consumed.store(tail_, std::memory_order_release);
  }
  [[nodiscard]] bool valid() const { return cells_ != nullptr; }

 private:
  char* cells_ = nullptr;
  RingControl* control_ = nullptr;
  std::uint32_t mask_ = 0;
  std::uint32_t cell_bytes_ = 0;
  std::uint32_t tail_ = 0;
};

}  // namespace takyon::mpi::shm
