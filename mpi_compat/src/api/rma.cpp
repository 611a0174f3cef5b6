// SPDX-License-Identifier: MIT
// One-sided communication's entry points (rma/window.hpp has the model): window creation and end,
// memory queries, names, info, attributes and error handlers of windows, the operations and the
// synchronization calls. Errors in a window call go to the window's error handler (MPI_COMM_WORLD's
// for an invalid window); creation errors to the communicator's.
#include <atomic>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"
#include "api/info.hpp"
#include "attributes.hpp"
#include "datatype/datatype.hpp"
#include "rma/window.hpp"

namespace takyon::mpi {
namespace {

using rma::Kind;
using rma::OpArgs;
using rma::Window;

template <class Body>
int win_guarded(const char* fn, MPI_Win win, const Body& body) noexcept {
  return guarded_with(
      fn,
      [win](int error_class, const std::string& message) {
        const Window* w = rma::find_win(win);
        if (w == nullptr) return raise_error(MPI_COMM_WORLD, error_class, message);
        return raise_win_error(win, w->errhandler, error_class, message);
      },
      body);
}

std::size_t count_of(MPI_Count count, const char* fn, const char* arg) {
  if (count < 0)
    fail(MPI_ERR_COUNT, fn, "negative count " + std::to_string(count) + " (argument " + arg + ")");
  return std::size_t(count);
}

int create(const char* fn, int flavor, void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
           MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return guarded(fn, comm, [&] {
    if (win == nullptr) fail(MPI_ERR_ARG, fn, "win is NULL");
    if (flavor != MPI_WIN_FLAVOR_CREATE && flavor != MPI_WIN_FLAVOR_DYNAMIC && baseptr == nullptr) {
      fail(MPI_ERR_ARG, fn, "baseptr is NULL");
    }
    if (disp_unit > MPI_Aint(std::numeric_limits<int>::max()) && flavor != MPI_WIN_FLAVOR_DYNAMIC) {
      fail(MPI_ERR_DISP, fn,
           "disp_unit " + std::to_string(disp_unit) + " does not fit an int (MPI_WIN_DISP_UNIT)");
    }
    InfoEntries given;
    std::optional<MpiError> info_error;
    try {
      given = info_entries(info, fn);
    } catch (const MpiError& e) {
      info_error = e;
    }
    Window& w = rma::create_window(fn, flavor, base, size, disp_unit, given, info_error, comm);
    if (baseptr != nullptr && flavor != MPI_WIN_FLAVOR_CREATE && flavor != MPI_WIN_FLAVOR_DYNAMIC) {
      std::memcpy(baseptr, &w.base, sizeof(void*));
    }
    *win = w.handle;
    return MPI_SUCCESS;
  });
}

int shared_query(const char* fn, MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  return win_guarded(fn, win, [&] {
    Window& w = rma::check_win(win, fn);
    if (size == nullptr || disp_unit == nullptr || baseptr == nullptr) fail(MPI_ERR_ARG, fn, "NULL argument");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w.size)) {
      fail(MPI_ERR_RANK, fn,
           "invalid rank " + std::to_string(rank) + " (window of " + std::to_string(w.size) + ")");
    }
    void* p = nullptr;
    *size = 0;
    *disp_unit = 1;
    if (!w.bases
             .empty()) {  // every rank's memory is mapped here (shared, or an allocated window on one host)
      int r = rank;
      if (r == MPI_PROC_NULL) {  // the lowest rank with memory
        r = 0;
        while (r < w.size - 1 && w.sizes[std::size_t(r)] == 0) ++r;
      }
      *size = w.sizes[std::size_t(r)];
      *disp_unit = w.units[std::size_t(r)];
      p = *size > 0 ? w.bases[std::size_t(r)] : nullptr;  // no memory: NULL, as the standard has it
    } else if (rank == w.rank && w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {  // only this rank's own memory is here
      *size = w.bytes;
      *disp_unit = w.disp_unit;
      p = w.base;
    }
    std::memcpy(baseptr, &p, sizeof p);
    return MPI_SUCCESS;
  });
}

/// The operations' common body (inside their entry's guard): arguments checked by rma::issue.
int op_entry(const char* fn, MPI_Win win, const OpArgs& a, MPI_Request* request) {
  {
    Window& w = rma::check_win(win, fn);
    if (request != nullptr) *request = MPI_REQUEST_NULL;
    rma::issue(w, a, fn, request != nullptr);
    if (request != nullptr) {
      // Complete at return: data to send is packed at the call, and a reply has arrived.
      Request* r = engine().requests().acquire();
      r->kind = RequestKind::kColl;
      r->comm = &world_comm();
      r->datatype = MPI_BYTE;
      r->active = true;
      r->complete = true;
      *request = to_handle(r);
    }
    return MPI_SUCCESS;
  }
}

/// A request-based operation called with a NULL request.
int null_request(const char* fn, MPI_Win win) {
  return win_guarded(fn, win, [&]() -> int {
    rma::check_win(win, fn);
    fail(MPI_ERR_ARG, fn, "request is NULL (argument request)");
  });
}

OpArgs put_args(Kind kind, const void* origin, std::size_t ocount, MPI_Datatype otype, int target,
                MPI_Aint disp, std::size_t tcount, MPI_Datatype ttype) {
  OpArgs a;
  a.kind = kind;
  a.origin = origin;
  a.origin_count = ocount;
  a.origin_type = otype;
  a.target = target;
  a.disp = disp;
  a.target_count = tcount;
  a.target_type = ttype;
  return a;
}

int put(const char* fn, const void* origin, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
        MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  return win_guarded(fn, win, [&] {
    OpArgs a = put_args(Kind::kPut, origin, count_of(ocount, fn, "origin_count"), otype, target, disp,
                        count_of(tcount, fn, "target_count"), ttype);
    return op_entry(fn, win, a, request);
  });
}

int get(const char* fn, void* origin, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
        MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  return win_guarded(fn, win, [&] {
    OpArgs a =
        put_args(Kind::kGet, nullptr, 0, otype, target, disp, count_of(tcount, fn, "target_count"), ttype);
    a.result = origin;
    a.result_count = count_of(ocount, fn, "origin_count");
    a.result_type = otype;
    return op_entry(fn, win, a, request);
  });
}

int accumulate(const char* fn, const void* origin, MPI_Count ocount, MPI_Datatype otype, int target,
               MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
               MPI_Request* request) {
  return win_guarded(fn, win, [&] {
    OpArgs a = put_args(Kind::kAcc, origin, count_of(ocount, fn, "origin_count"), otype, target, disp,
                        count_of(tcount, fn, "target_count"), ttype);
    a.op = op;
    return op_entry(fn, win, a, request);
  });
}

int get_accumulate(const char* fn, const void* origin, MPI_Count ocount, MPI_Datatype otype, void* result,
                   MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp, MPI_Count tcount,
                   MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return win_guarded(fn, win, [&] {
    OpArgs a = put_args(Kind::kGetAcc, origin, count_of(ocount, fn, "origin_count"), otype, target, disp,
                        count_of(tcount, fn, "target_count"), ttype);
    a.result = result;
    a.result_count = count_of(rcount, fn, "result_count");
    a.result_type = rtype;
    a.op = op;
    return op_entry(fn, win, a, request);
  });
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

// ---- Windows -------------------------------------------------------------------------------------

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                               MPI_Win* win) {
  return create("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, nullptr, win);
}
TAKYON_MPI_WEAK_ALIAS(Win_create)

extern "C" int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                 MPI_Win* win) {
  return create("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, nullptr, win);
}
TAKYON_MPI_WEAK_ALIAS(Win_create_c)

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                 MPI_Win* win) {
  return create("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, info, comm, baseptr,
                win);
}
TAKYON_MPI_WEAK_ALIAS(Win_allocate)

extern "C" int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                   void* baseptr, MPI_Win* win) {
  return create("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, info, comm, baseptr,
                win);
}
TAKYON_MPI_WEAK_ALIAS(Win_allocate_c)

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                        void* baseptr, MPI_Win* win) {
  return create("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info, comm,
                baseptr, win);
}
TAKYON_MPI_WEAK_ALIAS(Win_allocate_shared)

