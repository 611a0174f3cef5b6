// SPDX-License-Identifier: MIT
// Finds the Ucx module next to libtakyon (dladdr on a libtakyon function), dlopen()s it once and
// checks that it was built with this libtakyon.
#include "ucx_loader.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

namespace takyon::detail {
namespace {

std::mutex g_ucx_module_mutex;
const UcxModuleApi* g_ucx_module_api =
    nullptr;  // set once, under g_ucx_module_mutex; the module is never unloaded

std::string ucx_directory_of(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? std::string(".") : file.substr(0, slash);
}

// The file this function's code was loaded from (libtakyon.so, or the program for a static
// libtakyon), as an absolute path. Worked out when the image is loaded, before the program can
// change its directory: a relative name resolved later could point into a directory another user
// controls. The main program's entry may carry argv[0] rather than a path: /proc/self/exe then.
char g_ucx_image[PATH_MAX] = {};

[[gnu::constructor]] void ucx_remember_image() noexcept {
  Dl_info info{};
  char real[PATH_MAX];
  if (dladdr(reinterpret_cast<const void*>(&ucx_module_path), &info) != 0 && info.dli_fname != nullptr &&
      std::strchr(info.dli_fname, '/') != nullptr && realpath(info.dli_fname, real) != nullptr) {
    std::memcpy(g_ucx_image, real, sizeof(real));
    return;
  }
  const ssize_t n = readlink("/proc/self/exe", real, sizeof(real) - 1);
  if (n > 0) {
    real[n] = '\0';
    std::memcpy(g_ucx_image, real, static_cast<size_t>(n) + 1);
  }
}

}  // namespace

std::string ucx_module_path() {
  if (g_ucx_image[0] != '/') return {};  // never a path relative to whatever directory is current
  return ucx_directory_of(g_ucx_image) + "/" TAKYON_UCX_MODULE_DIR "/" TAKYON_UCX_MODULE_FILE;
}

Status load_ucx_module(ErrorLog& log, const UcxModuleApi*& out) {
  std::lock_guard lock(g_ucx_module_mutex);
  if (g_ucx_module_api != nullptr) {
    out = g_ucx_module_api;
    return Status::kOk;
  }
  const std::string path = ucx_module_path();
  if (path.empty()) {
    return TAKYON_FAIL(log, Status::kUnsupported,
                       "Ucx provider: cannot find the module: the absolute path of libtakyon (or of the "
                       "program) is unknown");
  }
  // RTLD_LOCAL: UCX's symbols stay out of the program's namespace. RTLD_NODELETE: UCX keeps
  // threads and atexit handlers; the module stays loaded for the life of the process.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    return TAKYON_FAIL(log, Status::kUnsupported,
                       "Ucx provider: cannot load %s: %s (the module is installed with libtakyon, in "
                       "the '" TAKYON_UCX_MODULE_DIR "' folder beside it, and needs UCX's libucp)",
                       path.c_str(), why != nullptr ? why : "unknown dlopen error");
  }
  auto entry = reinterpret_cast<UcxModuleEntry>(dlsym(handle, kUcxModuleEntry));
  const UcxModuleApi* api = entry != nullptr ? entry() : nullptr;
  if (api == nullptr) {
    return TAKYON_FAIL(log, Status::kUnsupported, "Ucx provider: cannot load %s: it has no %s", path.c_str(),
                       kUcxModuleEntry);
  }
  if (!(api->sizes == ucx_abi_sizes()) || std::strcmp(api->build_key, TAKYON_UCX_BUILD_KEY) != 0) {
    return TAKYON_FAIL(log, Status::kUnsupported,
                       "Ucx provider: cannot load %s: it was built for another libtakyon (module '%s', "
                       "this libtakyon '%s'); install the module of this build",
                       path.c_str(), api->build_key, TAKYON_UCX_BUILD_KEY);
  }
  g_ucx_module_api = api;
  out = api;
  return Status::kOk;
}

}  // namespace takyon::detail
