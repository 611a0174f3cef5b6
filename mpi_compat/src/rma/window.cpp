// SPDX-License-Identifier: MIT
// Windows (rma/window.hpp): the registry of live windows, their creation in every flavor, their
// memory and their end.
#include "rma/window.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "common/knobs.hpp"
#include "errors.hpp"
#include "job_id.hpp"
#include "messages.hpp"
#include "runtime.hpp"
#include "shm/heap.hpp"

namespace takyon::mpi::rma {
namespace {

/// The live windows, in creation order. A program holds few, and every operation looks its window
/// up: a short vector scan is cheaper than hashing.
std::vector<std::unique_ptr<Window>>& registry() {
  static std::vector<std::unique_ptr<Window>> windows;
  return windows;
}

/// Throws MpiError for an internal MPI call's error code (the duplicate's handler returns codes).
void check_rc(int rc, const char* fn, const char* what) {
  if (rc != MPI_SUCCESS) {
    fail(rc, fn, std::string(what) + " failed: " + last_error_detail(rc));
  }
}

/// What every rank tells the others at creation.
struct Record {
  std::int64_t size;
  std::int64_t unit;
  std::uint64_t base;  ///< the memory's address (MPI_Win_create)
  std::int32_t error_class;
  std::int32_t pad;
};

constexpr std::size_t kSegmentNameBytes = 128;

/// TAKYON_MPI_RMA=am: every window runs its operations as messages (tests of that protocol).
bool messages_only() {
  return common::knob_choice(common::KnobId::kMpiRma) == 1;  // auto|am
}

/// The segment of MPI_Win_allocate_shared (`required`) and of MPI_Win_allocate where every rank
/// shares this host's memory: made by rank 0, mapped by every rank; the control area first, then
/// every rank's part (page-aligned with `page_parts`, else each right after the previous one).
/// Returns false, having mapped nothing, where a rank does not share this host's memory (or
/// TAKYON_MPI_RMA=am when not `required`).
bool map_segment(Window& w, const char* fn, bool required, bool page_parts, bool with_parts = true) {
  int local_ok = required || !messages_only() ? 1 : 0;
  for (int r = 0; r < w.size; ++r) {
    if (!engine().same_host(w.world[std::size_t(r)])) local_ok = 0;
  }
  int all_ok = 0;
  check_rc(PMPI_Allreduce(&local_ok, &all_ok, 1, MPI_INT, MPI_MIN, w.comm), fn, "the host check");
  if (all_ok == 0) {
    if (!required) return false;
    fail(MPI_ERR_RMA_SHARED, fn,
         "the communicator's ranks do not all share this host's memory (split it with "
         "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) first)");
  }
  const auto page = MPI_Aint(sysconf(_SC_PAGESIZE));
  const auto n = std::size_t(w.size);
  const MPI_Aint control_bytes =
      MPI_Aint((n * sizeof(Control) + 2 * n * n * sizeof(std::uint64_t) + std::size_t(page) - 1) /
               std::size_t(page) * std::size_t(page));
  const MPI_Aint align = page_parts ? page : 1;
  w.shared_offsets.assign(n, 0);
  MPI_Aint total = control_bytes;
  for (int r = 0; r < w.size && with_parts; ++r) {
    total = (total + align - 1) / align * align;
    w.shared_offsets[std::size_t(r)] = total;
    total += w.sizes[std::size_t(r)];
  }
  struct Announce {
    std::int32_t ok;
    char text[kSegmentNameBytes + 256];
  } a{};
  if (w.rank == 0) {
    const std::string seg_name = "/takyon-mpi-win-" + std::to_string(getpid()) + "-" + random_hex(8);
    try {
      w.segment = shm::Segment::create(seg_name, std::size_t(total));
      a.ok = 1;
      std::snprintf(a.text, sizeof a.text, "%s", seg_name.c_str());
    } catch (const shm::SegmentError& e) {
      a.ok = 0;
      std::snprintf(a.text, sizeof a.text, "%s", e.what());
    }
  }
  check_rc(PMPI_Bcast(&a, int(sizeof a), MPI_BYTE, 0, w.comm), fn, "the segment's announcement");
  if (a.ok == 0) fail(MPI_ERR_NO_MEM, fn, std::string("the window's shared memory: ") + a.text);
  std::string error;
  if (w.rank != 0) {
    try {
      w.segment = shm::Segment::open(a.text);
      if (w.segment.size() != std::size_t(total)) error = std::string(a.text) + " has the wrong size";
    } catch (const shm::SegmentError& e) {
      error = e.what();
    }
  }
  int bad = error.empty() ? 0 : 1;
  int any_bad = 0;
  check_rc(PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, w.comm), fn, "the segment's mapping");
  if (w.rank == 0) w.segment.unlink();
  if (any_bad != 0) {
    fail(MPI_ERR_NO_MEM, fn, error.empty() ? "another rank could not map the window's shared memory" : error);
  }
  char* seg = static_cast<char*>(w.segment.data());
  w.control = reinterpret_cast<Control*>(seg);
  w.post_counts = reinterpret_cast<std::uint64_t*>(seg + n * sizeof(Control));
  w.complete_counts = w.post_counts + n * n;
  w.direct = !messages_only();
  if (!with_parts) return true;
  for (int r = 0; r < w.size; ++r) w.bases.push_back(seg + w.shared_offsets[std::size_t(r)]);
  w.base = w.bases[std::size_t(w.rank)];
  return true;
}

/// MPI_Win_create over memory that every rank's shared heap holds (large allocations, shm/heap.hpp)
/// and every rank maps: a direct window, with a segment for the control area only. Returns false
/// (nothing changed) where any rank's memory is elsewhere or cannot be mapped.
bool map_created(Window& w, const char* fn, const std::vector<std::uint64_t>& addrs) {
  int ok = messages_only() ? 0 : 1;
  const shm::SharedHeap& heap = shm::SharedHeap::instance();
  if (w.bytes > 0 && !(heap.owns(w.base) && heap.owns(w.base + w.bytes - 1))) ok = 0;
  std::vector<char*> bases(std::size_t(w.size), nullptr);
  bases[std::size_t(w.rank)] = w.base;
  for (int r = 0; r < w.size && ok != 0; ++r) {
    const auto i = std::size_t(r);
    if (r == w.rank || w.sizes[i] == 0) continue;
    bases[i] = engine().peer_heap(w.world[i], addrs[i], std::size_t(w.sizes[i]));
    if (bases[i] == nullptr) ok = 0;
  }
  int all_ok = 0;
  check_rc(PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, w.comm), fn, "the shared-heap check");
  if (all_ok == 0) return false;
  map_segment(w, fn, true, false, false);
  w.bases = std::move(bases);
  return true;
}