extern "C" int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                          void* baseptr, MPI_Win* win) {
  return create("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info, comm,
                baseptr, win);
}
TAKYON_MPI_WEAK_ALIAS(Win_allocate_shared_c)

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1, info, comm, nullptr, win);
}
TAKYON_MPI_WEAK_ALIAS(Win_create_dynamic)

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  MPI_Aint unit = 0;
  int rc =
      shared_query("MPI_Win_shared_query", win, rank, size, disp_unit != nullptr ? &unit : nullptr, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = int(unit);
  return rc;
}
TAKYON_MPI_WEAK_ALIAS(Win_shared_query)

extern "C" int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                                       void* baseptr) {
  return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}
TAKYON_MPI_WEAK_ALIAS(Win_shared_query_c)

extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const char* fn = "MPI_Win_attach";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) fail(MPI_ERR_RMA_FLAVOR, fn, "the window is not dynamic");
    if (size < 0) fail(MPI_ERR_SIZE, fn, "negative size " + std::to_string(size));
    if (base == nullptr && size > 0) fail(MPI_ERR_RMA_ATTACH, fn, "base is NULL");
    const auto start = reinterpret_cast<std::uintptr_t>(base);
    for (const auto& [s, len] : w.attached) {
      if (start < s + len && s < start + std::uintptr_t(size)) {
        fail(MPI_ERR_RMA_ATTACH, fn, "the memory overlaps memory already attached");
      }
    }
    w.attached.emplace_back(start, std::size_t(size));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_attach)

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  const char* fn = "MPI_Win_detach";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) fail(MPI_ERR_RMA_FLAVOR, fn, "the window is not dynamic");
    const auto start = reinterpret_cast<std::uintptr_t>(base);
    for (auto it = w.attached.begin(); it != w.attached.end(); ++it) {
      if (it->first == start) {
        w.attached.erase(it);
        return MPI_SUCCESS;
      }
    }
    fail(MPI_ERR_RMA_ATTACH, fn, "no memory attached at that address");
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_detach)

