// SPDX-License-Identifier: MIT
// Ucx bench names, provider strings and perftest transports.
#include "ucx_providers.hpp"

#include "socket_providers.hpp"

namespace takyon::bench {

bool find_ucx_provider(std::string_view name, UcxKind& kind) {
  if (name == "UcxTcp") {
    kind = UcxKind::kTcp;
  } else if (name == "UcxShm") {
    kind = UcxKind::kShm;
  } else if (name == "UcxShmAm") {
    kind = UcxKind::kShmAm;
  } else {
    return false;
  }
  return true;
}

const std::vector<std::string>& ucx_provider_names() {
  static const std::vector<std::string> kNames = {"UcxTcp", "UcxShm", "UcxShmAm"};
  return kNames;
}

bool ucx_driver_covers(std::string_view name) {
  return name == "Ucx";
}

const std::vector<std::string>& ucx_perftest_transports(UcxKind kind) {
  static const std::vector<std::string> kTcp = {"tcp"};
  static const std::vector<std::string> kShm = {"sysv", "posix"};
  return kind == UcxKind::kTcp ? kTcp : kShm;
}

UcxProviderStrings make_ucx_provider_strings(UcxKind kind, std::uint32_t id) {
  UcxProviderStrings s;
  switch (kind) {
    case UcxKind::kTcp: {
      // -reuse: the port may still have connections of an earlier run in TIME_WAIT.
      const std::string port = free_loopback_port();
      s.a = "Ucx -server -IP=127.0.0.1 -port=" + port + " -reuse -tls=tcp";
      s.b = "Ucx -client -IP=127.0.0.1 -port=" + port + " -tls=tcp";
      s.title = s.a + " / -client";
      break;
    }
    case UcxKind::kShm:
      s.a = s.b = "Ucx -ID=" + std::to_string(id) + " -tls=sysv,posix";
      s.title = s.a;
      break;
    case UcxKind::kShmAm:
      s.a = s.b = "Ucx -ID=" + std::to_string(id) + " -tls=sysv,posix -protocol=am";
      s.title = s.a;
      break;
  }
  return s;
}

}  // namespace takyon::bench
