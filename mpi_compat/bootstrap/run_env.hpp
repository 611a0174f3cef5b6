// SPDX-License-Identifier: MIT
// The environment takyon-run gives each rank: the contract between the launcher and the client.
#pragma once

namespace takyon::mpi::run_env {

inline constexpr const char* kRank = "TAKYON_RUN_RANK";
inline constexpr const char* kSize = "TAKYON_RUN_SIZE";
inline constexpr const char* kLocalRank = "TAKYON_RUN_LOCAL_RANK";
inline constexpr const char* kLocalSize = "TAKYON_RUN_LOCAL_SIZE";
inline constexpr const char* kJobId = "TAKYON_RUN_JOB_ID";
/// "127.0.0.1:<port>": the launcher's rendezvous.
inline constexpr const char* kRendezvous = "TAKYON_RUN_RENDEZVOUS";
/// 32 hex digits (128 random bits); every rendezvous connection must present it.
inline constexpr const char* kSecret = "TAKYON_RUN_SECRET";

/// Set for tools that pick devices by rank or local rank (same values as above).
inline constexpr const char* kOmpiRank = "OMPI_COMM_WORLD_RANK";
inline constexpr const char* kOmpiSize = "OMPI_COMM_WORLD_SIZE";
inline constexpr const char* kOmpiLocalRank = "OMPI_COMM_WORLD_LOCAL_RANK";
inline constexpr const char* kOmpiLocalSize = "OMPI_COMM_WORLD_LOCAL_SIZE";
inline constexpr const char* kLocalRankPlain = "LOCAL_RANK";

/// The secret's length in random bytes (hex doubles it).
inline constexpr int kSecretBytes = 16;

}  // namespace takyon::mpi::run_env