/// A handle no window had before: a freed window's handle never names a later window (as its address
/// could), so using it stays MPI_ERR_WIN. Above the ABI's predefined handles (1..4095), 16 apart.
MPI_Win next_handle() {
  static std::uintptr_t next = 0x100000;
  next += 16;
  return reinterpret_cast<MPI_Win>(next);
}

}  // namespace

Window* find_win(MPI_Win win) {
  for (const auto& w : registry()) {
    if (w->handle == win) return w.get();
  }
  return nullptr;
}

Window& check_win(MPI_Win win, const char* fn) {
  check_initialized(fn);
  Window* w = find_win(win);
  if (w == nullptr) {
    fail(MPI_ERR_WIN, fn,
         win == MPI_WIN_NULL ? "the window is MPI_WIN_NULL" : "invalid window (argument win)");
  }
  return *w;
}

Hints win_hints(const Hints& given, const Hints& previous) {
  static const std::pair<const char*, const char*> kKeys[] = {
      {"no_locks", "false"},
      {"accumulate_ordering", "rar,raw,war,waw"},
      {"accumulate_ops", "same_op_no_op"},
      {"same_size", "false"},
      {"same_disp_unit", "false"},
      {"alloc_shared_noncontig", "false"},
  };
  Hints out;
  for (const auto& [key, fallback] : kKeys) {
    std::string value = fallback;
    for (const auto& [k, v] : previous) {
      if (k == key) value = v;
    }
    for (const auto& [k, v] : given) {
      if (k == key) value = v;
    }
    out.emplace_back(key, value);
  }
  return out;
}

