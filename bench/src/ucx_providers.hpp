// SPDX-License-Identifier: MIT
// The Ucx configurations takyon-bench runs (bench names UcxTcp, UcxShm, UcxShmAm), their provider
// strings per run, their baselines, and the UCX transports ucx_perftest is compared over.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace takyon::bench {

/// Which transports and which data protocol of the Ucx provider a bench name stands for.
enum class UcxKind {
  kTcp,    ///< UcxTcp: -tls=tcp (active messages); baseline plain TCP, like Socket.
  kShm,    ///< UcxShm: -tls=sysv,posix, -protocol=auto (map: memcpy into the peer's mapped buffer).
  kShmAm,  ///< UcxShmAm: -tls=sysv,posix -protocol=am (UCX active messages over shared memory).
};

/// The bench's name of a Ucx configuration -> its kind; false if `name` is not one of them.
bool find_ucx_provider(std::string_view name, UcxKind& kind);

/// The Ucx bench names, in `--provider all` order.
const std::vector<std::string>& ucx_provider_names();
/// Whether a Ucx configuration drives provider-table row `name` (the Ucx row).
bool ucx_driver_covers(std::string_view name);

/// Shared-memory kinds are measured against the floors (cache-line ping-pong, memcpy) like the
/// InterProcess providers; UcxTcp against the plain TCP program, like Socket.
inline bool ucx_uses_floors(UcxKind kind) {
  return kind != UcxKind::kTcp;
}

/// The UCX_TLS values ucx_perftest runs with for --vs-ucx-perftest: {"tcp"} or {"sysv", "posix"}
/// (one run each; the comparison takes UCX's best over them).
const std::vector<std::string>& ucx_perftest_transports(UcxKind kind);

/// The provider strings of one run: A is the server (UcxTcp) or one side of -ID (shm).
struct UcxProviderStrings {
  std::string a;
  std::string b;
  std::string title;  ///< For the table header.
};

/// UcxTcp: `Ucx -server -IP=127.0.0.1 -port=<free> -reuse -tls=tcp` / `-client`; shared-memory
/// kinds: `Ucx -ID=<id> -tls=sysv,posix [-protocol=am]` on both sides. Throws std::system_error if
/// no port can be had.
UcxProviderStrings make_ucx_provider_strings(UcxKind kind, std::uint32_t id);

}  // namespace takyon::bench
