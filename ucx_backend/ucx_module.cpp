// SPDX-License-Identifier: MIT
// The Ucx module's entry point (libtakyon_ucx.so): libtakyon loads it when the first Ucx path is
// created and calls create() for each Ucx endpoint, with the stream to the peer already connected.
#include <signal.h>
#include <ucs/config/global_opts.h>
#include <ucs/debug/debug.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>

#include "takyon/takyon.h"

#include "ucx_context.hpp"
#include "ucx_endpoint.hpp"
#include "ucx_module_api.hpp"

namespace takyon::detail {
namespace {

// libucs installs handlers for its error signals (UCX_ERROR_SIGNALS: SIGILL, SIGSEGV, SIGBUS,
// SIGFPE) when it loads; they print UCX's backtrace and take those signals from the application.
// A program that creates a Ucx path did not ask for that, so they are given back (UCX restores
// the handler each had before) unless the user set UCX_ERROR_SIGNALS or UCX_HANDLE_ERRORS, which
// are UCX's own variables (ucx_info -c).
void release_error_signals() {
  if (std::getenv("UCX_ERROR_SIGNALS") != nullptr || std::getenv("UCX_HANDLE_ERRORS") != nullptr) return;
  for (unsigned i = 0; i < ucs_global_opts.error_signals.count; ++i) {
    ucs_debug_disable_signal(ucs_global_opts.error_signals.signals[i]);
  }
}

Status create(const EndpointConfig& config, StreamConnection& stream, const UcxOptions& options,
              Deadline deadline, ErrorLog& log, std::unique_ptr<Backend>& out) noexcept {
  try {
    std::shared_ptr<UcxContext> context;
    if (UcxContext::acquire(options.tls, options.provider, log, context) != Status::kOk) return log.status();
    auto endpoint = std::make_unique<UcxEndpoint>(std::move(context), std::move(stream), options, log);
    if (endpoint->connect(config, deadline) != Status::kOk) {
      TAKYON_FRAME(log, "connecting endpoint %c of '%s'", config.side(), options.provider.c_str());
      (void)endpoint->destroy(false, Deadline::after(0.0));
      return log.status();
    }
    if ((config.verbosity & TAKYON_VERBOSITY_CREATE_DESTROY_MORE) != 0) {
      std::printf("Takyon: '%s' endpoint %c: UCX protocol %s\n", options.provider.c_str(), config.side(),
                  endpoint->protocol_name());
    }
    out = std::move(endpoint);
    return Status::kOk;
  } catch (const std::bad_alloc&) {
    return log.fail(Status::kNoMemory, __FILE__, __func__, __LINE__,
                    "out of memory creating the UCX endpoint");
  } catch (const std::exception& e) {
    return log.fail(Status::kSystem, __FILE__, __func__, __LINE__, e.what());
  }
}

}  // namespace
}  // namespace takyon::detail

extern "C" __attribute__((visibility("default"))) const takyon::detail::UcxModuleApi*
takyon_ucx_module_api() {
  using namespace takyon::detail;
  static std::once_flag once;
  std::call_once(once, release_error_signals);
  static const UcxModuleApi api{ucx_abi_sizes(), TAKYON_UCX_BUILD_KEY, ucp_get_version_string(), &create};
  return &api;
}
