// SPDX-License-Identifier: MIT
// Info objects: MPI_Info_create/set/get/get_valuelen/get_string/delete/get_nkeys/get_nthkey/dup/free
// and the predefined MPI_INFO_ENV. An info keeps its keys in the order they were first set
// (Info_get_nthkey); setting a key again replaces its value in place. Handles are numbers from a
// counter that never repeats, looked up in a registry, so a freed or garbage handle is MPI_ERR_INFO
// and never a crash, and a freed handle never names a later info. Info calls need no MPI_Init (MPI-4).
#include "api/info.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/export.hpp"
#include "api/guard.hpp"
#include "runtime.hpp"

namespace takyon::mpi {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

// User infos by handle value. A mutex, not the MPI thread rule: info calls may come before MPI_Init.
struct Registry {
  std::mutex mutex;
  std::unordered_map<std::uintptr_t, Entries> infos;
  std::uintptr_t next = 0x10000000;  // far from the predefined handles (MPI_INFO_NULL = 0x130)
};

Registry& registry() {
  static Registry r;
  return r;
}

constexpr std::uintptr_t kHandleStep = 16;

std::uintptr_t value_of(MPI_Info info) {
  return reinterpret_cast<std::uintptr_t>(info);
}

/// The command line from /proc/self/cmdline: right whatever MPI_Init was given.
std::vector<std::string> proc_cmdline() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t pos = 0; pos < cmdline.size();) {
    std::size_t end = cmdline.find('\0', pos);
    if (end == std::string::npos) end = cmdline.size();
    args.push_back(cmdline.substr(pos, end - pos));
    pos = end + 1;
  }
  return args;
}

/// MPI_INFO_ENV's keys, read when asked: command and argv (from `args`), maxprocs and thread_level
/// (while MPI is initialized), host, arch, wdir.
Entries env_entries(const std::vector<std::string>& args = proc_cmdline()) {
  Entries e;
  auto add = [&e](const char* key, std::string value) {
    if (value.size() >= MPI_MAX_INFO_VAL) value.resize(MPI_MAX_INFO_VAL - 1);
    e.emplace_back(key, std::move(value));
  };
  if (!args.empty()) {
    add("command", args[0]);
    std::string rest;
    for (std::size_t i = 1; i < args.size(); ++i) rest += (i > 1 ? " " : "") + args[i];
    add("argv", rest);
  }
  if (runtime_active()) add("maxprocs", std::to_string(engine().size()));
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) add("host", host);
#if defined(__x86_64__)
  add("arch", "x86_64");
#elif defined(__aarch64__)
  add("arch", "aarch64");
#endif
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) add("wdir", cwd);
  if (runtime_active()) {
    if (const char* level = thread_level_name(thread_level())) add("thread_level", level);
  }
  return e;
}

/// Runs `read` on the entries of a readable info (a live one or MPI_INFO_ENV) under the registry's
/// lock, without copying them; throws MPI_ERR_INFO for MPI_INFO_NULL and freed or garbage handles.
template <class Read>
void read_info(MPI_Info info, const char* fn, const Read& read) {
  if (info == MPI_INFO_ENV) {
    const Entries env = env_entries();
    read(env);
    return;
  }
  if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, fn, "invalid info object MPI_INFO_NULL (argument info)");
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.infos.find(value_of(info));
  if (it == r.infos.end()) {
    fail(MPI_ERR_INFO, fn, "invalid info object (argument info: freed, or not made by MPI_Info_create/dup)");
  }
  read(std::as_const(it->second));
}

/// Runs `change` on the entries of a live user info under the registry's lock; throws MPI_ERR_INFO
/// for MPI_INFO_NULL, MPI_INFO_ENV (read-only) and freed or garbage handles.
template <class Change>
void change_info(MPI_Info info, const char* fn, const Change& change) {
  if (info == MPI_INFO_ENV) fail(MPI_ERR_INFO, fn, "MPI_INFO_ENV is read-only (argument info)");
  if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, fn, "invalid info object MPI_INFO_NULL (argument info)");
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.infos.find(value_of(info));
  if (it == r.infos.end()) {
    fail(MPI_ERR_INFO, fn, "invalid info object (argument info: freed, or not made by MPI_Info_create/dup)");
  }
  change(it->second);
}

MPI_Info new_info(Entries entries) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::uintptr_t h = r.next;
  r.next += kHandleStep;
  r.infos.emplace(h, std::move(entries));
  return reinterpret_cast<MPI_Info>(h);
}

