// SPDX-License-Identifier: MIT
// Completion: Wait/Test and their -any, -all, -some forms, Request_get_status, Request_free, Cancel.
#include <string>
#include <vector>

#include "api/common.hpp"
#include "api/export.hpp"
#include "coll/schedule.hpp"
#include "greq.hpp"

namespace takyon::mpi {
namespace {

MPI_Comm comm_of(const Request* r) {
  return static_cast<const CommInfo*>(r->comm)->handle;
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : statuses + i;
}

/// Checks an array of request handles; returns the requests (nullptr for null or inactive ones).
std::vector<Request*> check_requests(const char* fn, int count, MPI_Request* handles) {
  if (count < 0) fail(MPI_ERR_COUNT, fn, "invalid count " + std::to_string(count) + " (argument count)");
  if (count > 0 && handles == nullptr) fail(MPI_ERR_REQUEST, fn, "array_of_requests is NULL");
  std::vector<Request*> reqs(std::size_t(count), nullptr);
  for (int i = 0; i < count; ++i) {
    Request* r = nullptr;
    if (handles[i] != MPI_REQUEST_NULL) {
      check_initialized(fn);
      // The argument's name is built only for the error (it cost a heap string per request).
      if (engine().requests().owns_live(handles[i])) {
        r = reinterpret_cast<Request*>(handles[i]);
      } else {
        check_request(handles[i], fn, ("array_of_requests[" + std::to_string(i) + "]").c_str());
      }
    }
    reqs[std::size_t(i)] = r != nullptr && r->active ? r : nullptr;
  }
  return reqs;
}

/// Finishes request i of an array: its status, its release; returns its error code.
int finish_at(MPI_Request* handles, int i, MPI_Status* status) {
  return finish_request(&handles[i], status);
}

int finish_one(const char* fn, MPI_Request* handle, MPI_Status* status) {
  auto* r = reinterpret_cast<Request*>(*handle);
  MPI_Comm comm = comm_of(r);
  std::string why = r->truncated ? truncation_message(fn, *r) : std::string();
  int err = finish_request(handle, status);
  return err == MPI_SUCCESS ? MPI_SUCCESS : raise_error(comm, err, why);
}

/// Finishes every completed request in `reqs`, recording errors for MPI_ERR_IN_STATUS.
int finish_many(const char* fn, MPI_Request* handles, const std::vector<Request*>& reqs,
                const std::vector<int>& which, MPI_Status* statuses, bool compact) {
  int first_err = MPI_SUCCESS;
  MPI_Comm comm = MPI_COMM_WORLD;
  std::string why;
  for (std::size_t k = 0; k < which.size(); ++k) {
    int i = which[k];
    Request* r = reqs[std::size_t(i)];
    MPI_Status* st = status_at(statuses, compact ? int(k) : i);
    if (r->truncated && first_err == MPI_SUCCESS) {
      first_err = MPI_ERR_TRUNCATE;
      comm = comm_of(r);
      why = truncation_message(fn, *r);
    }
    int err = finish_at(handles, i, st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
    if (err != MPI_SUCCESS && first_err == MPI_SUCCESS) {  // a generalized request's callback failed
      first_err = err;
      why = std::string(fn) + ": a generalized request's callback returned error code " + std::to_string(err);
    }
  }
  if (first_err == MPI_SUCCESS) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_IN_STATUS, why + " (the error is in the request's status)");
}

}  // namespace
}  // namespace takyon::mpi