extern "C" int PMPI_Win_free(MPI_Win* win) {
  const char* fn = "MPI_Win_free";
  return win_guarded(fn, win != nullptr ? *win : MPI_WIN_NULL, [&] {
    if (win == nullptr) fail(MPI_ERR_ARG, fn, "win is NULL");
    rma::Window& w = rma::check_win(*win, fn);
    MPI_Win handle = *win;
    MPI_Errhandler handler = w.errhandler;
    *win = MPI_WIN_NULL;
    try {
      rma::free_window(w, fn);
    } catch (const MpiError& e) {
      if (rma::find_win(handle) != nullptr) {  // still there: the call failed before freeing
        *win = handle;
        throw;
      }
      // Freed, but a delete callback failed: the window's own handler still takes the error.
      return raise_win_error(handle, handler, e.error_class(), e.what());
    } catch (...) {
      if (rma::find_win(handle) != nullptr) *win = handle;
      throw;
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_free)

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  const char* fn = "MPI_Win_get_group";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (group == nullptr) fail(MPI_ERR_ARG, fn, "group is NULL");
    return PMPI_Comm_group(w.comm, group);
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_get_group)

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  const char* fn = "MPI_Win_set_name";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (win_name == nullptr) fail(MPI_ERR_ARG, fn, "win_name is NULL");
    w.name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_set_name)

extern "C" int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  const char* fn = "MPI_Win_get_name";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (win_name == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, fn, "NULL argument");
    std::memcpy(win_name, w.name.c_str(), w.name.size() + 1);
    *resultlen = int(w.name.size());
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_get_name)

extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  const char* fn = "MPI_Win_set_info";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    w.hints = rma::win_hints(info_entries(info, fn), w.hints);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_set_info)

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  const char* fn = "MPI_Win_get_info";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (info_used == nullptr) fail(MPI_ERR_ARG, fn, "info_used is NULL");
    *info_used = make_info(w.hints);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_get_info)

// ---- Attributes ----------------------------------------------------------------------------------

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                      MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                                      void* extra_state) {
  const char* fn = "MPI_Win_create_keyval";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_initialized(fn);
    if (win_keyval == nullptr) fail(MPI_ERR_ARG, fn, "win_keyval is NULL");
    AttrCallbacks cb;
    cb.win_copy = win_copy_attr_fn;
    cb.win_delete = win_delete_attr_fn;
    *win_keyval = create_keyval(AttrKind::kWin, cb, extra_state);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_create_keyval)

extern "C" int PMPI_Win_free_keyval(int* win_keyval) {
  const char* fn = "MPI_Win_free_keyval";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_initialized(fn);
    if (win_keyval == nullptr) fail(MPI_ERR_ARG, fn, "win_keyval is NULL");
    free_keyval(AttrKind::kWin, win_keyval, fn, "win_keyval");
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_free_keyval)

extern "C" int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const char* fn = "MPI_Win_set_attr";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    check_keyval(AttrKind::kWin, win_keyval, fn, "win_keyval");
    set_attr(AttrKind::kWin, win, w.attrs, win_keyval, attribute_val, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_set_attr)

