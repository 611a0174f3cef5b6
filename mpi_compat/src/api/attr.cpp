// SPDX-License-Identifier: MIT
// Communicator attributes: keyvals (Comm_create_keyval / free_keyval), Comm_set_attr, get_attr (the
// predefined MPI_TAG_UB... on every communicator, and user keyvals), delete_attr. Copy callbacks run on
// Comm_dup; delete callbacks on Comm_delete_attr, on overwriting a value, on Comm_free and, for
// MPI_COMM_SELF, at MPI_Finalize. A freed keyval lives on while communicators still hold it.
#include <map>
#include <string>

#include "api/common.hpp"
#include "api/export.hpp"

namespace takyon::mpi {
namespace {

constexpr int kFirstUserKeyval = 1000;  // past the predefined ones (MPI_TAG_UB = 501...)

struct Keyval {
  MPI_Comm_copy_attr_function* copy;
  MPI_Comm_delete_attr_function* del;
  void* extra_state;
  int holders = 0;     ///< communicators holding a value for it
  bool freed = false;  ///< Comm_free_keyval was called
};

struct Keyvals {
  std::map<int, Keyval> all;
  int next = kFirstUserKeyval;
};

Keyvals& keyvals() {
  static Keyvals k;
  return k;
}

bool is_predefined(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
         keyval == MPI_APPNUM || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_LASTUSEDCODE;
}

/// A usable user keyval; throws MPI_ERR_KEYVAL naming `fn` otherwise.
Keyval& check_keyval(int keyval, const char* fn) {
  if (is_predefined(keyval)) {
    fail(MPI_ERR_KEYVAL, fn,
         "keyval " + std::to_string(keyval) +
             " is predefined and cannot be set or deleted (argument comm_keyval)");
  }
  auto it = keyvals().all.find(keyval);
  if (it == keyvals().all.end() || it->second.freed) {
    fail(MPI_ERR_KEYVAL, fn,
         "invalid keyval " + std::to_string(keyval) + " (argument comm_keyval; " +
             (it == keyvals().all.end() ? "never created" : "freed") + ")");
  }
  return it->second;
}

void release_holder(int keyval) {
  auto it = keyvals().all.find(keyval);
  if (it == keyvals().all.end()) return;
  if (--it->second.holders == 0 && it->second.freed) keyvals().all.erase(it);
}

int call_delete(CommInfo& c, int keyval, void* value) {
  auto it = keyvals().all.find(keyval);
  if (it == keyvals().all.end() || it->second.del == MPI_COMM_NULL_DELETE_FN) return MPI_SUCCESS;
  return it->second.del(c.handle, keyval, value, it->second.extra_state);
}

std::vector<std::pair<int, void*>>::iterator find_attr(CommInfo& c, int keyval) {
  auto it = c.attrs.begin();
  while (it != c.attrs.end() && it->first != keyval) ++it;
  return it;
}

}  // namespace

int copy_attrs(CommInfo& from, CommInfo& to) {
  const auto attrs = from.attrs;  // a callback may change `from`'s attributes
  for (const auto& [keyval, value] : attrs) {
    auto it = keyvals().all.find(keyval);
    if (it == keyvals().all.end() || it->second.copy == MPI_COMM_NULL_COPY_FN) continue;
    void* out = nullptr;
    int flag = 0;
    if (it->second.copy == MPI_COMM_DUP_FN) {
      out = value;
      flag = 1;
    } else {
      int rc = it->second.copy(from.handle, keyval, it->second.extra_state, value, &out, &flag);
      if (rc != MPI_SUCCESS) return rc;
    }
    if (flag != 0) {
      to.attrs.emplace_back(keyval, out);
      ++keyvals().all[keyval].holders;
    }
  }
  return MPI_SUCCESS;
}

int delete_attrs(CommInfo& c) {
  while (!c.attrs.empty()) {
    auto [keyval, value] = c.attrs.back();
    int rc = call_delete(c, keyval, value);
    if (rc != MPI_SUCCESS) return rc;
    auto it = find_attr(c, keyval);  // the callback may have changed the list
    if (it != c.attrs.end()) {
      c.attrs.erase(it);
      release_holder(keyval);
    }
  }
  return MPI_SUCCESS;
}

namespace {

// The entry points' bodies, shared by the MPI-2 names and the deprecated MPI-1 ones (MPI_Keyval_create,
// MPI_Attr_put...), whose C bindings are the same; errors name the function called.
int create_keyval(const char* fn, MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                  MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval, void* extra_state) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (comm_keyval == nullptr) fail(MPI_ERR_ARG, fn, "comm_keyval is NULL (argument comm_keyval)");
    Keyvals& k = keyvals();
    int id = k.next++;
    k.all[id] = Keyval{comm_copy_attr_fn, comm_delete_attr_fn, extra_state};
    *comm_keyval = id;
    return MPI_SUCCESS;
  });
}

