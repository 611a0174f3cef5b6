// SPDX-License-Identifier: MIT
// Loads the Ucx module (libtakyon_ucx.so, the only part of Takyon that links UCX) the first time a
// Ucx path is created, so that a program that never creates one never loads UCX (nor gets the
// signal handlers libucs installs when it loads).
#pragma once

#include <string>

#include "error_log.hpp"
#include "ucx_module_api.hpp"

namespace takyon::detail {

/// The module's API, loading it on the first call (thread safe; a failed load is tried again on
/// the next call). On failure writes "Ucx provider: cannot load <path>: <why>" into `log`.
Status load_ucx_module(ErrorLog& log, const UcxModuleApi*& out);

/// Where this libtakyon looks for the module: <directory of libtakyon>/takyon/libtakyon_ucx.so (in
/// the build tree and in an install prefix alike, wherever the prefix is moved).
std::string ucx_module_path();

}  // namespace takyon::detail