namespace takyon::mpi {

std::string truncation_message(const char* fn, const Request& r) {
  if (r.kind == RequestKind::kColl) return std::string(fn) + ": " + take_nonblocking_error(&r);
  return std::string(fn) + ": message truncated: " + std::to_string(r.sent_bytes) +
         " bytes arrived from rank " +
         std::to_string(from_world(*static_cast<const CommInfo*>(r.comm), r.status_source)) + " (tag " +
         std::to_string(r.status_tag) + "), the buffer holds " + std::to_string(r.bytes);
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  return guarded("MPI_Wait", MPI_COMM_WORLD, [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Wait", "request is NULL (argument request)");
    Request* r = check_request(*request, "MPI_Wait", "request");
    if (r == nullptr || !r->active) {
      set_empty_status(status);
      return MPI_SUCCESS;
    }
    if (!r->complete) engine().wait_until([r] { return r->complete; });
    return finish_one("MPI_Wait", request, status);
  });
}
TAKYON_MPI_WEAK_ALIAS(Wait)

extern "C" int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return guarded("MPI_Test", MPI_COMM_WORLD, [&] {
    if (request == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "MPI_Test", "request or flag is NULL");
    Request* r = check_request(*request, "MPI_Test", "request");
    if (r == nullptr || !r->active) {
      *flag = 1;
      set_empty_status(status);
      return MPI_SUCCESS;
    }
    if (!r->complete) engine().progress();
    *flag = r->complete ? 1 : 0;
    return r->complete ? finish_one("MPI_Test", request, status) : MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Test)

extern "C" int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return guarded("MPI_Request_get_status", MPI_COMM_WORLD, [&] {
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Request_get_status", "flag is NULL");
    Request* r = check_request(request, "MPI_Request_get_status", "request");
    if (r == nullptr || !r->active) {
      *flag = 1;
      set_empty_status(status);
      return MPI_SUCCESS;
    }
    if (!r->complete) engine().progress();
    *flag = r->complete ? 1 : 0;
    if (r->complete && r->kind == RequestKind::kGreq) {
      int rc = query_greq(*r, status);
      if (rc != MPI_SUCCESS) {
        return raise_error(MPI_COMM_WORLD, rc,
                           "MPI_Request_get_status: the generalized request's query callback returned error "
                           "code " +
                               std::to_string(rc));
      }
    } else if (r->complete) {
      deliver(*r);  // the data is the user's once the request is complete
      set_status(status, *r);
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Request_get_status)

extern "C" int PMPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  return guarded("MPI_Waitany", MPI_COMM_WORLD, [&] {
    if (index == nullptr) fail(MPI_ERR_ARG, "MPI_Waitany", "index is NULL");
    std::vector<Request*> reqs = check_requests("MPI_Waitany", count, array_of_requests);
    int found = MPI_UNDEFINED;
    bool any_active = false;
    auto scan = [&] {
      for (int i = 0; i < count; ++i) {
        Request* r = reqs[std::size_t(i)];
        if (r == nullptr) continue;
        any_active = true;
        if (r->complete) {
          found = i;
          return true;
        }
      }
      return !any_active;
    };
    if (!scan()) engine().wait_until(scan);
    *index = found;
    if (found == MPI_UNDEFINED) {
      set_empty_status(status);
      return MPI_SUCCESS;
    }
    return finish_one("MPI_Waitany", &array_of_requests[found], status);
  });
}
TAKYON_MPI_WEAK_ALIAS(Waitany)

extern "C" int PMPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag,
                            MPI_Status* status) {
  return guarded("MPI_Testany", MPI_COMM_WORLD, [&] {
    if (index == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "MPI_Testany", "index or flag is NULL");
    std::vector<Request*> reqs = check_requests("MPI_Testany", count, array_of_requests);
    bool any_active = false;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < count; ++i) {
        Request* r = reqs[std::size_t(i)];
        if (r == nullptr) continue;
        any_active = true;
        if (r->complete) {
          *index = i;
          *flag = 1;
          return finish_one("MPI_Testany", &array_of_requests[i], status);
        }
      }
      if (!any_active || pass == 1) break;
      engine().progress();
    }
    *index = MPI_UNDEFINED;
    *flag = any_active ? 0 : 1;
    if (!any_active) set_empty_status(status);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Testany)

extern "C" int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  return guarded("MPI_Waitall", MPI_COMM_WORLD, [&] {
    std::vector<Request*> reqs = check_requests("MPI_Waitall", count, array_of_requests);
    auto all_done = [&] {
      for (Request* r : reqs) {
        if (r != nullptr && !r->complete) return false;
      }
      return true;
    };
    if (!all_done()) engine().wait_until(all_done);
    std::vector<int> which;
    for (int i = 0; i < count; ++i) {
      if (reqs[std::size_t(i)] != nullptr) {
        which.push_back(i);
      } else {
        set_empty_status(status_at(array_of_statuses, i));
      }
    }
    return finish_many("MPI_Waitall", array_of_requests, reqs, which, array_of_statuses, false);
  });
}
TAKYON_MPI_WEAK_ALIAS(Waitall)

extern "C" int PMPI_Testall(int count, MPI_Request array_of_requests[], int* flag,
                            MPI_Status array_of_statuses[]) {
  return guarded("MPI_Testall", MPI_COMM_WORLD, [&] {
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
    std::vector<Request*> reqs = check_requests("MPI_Testall", count, array_of_requests);
    auto all_done = [&] {
      for (Request* r : reqs) {
        if (r != nullptr && !r->complete) return false;
      }
      return true;
    };
    if (!all_done()) engine().progress();
    if (!all_done()) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    *flag = 1;
    std::vector<int> which;
    for (int i = 0; i < count; ++i) {
      if (reqs[std::size_t(i)] != nullptr) {
        which.push_back(i);
      } else {
        set_empty_status(status_at(array_of_statuses, i));
      }
    }
    return finish_many("MPI_Testall", array_of_requests, reqs, which, array_of_statuses, false);
  });
}
TAKYON_MPI_WEAK_ALIAS(Testall)

namespace {

int some(const char* fn, bool block, int incount, MPI_Request* handles, int* outcount, int* indices,
         MPI_Status* statuses) {
  if (outcount == nullptr || (incount > 0 && indices == nullptr))
    fail(MPI_ERR_ARG, fn, "outcount or indices is NULL");
  std::vector<Request*> reqs = check_requests(fn, incount, handles);
  bool any_active = false;
  auto any_done = [&] {
    any_active = false;
    for (Request* r : reqs) {
      if (r == nullptr) continue;
      any_active = true;
      if (r->complete) return true;
    }
    return !any_active;
  };
  if (!any_done()) {
    if (block) {
      engine().wait_until(any_done);
    } else {
      engine().progress();
      any_done();
    }
  }
  if (!any_active) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  std::vector<int> which;
  for (int i = 0; i < incount; ++i) {
    Request* r = reqs[std::size_t(i)];
    if (r != nullptr && r->complete) which.push_back(i);
  }
  *outcount = int(which.size());
  for (std::size_t k = 0; k < which.size(); ++k) indices[k] = which[k];
  return finish_many(fn, handles, reqs, which, statuses, true);
}

}  // namespace

extern "C" int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount,
                             int array_of_indices[], MPI_Status array_of_statuses[]) {
  return guarded("MPI_Waitsome", MPI_COMM_WORLD, [&] {
    return some("MPI_Waitsome", true, incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses);
  });
}
TAKYON_MPI_WEAK_ALIAS(Waitsome)

