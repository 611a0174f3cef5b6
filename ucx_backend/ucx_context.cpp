// SPDX-License-Identifier: MIT
#include "ucx_context.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "ucx_fd_budget.hpp"

namespace takyon::detail {
namespace {

std::mutex g_mutex;
// Weak: a context lives while a path uses it. Keeping it for the process's life saves ucp_init
// when paths are created one after another, but UCX's async thread then outlives the paths, and
// a process forked later inherits UCX state without that thread: its tcp connections never
// complete (every event-driven tcp create in a forked child then hangs).
std::map<std::string, std::weak_ptr<UcxContext>>& contexts() {
  static auto* map =
      new std::map<std::string, std::weak_ptr<UcxContext>>;  // never destroyed: no exit-order issues
  return *map;
}

// The number of transport resources (one per transport and device, e.g. tcp/lo, tcp/eth0, sysv/memory)
// the context chose, from ucp_context_print_info (which has no query of its own). Written into memory:
// open_memstream needs no descriptor. When it cannot tell, as many as a host with two network
// interfaces and every shared-memory transport has.
long count_resources(ucp_context_h context) {
  constexpr long kUnknown = 8;
  char* text = nullptr;
  size_t size = 0;
  FILE* stream = open_memstream(&text, &size);
  if (stream == nullptr) return kUnknown;
  ucp_context_print_info(context, stream);
  std::fclose(stream);
  long count = 0;
  for (const char* at = text; at != nullptr && (at = std::strstr(at, "resource ")) != nullptr; at += 9)
    ++count;
  std::free(text);  // NOLINT(cppcoreguidelines-no-malloc): open_memstream's buffer
  return count > 0 ? count : kUnknown;
}

}  // namespace

std::string ucs_text(ucs_status_t status) {
  std::string name;
  switch (status) {
    case UCS_ERR_UNREACHABLE:
      name = "UCS_ERR_UNREACHABLE";
      break;
    case UCS_ERR_NO_RESOURCE:
      name = "UCS_ERR_NO_RESOURCE";
      break;
    case UCS_ERR_NO_MEMORY:
      name = "UCS_ERR_NO_MEMORY";
      break;
    case UCS_ERR_INVALID_PARAM:
      name = "UCS_ERR_INVALID_PARAM";
      break;
    case UCS_ERR_CONNECTION_RESET:
      name = "UCS_ERR_CONNECTION_RESET";
      break;
    case UCS_ERR_ENDPOINT_TIMEOUT:
      name = "UCS_ERR_ENDPOINT_TIMEOUT";
      break;
    case UCS_ERR_CANCELED:
      name = "UCS_ERR_CANCELED";
      break;
    case UCS_ERR_NO_DEVICE:
      name = "UCS_ERR_NO_DEVICE";
      break;
    case UCS_ERR_UNSUPPORTED:
      name = "UCS_ERR_UNSUPPORTED";
      break;
    case UCS_ERR_IO_ERROR:
      name = "UCS_ERR_IO_ERROR";
      break;
    default:
      name = "ucs_status " + std::to_string(static_cast<int>(status));
      break;
  }
  return name + " (" + ucs_status_string(status) + ")";
}

Status UcxContext::acquire(const std::string& tls, const std::string& provider, ErrorLog& log,
                           std::shared_ptr<UcxContext>& out) {
  std::lock_guard lock(g_mutex);
  auto& map = contexts();
  if (auto it = map.find(tls); it != map.end()) {
    if ((out = it->second.lock())) return Status::kOk;
  }
  if (require_free_fds(kUcxContextFds, "ucp_init", provider, log) != Status::kOk) return log.status();
  ucp_config_t* config = nullptr;
  ucs_status_t status = ucp_config_read(nullptr, nullptr, &config);
  if (status != UCS_OK) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': ucp_config_read failed: %s", provider.c_str(),
                       ucs_text(status).c_str());
  }
  if (!tls.empty()) status = ucp_config_modify(config, "TLS", tls.c_str());
  if (status != UCS_OK) {
    ucp_config_release(config);
    return TAKYON_FAIL(log, Status::kInvalidArgument, "'%s': UCX rejected -tls=%s: %s", provider.c_str(),
                       tls.c_str(), ucs_text(status).c_str());
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 1;  // paths (one worker each) may live in different threads
  ucp_context_h context = nullptr;
  status = ucp_init(&params, config, &context);
  ucp_config_release(config);
  if (status != UCS_OK) {
    return TAKYON_FAIL(log, status == UCS_ERR_NO_MEMORY ? Status::kNoMemory : Status::kSystem,
                       "'%s': ucp_init%s%s failed: %s", provider.c_str(),
                       tls.empty() ? "" : " with -tls=", tls.c_str(), ucs_text(status).c_str());
  }
  const long resources = count_resources(context);
  out.reset(new UcxContext(context, tls, resources));
  map[tls] = out;
  return Status::kOk;
}

UcxContext::~UcxContext() {
  ucp_cleanup(context_);
}

}  // namespace takyon::detail