Window& create_window(const char* fn, int flavor, void* base, MPI_Aint size, MPI_Aint disp_unit,
                      const Hints& given, const std::optional<MpiError>& info_error, MPI_Comm comm) {
  CommInfo& c = check_comm(comm, fn);
  if (is_inter(c)) fail(MPI_ERR_COMM, fn, "an intercommunicator (windows need an intracommunicator)");
  // Local checks first, but every rank takes part in the exchange, so that none waits for one that failed.
  std::optional<MpiError> local = info_error;
  try {
    if (local) throw MpiError(*local);
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC) {
      if (size < 0) fail(MPI_ERR_SIZE, fn, "negative size " + std::to_string(size) + " (argument size)");
      if (disp_unit <= 0) {
        fail(MPI_ERR_DISP, fn,
             "disp_unit " + std::to_string(disp_unit) + " is not positive (argument disp_unit)");
      }
      if (flavor == MPI_WIN_FLAVOR_CREATE && base == nullptr && size > 0) {
        fail(MPI_ERR_BASE, fn, "base is NULL for a window of " + std::to_string(size) + " bytes");
      }
    }
  } catch (const MpiError& e) {
    local = e;
  }
  MPI_Comm dup = MPI_COMM_NULL;
  check_rc(PMPI_Comm_dup(comm, &dup), fn, "duplicating the communicator");
  PMPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  auto w = std::make_unique<Window>();
  w->handle = next_handle();
  w->comm = dup;
  w->info = find_comm(dup);
  w->rank = comm_rank(*w->info);
  w->size = comm_size(*w->info);
  for (int r = 0; r < w->size; ++r) w->world.push_back(to_world(*w->info, r));
  try {
    Record mine{flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : std::int64_t(size), std::int64_t(disp_unit),
                std::uint64_t(reinterpret_cast<std::uintptr_t>(base)), local ? local->error_class() : 0, 0};
    std::vector<Record> all(std::size_t(w->size));
    check_rc(PMPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine), MPI_BYTE, dup),
             fn, "the exchange of sizes");
    if (local) throw MpiError(*local);
    for (int r = 0; r < w->size; ++r) {
      if (all[std::size_t(r)].error_class != 0) {
        fail(all[std::size_t(r)].error_class, fn, "rank " + std::to_string(r) + " passed bad arguments");
      }
      w->sizes.push_back(MPI_Aint(all[std::size_t(r)].size));
      w->units.push_back(MPI_Aint(all[std::size_t(r)].unit));
    }
    w->flavor = flavor;
    w->bytes = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    w->disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit;
    w->hints = win_hints(given, {});
    if (flavor == MPI_WIN_FLAVOR_CREATE) {
      w->base = static_cast<char*>(base);
      std::vector<std::uint64_t> addrs(all.size());
      std::transform(all.begin(), all.end(), addrs.begin(), [](const Record& r) { return r.base; });
      map_created(*w, fn, addrs);
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE && map_segment(*w, fn, false, true)) {
      // every rank maps every rank's memory: a direct window
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
      void* p = nullptr;
      int failed = posix_memalign(&p, 64, std::size_t(std::max<MPI_Aint>(size, 1)));
      int any_failed = 0;
      check_rc(PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, dup), fn, "the allocation check");
      if (failed != 0) fail(MPI_ERR_NO_MEM, fn, "cannot allocate " + std::to_string(size) + " bytes");
      if (any_failed != 0) {
        std::free(p);
        fail(MPI_ERR_NO_MEM, fn, "another rank could not allocate its window memory");
      }
      w->allocated = p;
      w->base = static_cast<char*>(p);
    } else if (flavor == MPI_WIN_FLAVOR_SHARED) {
      bool noncontig = false;
      for (const auto& [k, v] : w->hints) {
        if (k == "alloc_shared_noncontig" && v == "true") noncontig = true;
      }
      map_segment(*w, fn, true, noncontig);
    }
  } catch (...) {
    std::free(w->allocated);
    PMPI_Comm_free(&w->comm);
    throw;
  }
  const auto n = std::size_t(w->size);
  w->locked.assign(n, 0);
  w->nocheck.assign(n, 0);
  w->post_taken.assign(n, 0);
  w->grants.assign(n, 0);
  w->grants_wanted.assign(n, 0);
  w->acks.assign(n, 0);
  w->acks_wanted.assign(n, 0);
  w->posts.assign(n, 0);
  w->remote_class.assign(n, 0);
  w->remote_error.assign(n, {});
  w->completes.assign(n, 0);
  w->error_class_for.assign(n, 0);
  w->error_for.assign(n, {});
  w->posts_taken.assign(n, 0);
  w->completes_taken.assign(n, 0);
  w->attr_size = w->bytes;
  w->attr_disp_unit = int(w->disp_unit);
  w->attr_flavor = flavor;
  Window& ref = *w;
  registry().push_back(std::move(w));
  install_service();
  return ref;
}

void free_window(Window& w, const char* fn) {
  if (w.lock_all || w.access || w.exposure ||
      std::any_of(w.locked.begin(), w.locked.end(), [](int l) { return l != 0; })) {
    fail(MPI_ERR_RMA_SYNC, fn, "an access or exposure epoch is still open (unlock, complete or wait first)");
  }
  quiesce(w, fn);
  const int rc = delete_attrs(AttrKind::kWin, w.handle, w.attrs);
  PMPI_Comm_free(&w.comm);
  std::free(w.allocated);
  w.allocated = nullptr;
  std::erase_if(registry(), [&w](const std::unique_ptr<Window>& p) { return p.get() == &w; });  // unmaps
  if (rc != MPI_SUCCESS)
    fail(rc, fn, "an attribute's delete callback returned error code " + std::to_string(rc));
}

const std::vector<std::unique_ptr<Window>>& live_windows() {
  return registry();
}

}  // namespace takyon::mpi::rma
