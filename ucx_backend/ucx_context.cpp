// SPDX-License-Identifier: MIT
#include "ucx_context.hpp"

#include <map>
#include <mutex>
#include <string_view>

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

// UCX 1.13's transport names and aliases (ucx_info -d, and the UCX_TLS documentation).
constexpr std::string_view kKnownTls[] = {
    "all",  "self",      "tcp",       "sm",       "shm",      "posix", "sysv",      "cma",
    "knem", "xpmem",     "ib",        "rc",       "rc_v",     "rc_x",  "rc_verbs",  "rc_mlx5",
    "ud",   "ud_v",      "ud_x",      "ud_verbs", "ud_mlx5",  "dc",    "dc_x",      "dc_mlx5",
    "mm",   "cuda",      "cuda_copy", "cuda_ipc", "gdr_copy", "rocm",  "rocm_copy", "rocm_ipc",
    "ugni", "ugni_rdma", "ugni_udt",  "ugni_smsg"};

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

Status check_tls_list(const std::string& tls, const std::string& provider, ErrorLog& log) {
  std::string_view rest = tls;
  if (!rest.empty() && rest.front() == '^') rest.remove_prefix(1);
  if (rest.empty()) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s': -tls= names no transport (e.g. -tls=tcp, "
                       "-tls=sysv,self, -tls=^tcp)",
                       provider.c_str());
  }
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    bool known = false;
    for (std::string_view k : kKnownTls) known = known || k == name;
    if (!known) {
      return TAKYON_FAIL(
          log, Status::kInvalidArgument,
          "interconnect '%s': -tls= names '%.*s', which is not a UCX transport (known: tcp, self, sm/shm, "
          "posix, sysv, cma, knem, xpmem, ib, rc, ud, dc, cuda_copy, cuda_ipc, gdr_copy, ...)",
          provider.c_str(), static_cast<int>(name.size()), name.data());
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
    if (rest.empty()) {
      return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': -tls= ends with a comma",
                         provider.c_str());
    }
  }
  return Status::kOk;
}

Status UcxContext::acquire(const std::string& tls, const std::string& provider, ErrorLog& log,
                           std::shared_ptr<UcxContext>& out) {
  std::lock_guard lock(g_mutex);
  auto& map = contexts();
  if (auto it = map.find(tls); it != map.end()) {
    if ((out = it->second.lock())) return Status::kOk;
  }
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
  params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 1;  // paths (one worker each) may live in different threads
  ucp_context_h context = nullptr;
  status = ucp_init(&params, config, &context);
  ucp_config_release(config);
  if (status != UCS_OK) {
    return TAKYON_FAIL(log, Status::kSystem, "'%s': ucp_init%s%s failed: %s", provider.c_str(),
                       tls.empty() ? "" : " with -tls=", tls.c_str(), ucs_text(status).c_str());
  }
  out.reset(new UcxContext(context, tls));
  map[tls] = out;
  return Status::kOk;
}

UcxContext::~UcxContext() {
  ucp_cleanup(context_);
}

}  // namespace takyon::detail