/// A key of 1 to MPI_MAX_INFO_KEY - 1 characters; throws MPI_ERR_INFO_KEY naming `fn`.
std::string check_key(const char* key, const char* fn) {
  if (key == nullptr) fail(MPI_ERR_INFO_KEY, fn, "key is NULL (argument key)");
  std::size_t n = strnlen(key, MPI_MAX_INFO_KEY);
  if (n == 0) fail(MPI_ERR_INFO_KEY, fn, "the key is empty (argument key)");
  if (n >= MPI_MAX_INFO_KEY) {
    fail(MPI_ERR_INFO_KEY, fn,
         "the key is longer than MPI_MAX_INFO_KEY - 1 = " + std::to_string(MPI_MAX_INFO_KEY - 1) +
             " characters (argument key)");
  }
  return std::string(key, n);
}

const std::string* find_value(const Entries& e, const std::string& key) {
  for (const auto& [k, v] : e) {
    if (k == key) return &v;
  }
  return nullptr;
}

}  // namespace

void check_info_arg(MPI_Info info, const char* fn) {
  if (info == MPI_INFO_NULL || info == MPI_INFO_ENV) return;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.infos.find(value_of(info)) == r.infos.end()) {
    fail(MPI_ERR_INFO, fn,
         "invalid info object (argument info: freed, or not made by MPI_Info_create/dup; "
         "MPI_INFO_NULL passes no hints)");
  }
}

InfoEntries info_entries(MPI_Info info, const char* fn) {
  if (info == MPI_INFO_NULL) return {};
  Entries copy;
  read_info(info, fn, [&](const Entries& e) { copy = e; });
  return copy;
}

MPI_Info make_info(InfoEntries entries) {
  return new_info(std::move(entries));
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return nullptr;
  }
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Info_create(MPI_Info* info) {
  return guarded("MPI_Info_create", MPI_COMM_WORLD, [&] {
    if (info == nullptr) fail(MPI_ERR_ARG, "MPI_Info_create", "info is NULL (argument info)");
    *info = new_info({});
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_create)

extern "C" int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  constexpr const char* fn = "MPI_Info_set";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    std::string k = check_key(key, fn);
    if (value == nullptr) fail(MPI_ERR_INFO_VALUE, fn, "value is NULL (argument value)");
    std::size_t n = strnlen(value, MPI_MAX_INFO_VAL);
    if (n >= MPI_MAX_INFO_VAL) {
      fail(MPI_ERR_INFO_VALUE, fn,
           "the value is longer than MPI_MAX_INFO_VAL - 1 = " + std::to_string(MPI_MAX_INFO_VAL - 1) +
               " characters (argument value)");
    }
    change_info(info, fn, [&](Entries& e) {
      for (auto& [ek, ev] : e) {
        if (ek == k) {
          ev.assign(value, n);  // keeps the key's place in the order
          return;
        }
      }
      e.emplace_back(std::move(k), std::string(value, n));
    });
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_set)

extern "C" int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  constexpr const char* fn = "MPI_Info_get";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    std::string k = check_key(key, fn);
    if (valuelen < 0)
      fail(MPI_ERR_ARG, fn, "negative valuelen " + std::to_string(valuelen) + " (argument valuelen)");
    if (value == nullptr) fail(MPI_ERR_ARG, fn, "value is NULL (argument value)");
    if (flag == nullptr) fail(MPI_ERR_ARG, fn, "flag is NULL (argument flag)");
    read_info(info, fn, [&](const Entries& e) {
      const std::string* v = find_value(e, k);
      *flag = v != nullptr ? 1 : 0;
      if (v != nullptr) {
        // value holds valuelen + 1 chars: at most valuelen of the value, then the terminator
        std::size_t n = v->size() < std::size_t(valuelen) ? v->size() : std::size_t(valuelen);
        std::memcpy(value, v->data(), n);
        value[n] = '\0';
      }
    });
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_get)

extern "C" int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  constexpr const char* fn = "MPI_Info_get_valuelen";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    std::string k = check_key(key, fn);
    if (valuelen == nullptr) fail(MPI_ERR_ARG, fn, "valuelen is NULL (argument valuelen)");
    if (flag == nullptr) fail(MPI_ERR_ARG, fn, "flag is NULL (argument flag)");
    read_info(info, fn, [&](const Entries& e) {
      const std::string* v = find_value(e, k);
      *flag = v != nullptr ? 1 : 0;
      if (v != nullptr) *valuelen = int(v->size());  // without the terminator
    });
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_get_valuelen)

