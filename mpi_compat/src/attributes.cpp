// SPDX-License-Identifier: MIT
// Keyvals and attribute lists (see attributes.hpp).
#include "attributes.hpp"

#include <map>
#include <string>

#include "errors.hpp"

namespace takyon::mpi {
namespace {

constexpr int kFirstUserKeyval = 1000;  // past the predefined ones (MPI_TAG_UB = 501...)

struct Keyval {
  AttrKind kind;
  AttrCallbacks callbacks;
  void* extra_state;
  int holders = 0;     ///< objects holding a value for it
  bool freed = false;  ///< MPI_*_free_keyval was called
};

struct Keyvals {
  std::map<int, Keyval> all;
  int next = kFirstUserKeyval;
};

Keyvals& keyvals() {
  static Keyvals k;
  return k;
}

const char* kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::kComm:
      return "communicator";
    case AttrKind::kType:
      return "datatype";
    case AttrKind::kWin:
      return "window";
  }
  return "unknown";
}

Keyval& usable(AttrKind kind, int keyval, const char* fn, const char* arg, bool freed_ok) {
  auto it = keyvals().all.find(keyval);
  if (it == keyvals().all.end() || (it->second.freed && !freed_ok)) {
    fail(MPI_ERR_KEYVAL, fn,
         "invalid keyval " + std::to_string(keyval) + " (argument " + arg + "; " +
             (it == keyvals().all.end() ? "never created" : "freed") + ")");
  }
  if (it->second.kind != kind) {
    fail(MPI_ERR_KEYVAL, fn,
         "keyval " + std::to_string(keyval) + " was created for " + kind_name(it->second.kind) +
             " attributes, not " + kind_name(kind) + " ones (argument " + arg + ")");
  }
  return it->second;
}

void release_holder(int keyval) {
  auto it = keyvals().all.find(keyval);
  if (it == keyvals().all.end()) return;
  if (--it->second.holders == 0 && it->second.freed) keyvals().all.erase(it);
}

int call_delete(AttrKind kind, void* object, int keyval, void* value) {
  auto it = keyvals().all.find(keyval);
  if (it == keyvals().all.end()) return MPI_SUCCESS;
  const Keyval& k = it->second;
  if (kind == AttrKind::kComm) {
    if (k.callbacks.comm_delete == MPI_COMM_NULL_DELETE_FN) return MPI_SUCCESS;
    return k.callbacks.comm_delete(static_cast<MPI_Comm>(object), keyval, value, k.extra_state);
  }
  if (kind == AttrKind::kWin) {
    if (k.callbacks.win_delete == MPI_WIN_NULL_DELETE_FN) return MPI_SUCCESS;
    return k.callbacks.win_delete(static_cast<MPI_Win>(object), keyval, value, k.extra_state);
  }
  if (k.callbacks.type_delete == MPI_TYPE_NULL_DELETE_FN) return MPI_SUCCESS;
  return k.callbacks.type_delete(static_cast<MPI_Datatype>(object), keyval, value, k.extra_state);
}

AttrList::iterator find_attr(AttrList& attrs, int keyval) {
  auto it = attrs.begin();
  while (it != attrs.end() && it->first != keyval) ++it;
  return it;
}

/// The value's delete callback, then its removal (the callback may have changed the list).
int delete_one(AttrKind kind, void* object, AttrList& attrs, int keyval, void* value) {
  int rc = call_delete(kind, object, keyval, value);
  if (rc != MPI_SUCCESS) return rc;
  auto it = find_attr(attrs, keyval);
  if (it != attrs.end()) {
    attrs.erase(it);
    release_holder(keyval);
  }
  return MPI_SUCCESS;
}

}  // namespace

int create_keyval(AttrKind kind, const AttrCallbacks& callbacks, void* extra_state) {
  Keyvals& k = keyvals();
  int id = k.next++;
  k.all.emplace(id, Keyval{kind, callbacks, extra_state});
  return id;
}

void free_keyval(AttrKind kind, int* keyval, const char* fn, const char* arg) {
  Keyval& kv = usable(kind, *keyval, fn, arg, false);
  kv.freed = true;
  if (kv.holders == 0) keyvals().all.erase(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
}

void check_keyval(AttrKind kind, int keyval, const char* fn, const char* arg, bool freed_ok) {
  usable(kind, keyval, fn, arg, freed_ok);
}

void set_attr(AttrKind kind, void* object, AttrList& attrs, int keyval, void* value, const char* fn) {
  auto it = find_attr(attrs, keyval);
  if (it != attrs.end()) {
    int rc = call_delete(kind, object, keyval, it->second);
    if (rc != MPI_SUCCESS)
      fail(rc, fn, "the delete callback of the old value returned error code " + std::to_string(rc));
    it = find_attr(attrs, keyval);  // the callback may have changed the list
  }
  if (it != attrs.end()) {
    it->second = value;
  } else {
    attrs.emplace_back(keyval, value);
    ++keyvals().all[keyval].holders;
  }
}

bool get_attr(const AttrList& attrs, int keyval, void** value) {
  for (const auto& [k, v] : attrs) {
    if (k == keyval) {
      *value = v;
      return true;
    }
  }
  return false;
}

void delete_attr(AttrKind kind, void* object, AttrList& attrs, int keyval, const char* fn) {
  auto it = find_attr(attrs, keyval);
  if (it == attrs.end()) {
    fail(MPI_ERR_KEYVAL, fn, "keyval " + std::to_string(keyval) + " has no value on this " + kind_name(kind));
  }
  int rc = delete_one(kind, object, attrs, keyval, it->second);
  if (rc != MPI_SUCCESS) fail(rc, fn, "the delete callback returned error code " + std::to_string(rc));
}

int copy_attrs(AttrKind kind, void* object, const AttrList& from, AttrList& to) {
  // A copy: a callback may set or delete attributes of the object being copied, changing `from`.
  const AttrList attrs = from;  // NOLINT(performance-unnecessary-copy-initialization)
  for (const auto& [keyval, value] : attrs) {
    auto it = keyvals().all.find(keyval);
    if (it == keyvals().all.end()) continue;
    const Keyval& k = it->second;
    void* out = nullptr;
    int flag = 0;
    int rc = MPI_SUCCESS;
    if (kind == AttrKind::kComm) {
      if (k.callbacks.comm_copy == MPI_COMM_NULL_COPY_FN) continue;
      if (k.callbacks.comm_copy == MPI_COMM_DUP_FN) {
        out = value;
        flag = 1;
      } else {
        rc = k.callbacks.comm_copy(static_cast<MPI_Comm>(object), keyval, k.extra_state, value, &out, &flag);
      }
    } else {
      if (k.callbacks.type_copy == MPI_TYPE_NULL_COPY_FN) continue;
      if (k.callbacks.type_copy == MPI_TYPE_DUP_FN) {
        out = value;
        flag = 1;
      } else {
        rc = k.callbacks.type_copy(static_cast<MPI_Datatype>(object), keyval, k.extra_state, value, &out,
                                   &flag);
      }
    }
    if (rc != MPI_SUCCESS) return rc;
    if (flag != 0) {
      to.emplace_back(keyval, out);
      ++keyvals().all[keyval].holders;
    }
  }
  return MPI_SUCCESS;
}

int delete_attrs(AttrKind kind, void* object, AttrList& attrs) {
  while (!attrs.empty()) {
    auto [keyval, value] = attrs.back();
    int rc = delete_one(kind, object, attrs, keyval, value);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace takyon::mpi