extern "C" int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const char* fn = "MPI_Win_get_attr";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (attribute_val == nullptr || flag == nullptr) fail(MPI_ERR_ARG, fn, "NULL argument");
    void* value = nullptr;
    switch (win_keyval) {
      case MPI_WIN_BASE:
        value = w.base;
        break;
      case MPI_WIN_SIZE:
        value = &w.attr_size;
        break;
      case MPI_WIN_DISP_UNIT:
        value = &w.attr_disp_unit;
        break;
      case MPI_WIN_CREATE_FLAVOR:
        value = &w.attr_flavor;
        break;
      case MPI_WIN_MODEL:
        value = &w.attr_model;
        break;
      default:
        check_keyval(AttrKind::kWin, win_keyval, fn, "win_keyval", /*freed_ok=*/true);
        *flag = get_attr(w.attrs, win_keyval, &value) ? 1 : 0;
        if (*flag != 0) std::memcpy(attribute_val, &value, sizeof value);
        return MPI_SUCCESS;
    }
    std::memcpy(attribute_val, &value, sizeof value);
    *flag = 1;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_get_attr)

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  const char* fn = "MPI_Win_delete_attr";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    check_keyval(AttrKind::kWin, win_keyval, fn, "win_keyval");
    delete_attr(AttrKind::kWin, win, w.attrs, win_keyval, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_delete_attr)

// ---- Error handlers ------------------------------------------------------------------------------

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                                          MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Win_create_errhandler";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    check_initialized(fn);
    if (win_errhandler_fn == nullptr || errhandler == nullptr) fail(MPI_ERR_ARG, fn, "NULL argument");
    *errhandler = create_win_errhandler(win_errhandler_fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_create_errhandler)

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  const char* fn = "MPI_Win_set_errhandler";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    check_win_errhandler(errhandler, fn);
    w.errhandler = errhandler;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_set_errhandler)

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Win_get_errhandler";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (errhandler == nullptr) fail(MPI_ERR_ARG, fn, "errhandler is NULL");
    *errhandler = w.errhandler;
    if (UserErrhandler* user = find_user_errhandler(w.errhandler)) ++user->handles;  // a new handle
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_get_errhandler)

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  const char* fn = "MPI_Win_call_errhandler";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    raise_win_error(win, w.errhandler, errorcode,
                    "MPI_Win_call_errhandler: error code " + std::to_string(errorcode));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_call_errhandler)

// ---- Operations ----------------------------------------------------------------------------------

extern "C" int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                        MPI_Win win) {
  return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Put)

extern "C" int PMPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win) {
  return put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Put_c)

extern "C" int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Rput", win);
  return put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Rput)

extern "C" int PMPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Rput_c", win);
  return put("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Rput_c)

extern "C" int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Get)

extern "C" int PMPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win) {
  return get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Get_c)

extern "C" int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Rget", win);
  return get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Rget)

extern "C" int PMPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Rget_c", win);
  return get("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Rget_c)

extern "C" int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Accumulate)

extern "C" int PMPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                 MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                 MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                 MPI_Win win) {
  return accumulate("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Accumulate_c)

extern "C" int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                int target_rank, MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Raccumulate", win);
  return accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Raccumulate)

extern "C" int PMPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count,
                                  MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                  MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                  MPI_Win win, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Raccumulate_c", win);
  return accumulate("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Raccumulate_c)

extern "C" int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                   void* result_addr, int result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return get_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                        result_count, result_datatype, target_rank, target_disp, target_count,
                        target_datatype, op, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Get_accumulate)

extern "C" int PMPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                     MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                                     MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                                     MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                     MPI_Win win) {
  return get_accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
                        result_count, result_datatype, target_rank, target_disp, target_count,
                        target_datatype, op, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Get_accumulate_c)

extern "C" int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                    void* result_addr, int result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                    MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Rget_accumulate", win);
  return get_accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                        result_count, result_datatype, target_rank, target_disp, target_count,
                        target_datatype, op, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Rget_accumulate)

extern "C" int PMPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                      MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                                      MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                      MPI_Win win, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Rget_accumulate_c", win);
  return get_accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
                        result_count, result_datatype, target_rank, target_disp, target_count,
                        target_datatype, op, win, request);
}
TAKYON_MPI_WEAK_ALIAS(Rget_accumulate_c)

