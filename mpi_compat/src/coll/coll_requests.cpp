// SPDX-License-Identifier: MIT
// The requests of nonblocking and persistent collectives (see schedule.hpp): schedules in flight,
// advanced at the end of every Engine::progress(), and the schedules persistent requests keep.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coll/schedule.hpp"
#include "errors.hpp"
#include "messages.hpp"
#include "pt2pt/peer_failure.hpp"

namespace takyon::mpi {

namespace {

/// A nonblocking collective in flight, or a persistent one started (its schedule is `persistent()`'s).
struct Pending {
  Request* req;
  Schedule* schedule;
  std::unique_ptr<Schedule> owned;  ///< nonblocking: destroyed when the request completes
};

std::vector<Pending>& pending() {
  static std::vector<Pending> list;
  return list;
}

/// The schedules of persistent collective requests, built at MPI_*_init, until MPI_Request_free.
std::unordered_map<const Request*, std::unique_ptr<Schedule>>& persistent() {
  static std::unordered_map<const Request*, std::unique_ptr<Schedule>> map;
  return map;
}

/// Errors of failed nonblocking collectives, until MPI_Wait/Test reports them.
std::vector<std::pair<const Request*, std::string>>& errors() {
  static std::vector<std::pair<const Request*, std::string>> list;
  return list;
}

void forget_error(const Request* r) {
  auto& list = errors();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->first == r) {
      list.erase(it);
      return;
    }
  }
}

/// Completes the request of a finished (or failed) schedule; a freed request is released now.
void complete_request(Request* r, const std::string& error, int error_class) {
  if (!error.empty()) {
    // Reported by MPI_Wait/Test with this class and message, as a mismatched receive is.
    r->truncated = true;
    r->error_class = error_class;
    errors().emplace_back(r, error);
  }
  r->complete = true;
  if (r->freed) {
    forget_error(r);
    persistent().erase(r);
    r->active = false;
    engine().requests().release(r);
  }
}

void install_progress() {
  Engine& e = engine();
  if (e.after_progress == nullptr) e.after_progress = &progress_nonblocking;
}

}  // namespace

MPI_Request start_nonblocking(std::unique_ptr<Schedule> s) {
  install_progress();
  bool done = s->advance();
  Request* r = engine().requests().acquire();
  r->kind = RequestKind::kColl;
  r->comm = &s->comm();
  r->datatype = MPI_BYTE;
  r->active = true;
  if (done) {
    complete_request(r, {}, MPI_SUCCESS);
  } else {
    Schedule* raw = s.get();
    pending().push_back(Pending{r, raw, std::move(s)});
  }
  return to_handle(r);
}

MPI_Request make_persistent(std::unique_ptr<Schedule> s) {
  Request* r = engine().requests().acquire();
  r->kind = RequestKind::kColl;
  r->persistent = true;
  r->comm = &s->comm();
  r->datatype = MPI_BYTE;
  try {
    persistent().emplace(r, std::move(s));
  } catch (...) {
    engine().requests().release(r);
    throw;
  }
  return to_handle(r);
}

void start_persistent(Request& r) {
  Schedule& s = *persistent().at(&r);
  install_progress();
  r.active = true;
  r.complete = false;
  r.truncated = false;
  r.error_class = 0;
  forget_error(&r);
  s.rewind();
  bool done = false;
  try {
    done = s.advance();  // the first round goes out now, as a nonblocking collective's does
  } catch (...) {
    s.abandon();
    r.active = false;
    throw;
  }
  if (done) {
    complete_request(&r, {}, MPI_SUCCESS);
  } else {
    pending().push_back(Pending{&r, &s, nullptr});
  }
}

void free_persistent(Request& r) {
  forget_error(&r);
  persistent().erase(&r);
  engine().requests().release(&r);
}

std::string take_nonblocking_error(const Request* r) {
  for (auto& [req, text] : errors()) {
    if (req == r) {
      std::string out = text;
      forget_error(r);
      return out;
    }
  }
  return "a nonblocking collective failed";
}

bool progress_nonblocking() {
  auto& list = pending();
  bool moved = false;
  for (std::size_t i = 0; i < list.size();) {
    bool done = false;
    std::string error;
    int error_class = MPI_SUCCESS;
    try {
      done = list[i].schedule->advance();
    } catch (const MpiError& ex) {
      done = true;
      error = ex.what();
      error_class = ex.error_class();
    } catch (const PeerFailure& ex) {  // a dead peer: MPI_ERR_PROC_ABORTED
      done = true;
      error = ex.what();
      error_class = ex.gone() ? MPI_ERR_PROC_ABORTED : MPI_ERR_OTHER;
    } catch (const std::bad_alloc&) {
      done = true;
      error = std::string(list[i].schedule->fn()) + ": out of memory";
      error_class = MPI_ERR_NO_MEM;
    } catch (const std::exception& ex) {
      done = true;
      error = ex.what();
      error_class = MPI_ERR_INTERN;
    }
    if (!done) {
      ++i;
      continue;
    }
    Request* r = list[i].req;
    // A persistent schedule outlives its run: what a failure left in flight is given up now.
    if (!error.empty() && !list[i].owned) list[i].schedule->abandon();
    list.erase(list.begin() + std::ptrdiff_t(i));
    complete_request(r, error, error_class);
    moved = true;
  }
  return moved;
}

}  // namespace takyon::mpi