extern "C" int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount,
                             int array_of_indices[], MPI_Status array_of_statuses[]) {
  return guarded("MPI_Testsome", MPI_COMM_WORLD, [&] {
    return some("MPI_Testsome", false, incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses);
  });
}
TAKYON_MPI_WEAK_ALIAS(Testsome)

extern "C" int PMPI_Request_free(MPI_Request* request) {
  return guarded("MPI_Request_free", MPI_COMM_WORLD, [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Request_free", "request is NULL (argument request)");
    Request* r = check_request(*request, "MPI_Request_free", "request");
    if (r == nullptr)
      fail(MPI_ERR_REQUEST, "MPI_Request_free", "request is MPI_REQUEST_NULL (argument request)");
    if (r->kind == RequestKind::kColl) {
      if (!r->persistent) {
        fail(MPI_ERR_REQUEST, "MPI_Request_free",
             "the request of a nonblocking collective cannot be freed (complete it)");
      }
      if (r->active) {
        fail(MPI_ERR_REQUEST, "MPI_Request_free",
             "an active persistent collective request cannot be freed (complete it first)");
      }
      free_persistent(*r);
      *request = MPI_REQUEST_NULL;
      return MPI_SUCCESS;
    }
    if (r->kind == RequestKind::kGreq) {
      *request = MPI_REQUEST_NULL;
      int rc = free_greq(*r);
      if (rc != MPI_SUCCESS)
        fail(rc, "MPI_Request_free",
             "the generalized request's free callback returned error code " + std::to_string(rc));
      return MPI_SUCCESS;
    }
    deliver(*r);  // a completed packed receive: its data still reaches the user's buffer
    engine().free_request(r);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Request_free)

extern "C" int PMPI_Cancel(MPI_Request* request) {
  return guarded("MPI_Cancel", MPI_COMM_WORLD, [&] {
    if (request == nullptr) fail(MPI_ERR_REQUEST, "MPI_Cancel", "request is NULL (argument request)");
    Request* r = check_request(*request, "MPI_Cancel", "request");
    if (r == nullptr) fail(MPI_ERR_REQUEST, "MPI_Cancel", "request is MPI_REQUEST_NULL (argument request)");
    if (r->kind == RequestKind::kColl) {
      fail(MPI_ERR_REQUEST, "MPI_Cancel", "the request of a nonblocking collective cannot be cancelled");
    }
    if (r->kind == RequestKind::kGreq) {
      int rc = cancel_greq(*r);
      if (rc != MPI_SUCCESS)
        fail(rc, "MPI_Cancel",
             "the generalized request's cancel callback returned error code " + std::to_string(rc));
      return MPI_SUCCESS;
    }
    // A receive not yet matched is cancelled; a send is if the receiver has not matched it yet
    // (pt2pt/cancel.cpp); either way MPI_Wait/Test complete it and MPI_Test_cancelled tells which.
    if (r->active && r->kind == RequestKind::kRecv && r->companion == nullptr) engine().cancel_recv(r);
    if (r->active && r->kind == RequestKind::kSend) engine().cancel_send(r);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Cancel)