extern "C" int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return get_accumulate("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                        target_disp, 1, datatype, op, win, nullptr);
}
TAKYON_MPI_WEAK_ALIAS(Fetch_and_op)

extern "C" int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                                     MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                                     MPI_Win win) {
  const char* fn = "MPI_Compare_and_swap";
  return win_guarded(fn, win, [&] {
    OpArgs a = put_args(Kind::kCas, origin_addr, 1, datatype, target_rank, target_disp, 1, datatype);
    a.compare = compare_addr;
    a.result = result_addr;
    a.result_count = 1;
    a.result_type = datatype;
    check_type(datatype, fn);
    if (find_type(datatype) == nullptr || !type_is_contiguous(datatype) || type_size(datatype) > 16) {
      fail(MPI_ERR_TYPE, fn, "compare-and-swap takes one predefined integer, logical or byte type");
    }
    return op_entry(fn, win, a, nullptr);
  });
}
TAKYON_MPI_WEAK_ALIAS(Compare_and_swap)

// ---- Synchronization -----------------------------------------------------------------------------

extern "C" int PMPI_Win_fence(int assert, MPI_Win win) {
  const char* fn = "MPI_Win_fence";
  return win_guarded(fn, win, [&] {
    rma::fence(rma::check_win(win, fn), assert, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_fence)

extern "C" int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  const char* fn = "MPI_Win_post";
  return win_guarded(fn, win, [&] {
    rma::post(rma::check_win(win, fn), group, assert, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_post)

extern "C" int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  const char* fn = "MPI_Win_start";
  return win_guarded(fn, win, [&] {
    rma::start(rma::check_win(win, fn), group, assert, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_start)

extern "C" int PMPI_Win_complete(MPI_Win win) {
  const char* fn = "MPI_Win_complete";
  return win_guarded(fn, win, [&] {
    rma::complete(rma::check_win(win, fn), fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_complete)

extern "C" int PMPI_Win_wait(MPI_Win win) {
  const char* fn = "MPI_Win_wait";
  return win_guarded(fn, win, [&] {
    rma::wait_exposure(rma::check_win(win, fn), true, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_wait)

extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  const char* fn = "MPI_Win_test";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (flag == nullptr) fail(MPI_ERR_ARG, fn, "flag is NULL");
    *flag = rma::wait_exposure(w, false, fn) ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_test)

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  const char* fn = "MPI_Win_lock";
  return win_guarded(fn, win, [&] {
    rma::lock(rma::check_win(win, fn), lock_type, rank, assert, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_lock)

extern "C" int PMPI_Win_unlock(int rank, MPI_Win win) {
  const char* fn = "MPI_Win_unlock";
  return win_guarded(fn, win, [&] {
    rma::unlock(rma::check_win(win, fn), rank, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_unlock)

extern "C" int PMPI_Win_lock_all(int assert, MPI_Win win) {
  const char* fn = "MPI_Win_lock_all";
  return win_guarded(fn, win, [&] {
    rma::lock_all(rma::check_win(win, fn), assert, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_lock_all)

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  const char* fn = "MPI_Win_unlock_all";
  return win_guarded(fn, win, [&] {
    rma::unlock_all(rma::check_win(win, fn), fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_unlock_all)

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  const char* fn = "MPI_Win_flush";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w.size))
      fail(MPI_ERR_RANK, fn, "invalid rank " + std::to_string(rank));
    rma::flush(w, rank, false, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_flush)

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  const char* fn = "MPI_Win_flush_all";
  return win_guarded(fn, win, [&] {
    rma::flush(rma::check_win(win, fn), -1, false, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_flush_all)

extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  const char* fn = "MPI_Win_flush_local";
  return win_guarded(fn, win, [&] {
    rma::Window& w = rma::check_win(win, fn);
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w.size))
      fail(MPI_ERR_RANK, fn, "invalid rank " + std::to_string(rank));
    rma::flush(w, rank, true, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_flush_local)

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  const char* fn = "MPI_Win_flush_local_all";
  return win_guarded(fn, win, [&] {
    rma::flush(rma::check_win(win, fn), -1, true, fn);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_flush_local_all)

extern "C" int PMPI_Win_sync(MPI_Win win) {
  const char* fn = "MPI_Win_sync";
  return win_guarded(fn, win, [&] {
    rma::check_win(win, fn);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // A rank that polls its window with MPI_Win_sync and loads still serves the operations other
    // ranks send it (windows of messages: rma/window.hpp).
    engine().progress();
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Win_sync)
