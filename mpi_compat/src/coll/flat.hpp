// SPDX-License-Identifier: MIT
// Flat node-local collectives (Open MPI coll/sm, MPICH's shm release/gather): on a communicator whose
// ranks all share this node's memory, a small blocking collective moves no message. Every rank owns,
// per context slot below shm::kFlatSlots, a control line and two data buffers in its inbox
// (shm::FlatArea); a collective is an epoch e of the communicator: a rank writes its data for e into
// buffer e & 1 (up to shm::kFlatInline bytes: into the control line itself), then stores "entered e" in
// its control line (release); readers wait for the writers' lines (acquire) and copy or reduce.
//
// Buffer reuse: a rank overwrites buffer b only when every member has entered the epoch after the one
// it last published in b (having entered e + 1, a member has read everything of e). Sequence values
// only grow; a communicator learns each member's value at its first flat collective (a point-to-point
// exchange) and counts its epochs from there, so values left by a freed communicator of the same slot
// never satisfy a wait. MPI_Comm_free waits for nobody: it announces that this rank is done (release()),
// and a rank whose buffers others may still read does not offer the slot for a new communicator until
// they have announced too or finalized (slot_reusable), so nobody reads a new communicator's data as a
// freed one's. Readers check the epoch and collective of what they read (out-of-step ranks get an
// error, not another collective's data).
// One rank: the same code on a process-local area. Waiting: poll, progressing the engine (nonblocking
// operations and other ranks' traffic move meanwhile), Backoff (yields at once when oversubscribed),
// and a dead peer is an error (Engine::check_peers), never a hang.
// Buffers here are packed bytes (coll/flat_select.cpp packs derived datatypes); the caller has checked
// the arguments. Single-threaded: the MPI thread only.
#pragma once

#include <cstddef>

#include "coll/algorithms.hpp"
#include "comm/comm.hpp"

namespace takyon::mpi::flat {

/// Whether `c`'s collectives can run flat: its context slot is below shm::kFlatSlots and it has one
/// rank or every member's inbox is mapped here. The same answer on every member.
[[nodiscard]] bool usable(const CommInfo& c);
/// The most bytes one rank may publish in one collective on `c` (bcast: the message; reduce,
/// allreduce: the vector; gather, allgather: a block; scatter, alltoall: p blocks): 256 KiB in the
/// lowest context slots (shm::kFlatBigSlots) of multi-rank communicators, 4 KiB otherwise.
[[nodiscard]] std::size_t max_publish(const CommInfo& c);

void barrier(CommInfo& c, const char* fn);
/// `buf`: the root's data in, every other rank's out.
void bcast(CommInfo& c, const char* fn, char* buf, std::size_t bytes, int root);
/// Rank-ordered (x0 op x1 op ... op x{p-1}, the same bits on every rank; any op). `recv`: the root's,
/// or every rank's when `all`; `send` may equal `recv`. An allreduce of more than 8 KiB (and at least
/// p items) takes two epochs: each rank reduces its 1/p of the items and publishes that share.
void reduce(CommInfo& c, const char* fn, const char* send, char* recv, const ReduceSpec& r, int root,
            bool all);
/// `recv` (root): p blocks; the root's own block is copied from `send` unless `send` is null (in place).
void gather(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block, int root);
/// `send` (root): p blocks; `recv` null at the root: in place.
void scatter(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block, int root);
/// `send` null: in place (the own block is already in `recv`).
void allgather(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block);
/// `send` may equal `recv` (in place): p blocks each.
void alltoall(CommInfo& c, const char* fn, const char* send, char* recv, std::size_t block);

/// MPI_Comm_free (release_comm): if `c` ran flat collectives, announces that this rank is done with
/// them (no wait) and forgets it.
void release(CommInfo& c);
/// Whether this rank may offer context slot `slot` for a new communicator: no member of a freed
/// communicator of the slot may still read this rank's flat buffers (free_slots asks).
[[nodiscard]] bool slot_reusable(int slot);

}  // namespace takyon::mpi::flat
