// SPDX-License-Identifier: MIT
// The channel interface: what the engine needs of the way to one peer, met by both kinds of channel,
// the shared-memory ring pair (shm::RingProducer / shm::RingConsumer, with the bulk pipeline beside
// it) and a Takyon path (PathChannel). Frames are cells (shm::CellHeader + payload) either way, so
// every protocol runs unchanged over both. The engine's send and receive code is written once, as
// templates over these concepts (engine_internal.hpp); the ring keeps its inline fast paths.
#pragma once

#include <concepts>
#include <cstdint>

#include "shm/layout.hpp"

namespace takyon::mpi {

/// The sending side: claim the next frame (nullptr while the peer holds every one: flow control),
/// fill it, publish it; frames arrive in publication order.
template <class C>
concept FrameProducer = requires(C c, shm::CellHeader* cell) {
  { c.try_acquire() } -> std::same_as<shm::CellHeader*>;
  c.publish(cell);
  { c.payload_capacity() } -> std::convertible_to<std::uint32_t>;
};

/// The receiving side: the next frame (nullptr if none), valid until release().
template <class C>
concept FrameConsumer = requires(C c) {
  { c.peek() } -> std::same_as<const shm::CellHeader*>;
  c.release();
};

}  // namespace takyon::mpi
