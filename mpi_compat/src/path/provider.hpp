// SPDX-License-Identifier: MIT
// Which channel reaches each peer, and the Takyon provider string of each path:
//   TAKYON_MPI_PROVIDER unset or "shm": shm inboxes for peers on this host, a Ucx path for other hosts;
//   TAKYON_MPI_PROVIDER=<Takyon provider>: a path of that provider to every other rank.
// Test-only: TAKYON_MPI_FAKE_HOST makes this rank report another host ("rank": one host per rank).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "takyon/takyon_providers.h"

namespace takyon::mpi {

/// Whether a provider can carry a rank pair's channel (forced with TAKYON_MPI_PROVIDER): reliable,
/// connected, both ways, across processes, addressed by path ID alone.
bool can_be_channel(const TakyonProviderInfo& provider);

struct ProviderChoice {
  std::string forced;  ///< empty: by locality (shm / Ucx)
};

/// Reads TAKYON_MPI_PROVIDER; throws std::invalid_argument naming the value and the accepted ones.
ProviderChoice provider_from_env();

/// This rank's host name as the locality check sees it (TAKYON_MPI_FAKE_HOST applied).
std::string host_name_for_locality(const std::string& real_host, int rank);

/// What each rank publishes so paths can be created: rank 0's random ID base, its IP and the ports it
/// listens on as Ucx server (one per higher rank on another host; 0 where none).
struct PathRendezvous {
  std::uint32_t id_base = 0;
  std::string ip;
  std::vector<int> ports;  ///< indexed by rank
};
std::string encode(const PathRendezvous& r);
PathRendezvous decode(const std::string& s);

/// The address a Ucx server binds: TAKYON_MPI_UCX_IP, else the first non-loopback IPv4 address, else
/// 127.0.0.1.
std::string local_ucx_ip();
/// A TCP port free right now on `ip` (the kernel's choice; the server binds it with -reuse).
int free_tcp_port(const std::string& ip);

/// The path ID of the pair (a, b) in a job of `size` ranks: unique per job and pair.
std::uint32_t pair_path_id(std::uint32_t base, int a, int b, int size);

/// The provider string of this rank's endpoint of a forced-provider path (same host).
std::string forced_interconnect(const std::string& provider, std::uint32_t id, bool endpoint_a);

}  // namespace takyon::mpi
