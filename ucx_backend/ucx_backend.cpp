// SPDX-License-Identifier: MIT
// The Ucx provider's part in libtakyon: reads the provider string, loads the Ucx module (which
// alone links UCX), connects the stream (TCP or, for -ID alone, an abstract Unix socket), then hands
// the stream to the module, which creates the UCX endpoint.
#include "ucx_backend.hpp"

#include <unistd.h>

#include <string_view>

#include "backends/net/stream_connect.hpp"
#include "ucx_loader.hpp"
#include "ucx_module_api.hpp"

namespace takyon::detail {
namespace {

// UCX 1.13's transport names and aliases (ucx_info -d, and the UCX_TLS documentation).
constexpr std::string_view kUcxKnownTls[] = {
    "all",  "self",      "tcp",       "sm",       "shm",      "posix", "sysv",      "cma",
    "knem", "xpmem",     "ib",        "rc",       "rc_v",     "rc_x",  "rc_verbs",  "rc_mlx5",
    "ud",   "ud_v",      "ud_x",      "ud_verbs", "ud_mlx5",  "dc",    "dc_x",      "dc_mlx5",
    "mm",   "cuda",      "cuda_copy", "cuda_ipc", "gdr_copy", "rocm",  "rocm_copy", "rocm_ipc",
    "ugni", "ugni_rdma", "ugni_udt",  "ugni_smsg"};

// Checks a -tls= value: comma-separated UCX transport names or aliases, optionally led by '^'
// (all but these). Unknown names are rejected here, naming them, rather than silently ignored.
Status check_ucx_tls_list(const std::string& tls, const std::string& provider, ErrorLog& log) {
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
    for (std::string_view k : kUcxKnownTls) known = known || k == name;
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

}  // namespace

Status UcxBackend::create(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                          std::unique_ptr<Backend>& out) {
  const ProviderArgs& provider = *config.provider;
  const std::string& text = provider.text();
  UcxOptions options;
  options.provider = text;
  options.polling = config.is_polling;
  if (auto protocol = provider.value("protocol")) {
    if (*protocol == "auto") {
      options.protocol = UcxProtocol::kAuto;
    } else if (*protocol == "am") {
      options.protocol = UcxProtocol::kAm;
    } else if (*protocol == "map") {
      options.protocol = UcxProtocol::kMap;
    } else {
      return TAKYON_FAIL(
          log, Status::kInvalidArgument,
          "interconnect '%s': -protocol=%.*s is not one of auto, am (active messages) and map (write "
          "into the peer's mapped memory)",
          text.c_str(), static_cast<int>(protocol->size()), protocol->data());
    }
  }
  if (auto value = provider.value("tls")) {
    options.tls = std::string(*value);
    if (check_ucx_tls_list(options.tls, text, log) != Status::kOk) return log.status();
  }

  const bool server = provider.has_flag("server");
  const bool client = provider.has_flag("client");
  const bool same_host = !server && !client;  // "Ucx -ID=<n>": both endpoints on this host
  if (same_host && (!provider.value("ID") || provider.value("IP") || provider.value("port") ||
                    provider.has_flag("reuse"))) {
    return TAKYON_FAIL(
        log, Status::kInvalidArgument,
        "interconnect '%s' needs -ID=<n> alone (both endpoints on this host), or -server/-client "
        "with -IP=<addr> and -port=<p> or -ID=<n>",
        text.c_str());
  }
  if (!same_host && !provider.value("IP")) {
    return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': -%s needs -IP=<addr>", text.c_str(),
                       server ? "server" : "client");
  }

  // Before the stream: without the module this endpoint fails at once, not after its peer came.
  const UcxModuleApi* module = nullptr;
  if (load_ucx_module(log, module) != Status::kOk) return log.status();

  StreamConnection stream;
  if (same_host) {
    // The endpoints meet on an abstract Unix socket.
    const std::string name = strf("takyon-%u-Ucx-%llu", static_cast<unsigned>(getuid()),
                                  static_cast<unsigned long long>(provider.number("ID")));
    if (connect_unix_stream(name, config, deadline, log, stream) != Status::kOk) return log.status();
  } else if (connect_tcp_stream(config, deadline, log, stream) != Status::kOk) {
    return log.status();
  }
  return module->create(config, stream, options, deadline, log, out);
}

}  // namespace takyon::detail
