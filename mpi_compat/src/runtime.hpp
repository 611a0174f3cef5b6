// SPDX-License-Identifier: MIT
// The state of libtakyon_mpi between MPI_Init and MPI_Finalize: the bootstrap, the inbox segments
// of this rank and its node-local peers, and the point-to-point engine.
#pragma once

#include <string>

#include "pt2pt/engine.hpp"
#include "shm/layout.hpp"

namespace takyon::mpi {

/// MPI_Init / MPI_Init_thread: bootstraps, checks every rank is on this host, creates and maps
/// the inboxes. Throws MpiError. Returns the thread level provided.
int runtime_init(int required);
/// MPI_Finalize: bootstrap barrier, then tears everything down. Throws MpiError.
void runtime_finalize();
/// Ends the whole job with `code` (MPI_Abort, MPI_ERRORS_ARE_FATAL).
[[noreturn]] void abort_job(int code, const std::string& why);

[[nodiscard]] bool runtime_active();
[[nodiscard]] bool runtime_finalized();
[[nodiscard]] bool runtime_initialized_ever();
[[nodiscard]] int thread_level();
[[nodiscard]] bool is_thread_main();
/// This rank in MPI_COMM_WORLD, or -1 before MPI_Init (for messages).
[[nodiscard]] int world_rank_or_minus1();

/// The mapped inbox of `world_rank` (this rank's own included), nullptr where none is mapped (a peer
/// reached through a path, or a job whose ranks share no memory); only while runtime_active().
[[nodiscard]] void* inbox_of(int world_rank);
/// The geometry every inbox of the job has.
[[nodiscard]] const shm::InboxLayout& inbox_layout();
/// More ranks on this host than its CPUs, computed from the bootstrap records (this host's ranks,
/// the fewest CPUs any of them sees): the same answer on every rank that maps this rank's inbox, so
/// the flat collectives may choose by it. False before MPI_Init.
[[nodiscard]] bool node_oversubscribed();

namespace detail {
extern Engine* g_engine;
extern int g_world_size;  ///< MPI_COMM_WORLD's size and this rank in it: set by MPI_Init (the engine's)
extern int g_world_rank;
}  // namespace detail
/// The engine; only while runtime_active().
inline Engine& engine() {
  return *detail::g_engine;
}

}  // namespace takyon::mpi
