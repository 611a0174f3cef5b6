// SPDX-License-Identifier: MIT
// Sessions (MPI-4): MPI_Session_init/finalize, the process sets mpi://WORLD and mpi://SELF, groups
// from them, communicators from groups (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups),
// and sessions' error handlers.
// A session holds the runtime as the world model does (api/lifetime.hpp): it may start before
// MPI_Init and outlive MPI_Finalize.
// MPI_Comm_create_from_group is collective over the group alone, with no parent communicator: its
// creation exchange runs in MPI_COMM_WORLD's group-creation context (where MPI_Comm_create_group on
// MPI_COMM_WORLD runs too) under a negative tag derived from the string tag, so it never meets a
// program's MPI_Comm_create_group (tags >= 0) nor a creation with another string tag; the records
// carry the whole tag's hash and length, so members passing different tags fail alike.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/common.hpp"
#include "api/export.hpp"
#include "api/info.hpp"
#include "api/lifetime.hpp"
#include "coll/comm_create.hpp"
#include "comm/group.hpp"

namespace takyon::mpi {
namespace {

constexpr const char* kWorldPset = "mpi://WORLD";
constexpr const char* kSelfPset = "mpi://SELF";
constexpr const char* kPsets[] = {kWorldPset, kSelfPset};
constexpr int kPsetCount = 2;

/// A live session: its error handler (kept whatever the program frees, as a communicator keeps its
/// own) and the thread level it was given.
struct Session {
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  int thread_level = MPI_THREAD_SINGLE;
};

// Live sessions by handle (the MPI thread only); a finalized session's handle is erased, so a stale
// handle is refused, never dereferenced.
std::unordered_map<const void*, std::unique_ptr<Session>>& sessions() {
  static std::unordered_map<const void*, std::unique_ptr<Session>> live;
  return live;
}

Session* find_session(MPI_Session s) {
  auto it = sessions().find(reinterpret_cast<const void*>(s));
  return it != sessions().end() ? it->second.get() : nullptr;
}

Session& check_session(MPI_Session s, const char* fn) {
  Session* session = find_session(s);
  if (session == nullptr) {
    fail(MPI_ERR_SESSION, fn,
         s == MPI_SESSION_NULL ? "MPI_SESSION_NULL (argument session)"
                               : "invalid session (argument session: not a live session)");
  }
  return *session;
}

/// Runs a session call's `body`; errors go to the session's handler (MPI_ERRORS_ARE_FATAL for a
/// handle that is no live session).
template <class Body>
int session_guarded(const char* fn, MPI_Session s, const Body& body) noexcept {
  return guarded_with(
      fn,
      [s](int error_class, const std::string& message) {
        Session* session = find_session(s);
        return raise_session_error(s, session != nullptr ? session->errhandler : MPI_ERRORS_ARE_FATAL,
                                   error_class, message);
      },
      body);
}

/// The "thread_level" hint of MPI_Session_init's info (MPI_THREAD_SINGLE without one).
int requested_thread_level(MPI_Info info, const char* fn) {
  if (info == MPI_INFO_NULL) return MPI_THREAD_SINGLE;
  char value[MPI_MAX_INFO_VAL] = {};
  int len = MPI_MAX_INFO_VAL;
  int flag = 0;
  if (PMPI_Info_get_string(info, "thread_level", &len, value, &flag) != MPI_SUCCESS || flag == 0) {
    return MPI_THREAD_SINGLE;
  }
  for (int level : {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE}) {
    if (std::string_view(value) == thread_level_name(level)) return level;
  }
  fail(MPI_ERR_INFO_VALUE, fn,
       std::string("info key thread_level is '") + value +
           "' (argument info: MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED or "
           "MPI_THREAD_MULTIPLE)");
}

/// A new info object holding `key` = `value`.
MPI_Info info_with(const char* key, const std::string& value, const char* fn) {
  MPI_Info info = MPI_INFO_NULL;
  if (PMPI_Info_create(&info) != MPI_SUCCESS || PMPI_Info_set(info, key, value.c_str()) != MPI_SUCCESS) {
    fail(MPI_ERR_INTERN, fn, "could not build the info object");
  }
  return info;
}

/// The world ranks of process set `name`; throws MPI_ERR_ARG naming `fn` for an unknown name.
std::vector<int> pset_members(const char* name, const char* fn) {
  if (name == nullptr) fail(MPI_ERR_ARG, fn, "pset_name is NULL (argument pset_name)");
  if (std::strcmp(name, kWorldPset) == 0) {
    std::vector<int> world(std::size_t(engine().size()));
    for (std::size_t i = 0; i < world.size(); ++i) world[i] = int(i);
    return world;
  }
  if (std::strcmp(name, kSelfPset) == 0) return {engine().rank()};
  fail(MPI_ERR_ARG, fn,
       std::string("unknown process set '") + name + "' (argument pset_name: mpi://WORLD or mpi://SELF)");
}

// --- MPI_Comm_create_from_group ---------------------------------------------------------------------

constexpr std::int32_t kCreateFromGroupOp = 6;  // distinct from api/comm.cpp's CreateOp values

struct FromGroupRecord {
  std::int32_t op;
  std::int32_t error_class;
  std::uint64_t tag_hash;
  std::uint64_t tag_len;
  CtxMask mask;
};

const char* from_group_op_name(std::int32_t op) {
  return op == kCreateFromGroupOp ? "MPI_Comm_create_from_group" : "another communicator constructor";
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

/// The exchange's tag: negative (user tags are >= 0) and never MPI_ANY_TAG's internal -1.
int internal_tag(std::uint64_t tag_hash) {
  return -2 - int(tag_hash % (std::uint64_t{1} << 30));
}

MPI_Comm create_from_group(const Group& g, std::string_view tag, MPI_Errhandler errhandler,
                           const std::optional<MpiError>& local, const char* fn) {
  CommInfo& world = *find_comm(MPI_COMM_WORLD);
  const int me = group_rank_of(g, engine().rank());
  FromGroupRecord mine{};
  mine.op = kCreateFromGroupOp;
  mine.tag_hash = fnv1a(tag);
  mine.tag_len = tag.size();
  offerable_slots(mine.mask);
  auto recs = exchange_records(world, g.ranks, me, group_ctx(world), internal_tag(mine.tag_hash), mine, local,
                               fn, from_group_op_name);
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].tag_hash != mine.tag_hash || recs[i].tag_len != mine.tag_len) {
      fail(MPI_ERR_ARG, fn,
           "world rank " + std::to_string(g.ranks[i]) + " passed another string tag (argument stringtag)");
    }
  }
  std::vector<int> idx(g.ranks.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = int(i);
  int slot = agree_slot(recs, idx, fn);
  return register_comm(g.ranks, slot, errhandler).handle;
}

/// The errors of a call that makes a communicator from groups go to the error handler it is given,
/// which the new communicator keeps (MPI_COMM_SELF's when it is no communicator handler).
auto raise_on(MPI_Errhandler errhandler) {
  UserErrhandler* user = find_user_errhandler(errhandler);
  const bool usable = errhandler == MPI_ERRORS_RETURN || errhandler == MPI_ERRORS_ARE_FATAL ||
                      errhandler == MPI_ERRORS_ABORT || (user != nullptr && user->fn != nullptr);
  return [usable, errhandler](int error_class, const std::string& message) {
    return usable ? raise_with_errhandler(errhandler, MPI_COMM_SELF, error_class, message)
                  : raise_error(MPI_COMM_SELF, error_class, message);
  };
}

std::string_view check_stringtag(const char* stringtag, const char* fn) {
  if (stringtag == nullptr) fail(MPI_ERR_ARG, fn, "stringtag is NULL (argument stringtag)");
  const std::size_t tag_len = strnlen(stringtag, MPI_MAX_STRINGTAG_LEN);
  if (tag_len >= MPI_MAX_STRINGTAG_LEN) {
    fail(MPI_ERR_ARG, fn,
         "stringtag has " + std::to_string(MPI_MAX_STRINGTAG_LEN) +
             " characters or more (argument stringtag; MPI_MAX_STRINGTAG_LEN)");
  }
  return {stringtag, tag_len};
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  constexpr const char* fn = "MPI_Session_init";
  // Errors go to the handler the call names, when it is one a session may have.
  UserErrhandler* user = find_user_errhandler(errhandler);
  const bool usable = errhandler == MPI_ERRORS_RETURN || errhandler == MPI_ERRORS_ABORT ||
                      (user != nullptr && user->session_fn != nullptr && user->handles > 0);
  MPI_Errhandler handler = usable ? errhandler : MPI_ERRORS_ARE_FATAL;
  return guarded_with(
      fn,
      [handler](int error_class, const std::string& message) {
        return raise_session_error(MPI_SESSION_NULL, handler, error_class, message);
      },
      [&] {
        if (session == nullptr) fail(MPI_ERR_ARG, fn, "session is NULL (argument session)");
        check_settable_errhandler(errhandler, true, fn);
        check_info_arg(info, fn);
        const int required = requested_thread_level(info, fn);
        auto s = std::make_unique<Session>();
        s->errhandler = errhandler;
        s->thread_level = start_session(fn, required);
        *session = reinterpret_cast<MPI_Session>(s.get());
        sessions().emplace(s.get(), std::move(s));
        return MPI_SUCCESS;
      });
}
TAKYON_MPI_WEAK_ALIAS(Session_init)

extern "C" int PMPI_Session_finalize(MPI_Session* session) {
  constexpr const char* fn = "MPI_Session_finalize";
  return session_guarded(fn, session != nullptr ? *session : MPI_SESSION_NULL, [&] {
    if (session == nullptr) fail(MPI_ERR_ARG, fn, "session is NULL (argument session)");
    Session& s = check_session(*session, fn);
    sessions().erase(&s);
    *session = MPI_SESSION_NULL;
    end_session(fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_finalize)

extern "C" int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  constexpr const char* fn = "MPI_Session_get_num_psets";
  return session_guarded(fn, session, [&] {
    check_session(session, fn);
    check_info_arg(info, fn);
    if (npset_names == nullptr) fail(MPI_ERR_ARG, fn, "npset_names is NULL (argument npset_names)");
    *npset_names = kPsetCount;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_get_num_psets)

extern "C" int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                                         char* pset_name) {
  constexpr const char* fn = "MPI_Session_get_nth_pset";
  return session_guarded(fn, session, [&] {
    check_session(session, fn);
    check_info_arg(info, fn);
    if (n < 0 || n >= kPsetCount) {
      fail(
          MPI_ERR_ARG, fn,
          "no process set " + std::to_string(n) + " (argument n: 0.." + std::to_string(kPsetCount - 1) + ")");
    }
    if (pset_len == nullptr) fail(MPI_ERR_ARG, fn, "pset_len is NULL (argument pset_len)");
    if (*pset_len < 0) fail(MPI_ERR_ARG, fn, "pset_len is negative (argument pset_len)");
    const std::string_view name = kPsets[n];
    if (*pset_len > 0) {  // 0: only the length is asked for; else truncated, always terminated
      if (pset_name == nullptr) fail(MPI_ERR_ARG, fn, "pset_name is NULL (argument pset_name)");
      const std::size_t copy = std::min(name.size(), std::size_t(*pset_len - 1));
      std::memcpy(pset_name, name.data(), copy);
      pset_name[copy] = '\0';
    }
    *pset_len = int(name.size()) + 1;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_get_nth_pset)

extern "C" int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  constexpr const char* fn = "MPI_Session_get_info";
  return session_guarded(fn, session, [&] {
    const Session& s = check_session(session, fn);
    if (info_used == nullptr) fail(MPI_ERR_ARG, fn, "info_used is NULL (argument info_used)");
    *info_used = info_with("thread_level", thread_level_name(s.thread_level), fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_get_info)

extern "C" int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  constexpr const char* fn = "MPI_Session_get_pset_info";
  return session_guarded(fn, session, [&] {
    check_session(session, fn);
    const std::vector<int> members = pset_members(pset_name, fn);
    if (info == nullptr) fail(MPI_ERR_ARG, fn, "info is NULL (argument info)");
    *info = info_with("mpi_size", std::to_string(members.size()), fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_get_pset_info)

extern "C" int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  constexpr const char* fn = "MPI_Group_from_session_pset";
  return session_guarded(fn, session, [&] {
    check_session(session, fn);
    std::vector<int> members = pset_members(pset_name, fn);
    if (newgroup == nullptr) fail(MPI_ERR_ARG, fn, "newgroup is NULL (argument newgroup)");
    *newgroup = new_group(std::move(members));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Group_from_session_pset)

extern "C" int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                           MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Comm_create_from_group";
  return guarded_with(fn, raise_on(errhandler), [&] {
    check_initialized(fn);
    // Checked at once, alike on every member (a bad group would make the exchange wait for
    // processes that are not calling).
    const Group& g = check_group(group, fn, "group");
    if (group == MPI_GROUP_EMPTY || group_rank_of(g, engine().rank()) == MPI_UNDEFINED) {
      fail(MPI_ERR_GROUP, fn, "this process is not a member of the group (argument group)");
    }
    const std::string_view tag = check_stringtag(stringtag, fn);
    // Local mistakes: this member still takes part in the exchange, so every member fails.
    std::optional<MpiError> local;
    MPI_Errhandler handler = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    try {
      check_info_arg(info, fn);
      check_settable_errhandler(handler, false, fn);
      if (newcomm == nullptr) fail(MPI_ERR_ARG, fn, "newcomm is NULL (argument newcomm)");
    } catch (const MpiError& e) {
      local = e;
    }
    MPI_Comm comm = create_from_group(g, tag, handler, local, fn);
    *newcomm = comm;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_create_from_group)

extern "C" int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                                 MPI_Group remote_group, int remote_leader,
                                                 const char* stringtag, MPI_Info info,
                                                 MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  constexpr const char* fn = "MPI_Intercomm_create_from_groups";
  // Built from the parts MPI_Intercomm_create needs: a communicator of the local group, and between
  // the two leaders one of just them (each made from its group as MPI_Comm_create_from_group does,
  // under tags derived from the string tag, so the two groups' creations never meet).
  return guarded_with(fn, raise_on(errhandler), [&] {
    check_initialized(fn);
    const Group& local = check_group(local_group, fn, "local_group");
    const Group& remote = check_group(remote_group, fn, "remote_group");
    if (group_rank_of(local, engine().rank()) == MPI_UNDEFINED) {
      fail(MPI_ERR_GROUP, fn, "this process is not a member of the local group (argument local_group)");
    }
    const int nl = int(local.ranks.size());
    const int nr = int(remote.ranks.size());
    if (local_leader < 0 || local_leader >= nl) {
      fail(MPI_ERR_RANK, fn,
           "invalid local_leader " + std::to_string(local_leader) + " (local group size " +
               std::to_string(nl) + ")");
    }
    if (remote_leader < 0 || remote_leader >= nr) {
      fail(MPI_ERR_RANK, fn,
           "invalid remote_leader " + std::to_string(remote_leader) + " (remote group size " +
               std::to_string(nr) + ")");
    }
    // Every member has both groups, so each refuses overlapping ones itself: nobody waits.
    std::vector<int> a = local.ranks, b = remote.ranks, both;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
    if (!both.empty()) {
      fail(MPI_ERR_GROUP, fn,
           "the local and remote groups overlap (world rank " + std::to_string(both.front()) +
               " is in both; arguments local_group, remote_group)");
    }
    const std::string tag(check_stringtag(stringtag, fn));
    check_info_arg(info, fn);
    MPI_Errhandler handler = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    check_settable_errhandler(handler, false, fn);
    if (newintercomm == nullptr) fail(MPI_ERR_ARG, fn, "newintercomm is NULL (argument newintercomm)");
    const std::optional<MpiError> none;
    MPI_Comm local_comm = create_from_group(local,
                                            tag +
                                                "\x1f"
                                                "local",
                                            MPI_ERRORS_RETURN, none, fn);
    MPI_Comm peer_comm = MPI_COMM_NULL;
    int remote_in_peer = 0;
    const int me = engine().rank();
    const int lw = local.ranks[std::size_t(local_leader)];
    const int rw = remote.ranks[std::size_t(remote_leader)];
    if (me == lw) {
      Group leaders{{std::min(lw, rw), std::max(lw, rw)}};
      peer_comm = create_from_group(leaders,
                                    tag +
                                        "\x1f"
                                        "leaders",
                                    MPI_ERRORS_RETURN, none, fn);
      remote_in_peer = rw < lw ? 0 : 1;
    }
    int rc = PMPI_Intercomm_create(local_comm, local_leader, me == lw ? peer_comm : MPI_COMM_NULL,
                                   remote_in_peer, 0, newintercomm);
    if (peer_comm != MPI_COMM_NULL) PMPI_Comm_free(&peer_comm);
    PMPI_Comm_free(&local_comm);
    if (rc != MPI_SUCCESS) {
      fail(rc, fn, "creating the intercommunicator failed (" + last_error_detail(rc) + ")");
    }
    PMPI_Comm_set_errhandler(*newintercomm, handler);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Intercomm_create_from_groups)

extern "C" int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                              MPI_Errhandler* errhandler) {
  constexpr const char* fn = "MPI_Session_create_errhandler";
  return guarded(fn, MPI_COMM_SELF, [&] {
    if (session_errhandler_fn == nullptr) fail(MPI_ERR_ARG, fn, "the function is NULL");
    if (errhandler == nullptr) fail(MPI_ERR_ARG, fn, "errhandler is NULL (argument errhandler)");
    *errhandler = create_session_errhandler(session_errhandler_fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_create_errhandler)

extern "C" int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  constexpr const char* fn = "MPI_Session_set_errhandler";
  return session_guarded(fn, session, [&] {
    Session& s = check_session(session, fn);
    check_settable_errhandler(errhandler, true, fn);
    s.errhandler = errhandler;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_set_errhandler)

extern "C" int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  constexpr const char* fn = "MPI_Session_get_errhandler";
  return session_guarded(fn, session, [&] {
    const Session& s = check_session(session, fn);
    if (errhandler == nullptr) fail(MPI_ERR_ARG, fn, "errhandler is NULL (argument errhandler)");
    *errhandler = s.errhandler;
    if (UserErrhandler* user = find_user_errhandler(s.errhandler)) ++user->handles;  // a new handle
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_get_errhandler)

extern "C" int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  constexpr const char* fn = "MPI_Session_call_errhandler";
  return session_guarded(fn, session, [&] {
    const Session& s = check_session(session, fn);
    raise_session_error(session, s.errhandler, errorcode,
                        std::string(fn) + ": error code " + std::to_string(errorcode));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Session_call_errhandler)
