// SPDX-License-Identifier: MIT
// Finds the Ucx module next to libtakyon (dladdr on a libtakyon function), dlopen()s it once and
// checks that it was built with this libtakyon.
#include "ucx_loader.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

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

// The file this function's code was loaded from: libtakyon.so, or the program for a static libtakyon.
std::string ucx_this_image() {
  Dl_info info{};
  std::string image;
  if (dladdr(reinterpret_cast<const void*>(&ucx_module_path), &info) != 0 && info.dli_fname != nullptr) {
    image = info.dli_fname;
  }
  // The main program's entry may carry argv[0] (no directory) rather than a path.
  if (image.find('/') == std::string::npos) image = "/proc/self/exe";
  char real[PATH_MAX];
  if (realpath(image.c_str(), real) != nullptr) image = real;
  return image;
}

}  // namespace

std::string ucx_module_path() {
  return ucx_directory_of(ucx_this_image()) + "/" TAKYON_UCX_MODULE_DIR "/" TAKYON_UCX_MODULE_FILE;
}

Status load_ucx_module(ErrorLog& log, const UcxModuleApi*& out) {
  std::lock_guard lock(g_ucx_module_mutex);
  if (g_ucx_module_api != nullptr) {
    out = g_ucx_module_api;
    return Status::kOk;
  }
  const std::string path = ucx_module_path();
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
