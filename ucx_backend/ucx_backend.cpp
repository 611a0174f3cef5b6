// SPDX-License-Identifier: MIT
// The Ucx provider: connects the stream (TCP or, for -ID alone, an abstract Unix socket), then
// hands it to a UcxEndpoint.
#include "ucx_backend.hpp"

#include <unistd.h>

#include <cstdio>

#include "takyon/takyon.h"

#include "backends/net/stream_connect.hpp"
#include "ucx_context.hpp"
#include "ucx_endpoint.hpp"

namespace takyon::detail {

Status UcxBackend::create(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                          std::unique_ptr<Backend>& out) {
  const ProviderArgs& provider = *config.provider;
  const std::string& text = provider.text();
  UcxEndpoint::Options options;
  options.provider = text;
  options.polling = config.is_polling;
  if (auto protocol = provider.value("protocol")) {
    if (*protocol == "auto") {
      options.protocol = UcxEndpoint::Protocol::kAuto;
    } else if (*protocol == "am") {
      options.protocol = UcxEndpoint::Protocol::kAm;
    } else if (*protocol == "map") {
      options.protocol = UcxEndpoint::Protocol::kMap;
    } else {
      return TAKYON_FAIL(
          log, Status::kInvalidArgument,
          "interconnect '%s': -protocol=%.*s is not one of auto, am (active messages) and map (write "
          "into the peer's mapped memory)",
          text.c_str(), static_cast<int>(protocol->size()), protocol->data());
    }
  }
  std::string tls;
  if (auto value = provider.value("tls")) {
    tls = std::string(*value);
    if (check_tls_list(tls, text, log) != Status::kOk) return log.status();
  }

  const bool server = provider.has_flag("server");
  const bool client = provider.has_flag("client");
  StreamConnection stream;
  if (!server && !client) {
    // "Ucx -ID=<n>": both endpoints on this host; they meet on an abstract Unix socket.
    if (!provider.value("ID") || provider.value("IP") || provider.value("port") ||
        provider.has_flag("reuse")) {
      return TAKYON_FAIL(
          log, Status::kInvalidArgument,
          "interconnect '%s' needs -ID=<n> alone (both endpoints on this host), or -server/-client "
          "with -IP=<addr> and -port=<p> or -ID=<n>",
          text.c_str());
    }
    const std::string name = strf("takyon-%u-Ucx-%llu", static_cast<unsigned>(getuid()),
                                  static_cast<unsigned long long>(provider.number("ID")));
    if (connect_unix_stream(name, config, deadline, log, stream) != Status::kOk) return log.status();
  } else {
    if (!provider.value("IP")) {
      return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': -%s needs -IP=<addr>",
                         text.c_str(), server ? "server" : "client");
    }
    if (connect_tcp_stream(config, deadline, log, stream) != Status::kOk) return log.status();
  }

  std::shared_ptr<UcxContext> context;
  if (UcxContext::acquire(tls, text, log, context) != Status::kOk) return log.status();
  auto endpoint =
      std::make_unique<UcxEndpoint>(std::move(context), std::move(stream), std::move(options), log);
  if (endpoint->connect(config, deadline) != Status::kOk) {
    TAKYON_FRAME(log, "connecting endpoint %c of '%s'", config.side(), text.c_str());
    (void)endpoint->destroy(false, Deadline::after(0.0));
    return log.status();
  }
  if ((config.verbosity & TAKYON_VERBOSITY_CREATE_DESTROY_MORE) != 0) {
    std::printf("Takyon: '%s' endpoint %c: UCX protocol %s\n", text.c_str(), config.side(),
                endpoint->protocol_name());
  }
  out = std::move(endpoint);
  return Status::kOk;
}

}  // namespace takyon::detail
