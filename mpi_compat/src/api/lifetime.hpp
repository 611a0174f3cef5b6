// SPDX-License-Identifier: MIT
// Who holds the MPI runtime of this process: the world model (MPI_Init .. MPI_Finalize) and each live
// MPI_Session. The runtime starts with the first holder and ends with the last: a session may start
// before MPI_Init and outlive MPI_Finalize, and MPI_Init after MPI_Session_init joins the running
// runtime. Once the last holder has let go, the runtime cannot start again in this process.
#pragma once

namespace takyon::mpi {

/// MPI_Init / MPI_Init_thread: starts the runtime unless a session holds it; returns the thread
/// level provided. Throws MpiError naming `fn` when called twice or after MPI_Finalize.
int start_world_model(const char* fn, int required);
/// Throws MpiError naming `fn` unless MPI_Init has returned and MPI_Finalize has not been called.
void check_world_model(const char* fn);
/// MPI_Finalize (after MPI_COMM_SELF's attributes are deleted): ends the world model, and the
/// runtime with it unless a session still holds it.
void end_world_model(const char* fn);
/// MPI_Initialized / MPI_Finalized: whether MPI_Init / MPI_Finalize returned (sessions do not count).
[[nodiscard]] bool world_model_started_ever();
[[nodiscard]] bool world_model_ended();

/// MPI_Session_init: starts the runtime unless it runs; returns the thread level provided. Throws
/// MpiError naming `fn` once the runtime has ended.
int start_session(const char* fn, int required);
/// MPI_Session_finalize: one holder fewer; the last one ends the runtime.
void end_session(const char* fn);

}  // namespace takyon::mpi