int free_keyval(const char* fn, int* comm_keyval) {
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (comm_keyval == nullptr) fail(MPI_ERR_ARG, fn, "comm_keyval is NULL (argument comm_keyval)");
    Keyval& kv = check_keyval(*comm_keyval, fn);
    kv.freed = true;
    if (kv.holders == 0) keyvals().all.erase(*comm_keyval);
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
  });
}

int set_attr(const char* fn, MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    check_keyval(comm_keyval, fn);
    auto it = find_attr(c, comm_keyval);
    if (it != c.attrs.end()) {
      int rc = call_delete(c, comm_keyval, it->second);
      if (rc != MPI_SUCCESS)
        fail(rc, fn, "the delete callback of the old value returned error code " + std::to_string(rc));
      it = find_attr(c, comm_keyval);  // the callback may have changed the list
    }
    if (it != c.attrs.end()) {
      it->second = attribute_val;
    } else {
      c.attrs.emplace_back(comm_keyval, attribute_val);
      ++keyvals().all[comm_keyval].holders;
    }
    return MPI_SUCCESS;
  });
}

int delete_attr(const char* fn, MPI_Comm comm, int comm_keyval) {
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    check_keyval(comm_keyval, fn);
    auto it = find_attr(c, comm_keyval);
    if (it == c.attrs.end()) {
      fail(MPI_ERR_KEYVAL, fn,
           "keyval " + std::to_string(comm_keyval) + " has no value on this communicator");
    }
    int rc = call_delete(c, comm_keyval, it->second);
    if (rc != MPI_SUCCESS) fail(rc, fn, "the delete callback returned error code " + std::to_string(rc));
    it = find_attr(c, comm_keyval);
    if (it != c.attrs.end()) {
      c.attrs.erase(it);
      release_holder(comm_keyval);
    }
    return MPI_SUCCESS;
  });
}

int get_attr(const char* fn, MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    if (attribute_val == nullptr || flag == nullptr) fail(MPI_ERR_ARG, fn, "NULL argument");
    static int tag_ub = kTagUb;
    static int universe = 0;
    static int appnum = 0;
    static int wtime_global = 0;
    static int host = MPI_PROC_NULL;
    static int io = MPI_ANY_SOURCE;
    static int lastusedcode = MPI_ERR_LASTCODE;
    int* value = nullptr;
    switch (comm_keyval) {
      case MPI_TAG_UB:
        value = &tag_ub;
        break;
      case MPI_UNIVERSE_SIZE:
        universe = engine().size();
        value = &universe;
        break;
      case MPI_APPNUM:
        value = &appnum;
        break;
      case MPI_WTIME_IS_GLOBAL:
        value = &wtime_global;
        break;
      case MPI_HOST:
        value = &host;
        break;
      case MPI_IO:
        value = &io;
        break;
      case MPI_LASTUSEDCODE:
        lastusedcode = last_used_code();  // follows MPI_Add_error_class/code
        value = &lastusedcode;
        break;
      default: {
        auto kv = keyvals().all.find(comm_keyval);
        if (kv == keyvals().all.end()) {
          fail(MPI_ERR_KEYVAL, fn,
               "invalid keyval " + std::to_string(comm_keyval) + " (argument comm_keyval)");
        }
        auto it = find_attr(c, comm_keyval);
        *flag = it != c.attrs.end() ? 1 : 0;
        if (*flag != 0) *static_cast<void**>(attribute_val) = it->second;
        return MPI_SUCCESS;
      }
    }
    *static_cast<int**>(attribute_val) = value;
    *flag = 1;
    return MPI_SUCCESS;
  });
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                                       void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                       extra_state);
}
TAKYON_MPI_WEAK_ALIAS(Comm_create_keyval)

extern "C" int PMPI_Comm_free_keyval(int* comm_keyval) {
  return free_keyval("MPI_Comm_free_keyval", comm_keyval);
}
TAKYON_MPI_WEAK_ALIAS(Comm_free_keyval)

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
TAKYON_MPI_WEAK_ALIAS(Comm_set_attr)

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}
TAKYON_MPI_WEAK_ALIAS(Comm_delete_attr)

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}
TAKYON_MPI_WEAK_ALIAS(Comm_get_attr)

// The MPI-1 names, deprecated but still in MPI-5 (and its ABI): MPI_Copy_function and
// MPI_Delete_function are MPI_Comm_copy_attr_function and MPI_Comm_delete_attr_function, and
// MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN have the values of the MPI_COMM_ ones.
extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                                  void* extra_state) {
  return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}
TAKYON_MPI_WEAK_ALIAS(Keyval_create)

extern "C" int PMPI_Keyval_free(int* keyval) {
  return free_keyval("MPI_Keyval_free", keyval);
}
TAKYON_MPI_WEAK_ALIAS(Keyval_free)

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}
TAKYON_MPI_WEAK_ALIAS(Attr_put)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
TAKYON_MPI_WEAK_ALIAS(Attr_get)

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  return delete_attr("MPI_Attr_delete", comm, keyval);
}
TAKYON_MPI_WEAK_ALIAS(Attr_delete)
