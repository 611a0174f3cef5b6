// SPDX-License-Identifier: MIT
// Matched probes: MPI_Mprobe / MPI_Improbe take the message they find out of matching
// (Engine::take_unexpected) into an MPI_Message, and only MPI_Mrecv / MPI_Imrecv given that handle
// receive it. (MPI_Probe then MPI_Recv may receive another message: a receive posted in between, by
// another thread or a library, can take the probed one.) A synchronous or rendezvous sender is
// answered only when the message is received, as for any unexpected message.
#include <memory>
#include <unordered_set>

#include "api/common.hpp"
#include "api/export.hpp"
#include "pt2pt/engine.hpp"
#include "pt2pt/matching.hpp"

namespace takyon::mpi {
namespace {

/// What an MPI_Message handle points to: the message and the communicator it was probed on.
struct Message {
  std::unique_ptr<Unexpected> u;
  MPI_Comm comm = MPI_COMM_NULL;
};

/// The messages probed and not yet received: a handle is checked against this set before use, so a
/// garbage handle, or one already received, is an error and never dereferenced.
std::unordered_set<Message*>& live() {
  static std::unordered_set<Message*> set;
  return set;
}

MPI_Message message_handle(Message* m) {
  return reinterpret_cast<MPI_Message>(m);
}

/// A probed message's handle, its status filled in as a probe's.
MPI_Message keep(std::unique_ptr<Unexpected> u, const P2pArgs& a, MPI_Comm comm, MPI_Status* status) {
  set_probe_status(status, *a.comm, u->source, u->tag, u->bytes);
  auto m = std::make_unique<Message>();
  m->u = std::move(u);
  m->comm = comm;
  live().insert(m.get());
  return message_handle(m.release());
}

/// The communicator an MPI_Mrecv / MPI_Imrecv raises its errors on: the message's, else (no valid
/// message) MPI_COMM_WORLD's, as for other calls without a communicator.
MPI_Comm comm_of(const MPI_Message* message) {
  if (message == nullptr) return MPI_COMM_WORLD;
  auto* m = reinterpret_cast<Message*>(*message);
  return live().count(m) != 0 ? m->comm : MPI_COMM_WORLD;
}

/// Checks the arguments of MPI_Mrecv / MPI_Imrecv: the message behind *message (still live and
/// still the caller's), with its receive's arguments in `a`. For MPI_MESSAGE_NO_PROC (a matched probe
/// of MPI_PROC_NULL): nullptr, and `a` a receive from MPI_PROC_NULL. Throws MpiError for anything else.
Message* find(const char* fn, void* buf, int count, MPI_Datatype dt, const MPI_Message* message, P2pArgs& a) {
  if (message == nullptr) fail(MPI_ERR_ARG, fn, "message is NULL (argument message)");
  if (*message == MPI_MESSAGE_NO_PROC) {
    a = check_recv(fn, buf, count, dt, MPI_PROC_NULL, 0, MPI_COMM_SELF);  // count and datatype still checked
    return nullptr;
  }
  if (*message == MPI_MESSAGE_NULL) {
    fail(MPI_ERR_REQUEST, fn, "the message is MPI_MESSAGE_NULL (already received, or none was matched)");
  }
  auto* m = reinterpret_cast<Message*>(*message);
  if (live().count(m) == 0) {
    fail(MPI_ERR_REQUEST, fn,
         "the message is not one MPI_Mprobe or MPI_Improbe returned, or it was received already");
  }
  const CommInfo& c = check_comm(m->comm, fn);
  a = check_recv(fn, buf, count, dt, from_world(c, m->u->source), m->u->tag, m->comm);
  return m;
}

/// The receive of the message behind *message (`m` from find(), nullptr for MPI_MESSAGE_NO_PROC),
/// started; *message becomes MPI_MESSAGE_NULL. The request is made first: if that throws (no memory for
/// a packed receive's buffer), the message and the caller's handle stay as they were, to receive later
/// (a rendezvous sender would otherwise wait for ever for an answer).
Request* start(const P2pArgs& a, void* buf, MPI_Datatype dt, Message* m, MPI_Message* message) {
  Request* r = make_recv(a, buf, dt);
  *message = MPI_MESSAGE_NULL;
  if (m == nullptr) {
    engine().start_recv(r);  // a receive from MPI_PROC_NULL: complete at once
    return r;
  }
  live().erase(m);
  std::unique_ptr<Message> owned(m);
  engine().start_matched_recv(r, std::move(owned->u));
  return r;
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                            MPI_Status* status) {
  return guarded("MPI_Improbe", comm, [&] {
    P2pArgs a = check_probe("MPI_Improbe", source, tag, comm);
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Improbe", "flag is NULL (argument flag)");
    if (message == nullptr) fail(MPI_ERR_ARG, "MPI_Improbe", "message is NULL (argument message)");
    if (a.null_proc) {
      *flag = 1;
      *message = MPI_MESSAGE_NO_PROC;
      set_proc_null_status(status);
      return MPI_SUCCESS;
    }
    Engine& e = engine();
    auto u = e.take_unexpected(a.comm->ctx, a.world_peer, a.tag);
    if (u == nullptr) {
      e.progress();
      u = e.take_unexpected(a.comm->ctx, a.world_peer, a.tag);
    }
    *flag = u != nullptr ? 1 : 0;
    if (u != nullptr) *message = keep(std::move(u), a, comm, status);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Improbe)

extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return guarded("MPI_Mprobe", comm, [&] {
    P2pArgs a = check_probe("MPI_Mprobe", source, tag, comm);
    if (message == nullptr) fail(MPI_ERR_ARG, "MPI_Mprobe", "message is NULL (argument message)");
    if (a.null_proc) {
      *message = MPI_MESSAGE_NO_PROC;
      set_proc_null_status(status);
      return MPI_SUCCESS;
    }
    Engine& e = engine();
    std::unique_ptr<Unexpected> u;
    e.wait_until([&] {
      u = e.take_unexpected(a.comm->ctx, a.world_peer, a.tag);
      return u != nullptr;
    });
    *message = keep(std::move(u), a, comm, status);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Mprobe)

extern "C" int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                          MPI_Status* status) {
  return guarded("MPI_Mrecv", comm_of(message), [&] {
    P2pArgs a;
    Message* m = find("MPI_Mrecv", buf, count, datatype, message, a);
    if (m == nullptr) {
      *message = MPI_MESSAGE_NULL;
      set_proc_null_status(status);
      return MPI_SUCCESS;
    }
    return finish_blocking_recv("MPI_Mrecv", start(a, buf, datatype, m, message), status);
  });
}
TAKYON_MPI_WEAK_ALIAS(Mrecv)

extern "C" int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                           MPI_Request* request) {
  return guarded("MPI_Imrecv", comm_of(message), [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Imrecv", "request is NULL (argument request)");
    P2pArgs a;
    Message* m = find("MPI_Imrecv", buf, count, datatype, message, a);
    *request = to_handle(start(a, buf, datatype, m, message));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Imrecv)