extern "C" int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  constexpr const char* fn = "MPI_Info_get_string";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    std::string k = check_key(key, fn);
    if (buflen == nullptr) fail(MPI_ERR_ARG, fn, "buflen is NULL (argument buflen)");
    if (*buflen < 0)
      fail(MPI_ERR_ARG, fn, "negative *buflen " + std::to_string(*buflen) + " (argument buflen)");
    if (*buflen > 0 && value == nullptr)
      fail(MPI_ERR_ARG, fn, "value is NULL with *buflen > 0 (argument value)");
    if (flag == nullptr) fail(MPI_ERR_ARG, fn, "flag is NULL (argument flag)");
    read_info(info, fn, [&](const Entries& e) {
      const std::string* v = find_value(e, k);
      *flag = v != nullptr ? 1 : 0;
      if (v == nullptr) return;  // value and buflen unchanged
      if (*buflen > 0) {
        // truncated to *buflen - 1 chars, always terminated; *buflen = 0 only asks for the length
        std::size_t room = std::size_t(*buflen) - 1;
        std::size_t n = v->size() < room ? v->size() : room;
        std::memcpy(value, v->data(), n);
        value[n] = '\0';
      }
      *buflen = int(v->size()) + 1;
    });
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_get_string)

extern "C" int PMPI_Info_delete(MPI_Info info, const char* key) {
  constexpr const char* fn = "MPI_Info_delete";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    std::string k = check_key(key, fn);
    change_info(info, fn, [&](Entries& e) {
      for (auto it = e.begin(); it != e.end(); ++it) {
        if (it->first == k) {
          e.erase(it);
          return;
        }
      }
      fail(MPI_ERR_INFO_NOKEY, fn, "no key '" + k + "' in the info object (argument key)");
    });
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_delete)

extern "C" int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  constexpr const char* fn = "MPI_Info_get_nkeys";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (nkeys == nullptr) fail(MPI_ERR_ARG, fn, "nkeys is NULL (argument nkeys)");
    read_info(info, fn, [&](const Entries& e) { *nkeys = int(e.size()); });
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_get_nkeys)

extern "C" int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  constexpr const char* fn = "MPI_Info_get_nthkey";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (key == nullptr) fail(MPI_ERR_ARG, fn, "key is NULL (argument key)");
    read_info(info, fn, [&](const Entries& e) {
      if (n < 0 || std::size_t(n) >= e.size()) {
        fail(MPI_ERR_ARG, fn,
             "invalid key index " + std::to_string(n) + " (argument n; the info has " +
                 std::to_string(e.size()) + " keys)");
      }
      const std::string& k = e[std::size_t(n)].first;  // < MPI_MAX_INFO_KEY chars, checked by Info_set
      std::memcpy(key, k.c_str(), k.size() + 1);
    });
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_get_nthkey)

extern "C" int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  constexpr const char* fn = "MPI_Info_dup";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (newinfo == nullptr) fail(MPI_ERR_ARG, fn, "newinfo is NULL (argument newinfo)");
    Entries copy;
    read_info(info, fn, [&](const Entries& e) { copy = e; });
    *newinfo = new_info(std::move(copy));  // takes the lock again: copied first
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_dup)

extern "C" int PMPI_Info_free(MPI_Info* info) {
  constexpr const char* fn = "MPI_Info_free";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (info == nullptr) fail(MPI_ERR_ARG, fn, "info is NULL (argument info)");
    if (*info == MPI_INFO_ENV) fail(MPI_ERR_INFO, fn, "MPI_INFO_ENV is predefined and cannot be freed");
    if (*info == MPI_INFO_NULL) fail(MPI_ERR_INFO, fn, "invalid info object MPI_INFO_NULL (argument info)");
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (r.infos.erase(value_of(*info)) == 0) {
      fail(MPI_ERR_INFO, fn,
           "invalid info object (argument info: already freed, or not made by MPI_Info_create/dup)");
    }
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_free)

// MPI_INFO_ENV's keys in a new info object, before MPI_Init as well; command and argv come from the
// arguments when the caller passes them (argv NULL: from the process's command line, as MPI_INFO_ENV).
extern "C" int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  constexpr const char* fn = "MPI_Info_create_env";
  return guarded(fn, MPI_COMM_WORLD, [&] {
    if (info == nullptr) fail(MPI_ERR_ARG, fn, "info is NULL (argument info)");
    if (argc < 0) fail(MPI_ERR_ARG, fn, "negative argc " + std::to_string(argc) + " (argument argc)");
    std::vector<std::string> args;
    if (argv != nullptr) {
      for (int i = 0; i < argc; ++i) {
        if (argv[i] == nullptr)
          fail(MPI_ERR_ARG, fn, "argv[" + std::to_string(i) + "] is NULL (argument argv)");
        args.emplace_back(argv[i]);
      }
    } else {
      args = proc_cmdline();
    }
    *info = new_info(env_entries(args));
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Info_create_env)
