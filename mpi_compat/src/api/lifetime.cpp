// SPDX-License-Identifier: MIT
// The holders of the MPI runtime (api/lifetime.hpp): the world model and the live sessions.
#include "api/lifetime.hpp"

#include "api/common.hpp"

namespace takyon::mpi {
namespace {

enum class WorldModel { kNotStarted, kActive, kEnded };

WorldModel g_world = WorldModel::kNotStarted;
int g_sessions = 0;

int start_runtime(const char* fn, int required) {
  if (runtime_active()) return thread_level();
  if (runtime_finalized()) {
    fail(MPI_ERR_OTHER, fn,
         "the MPI runtime of this process has ended (MPI_Finalize and every MPI_Session_finalize "
         "returned) and cannot start again");
  }
  int level = runtime_init(required);
  engine().on_freed_complete = &deliver;  // a freed packed receive still reaches the user's buffer
  return level;
}

/// Ends the runtime once no holder is left: buffered sends go out, and every rank keeps progressing
/// (delivering what others still receive) until all have arrived.
void release_runtime() {
  if (g_world == WorldModel::kActive || g_sessions > 0) return;
  wait_buffered_sends();
  barrier(*find_comm(MPI_COMM_WORLD));
  runtime_finalize();
}

}  // namespace

int start_world_model(const char* fn, int required) {
  if (g_world == WorldModel::kActive) fail(MPI_ERR_OTHER, fn, "called twice");
  if (g_world == WorldModel::kEnded) fail(MPI_ERR_OTHER, fn, "called after MPI_Finalize");
  int level = start_runtime(fn, required);
  g_world = WorldModel::kActive;
  return level;
}

void check_world_model(const char* fn) {
  if (g_world != WorldModel::kActive) {
    fail(MPI_ERR_OTHER, fn, g_world == WorldModel::kEnded ? "called twice" : "called before MPI_Init");
  }
}

void end_world_model(const char* fn) {
  check_world_model(fn);
  g_world = WorldModel::kEnded;
  release_runtime();
}

bool world_model_started_ever() {
  return g_world != WorldModel::kNotStarted;
}
bool world_model_ended() {
  return g_world == WorldModel::kEnded;
}

int start_session(const char* fn, int required) {
  int level = start_runtime(fn, required);
  ++g_sessions;
  return level;
}

void end_session(const char* /*fn*/) {
  --g_sessions;
  release_runtime();
}

}  // namespace takyon::mpi
