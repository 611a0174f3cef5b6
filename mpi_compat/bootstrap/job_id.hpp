// SPDX-License-Identifier: MIT
// Job ids and secrets: random bytes, and names squeezed into JobInfo::job_id's alphabet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace takyon::mpi {

/// JobInfo::job_id's rule: 1..32 characters from [A-Za-z0-9_-].
inline constexpr size_t kMaxJobIdChars = 32;
[[nodiscard]] bool is_valid_job_id(std::string_view id) noexcept;

/// A job id for a launcher's name for the job (a PMIx namespace): the name itself when it already
/// follows the rule, otherwise its sanitized head plus a hash of the whole name, so distinct
/// names stay distinct and every rank computes the same id.
[[nodiscard]] std::string job_id_from_name(std::string_view name);

/// `bytes` random bytes from the kernel (getrandom), as 2*bytes lower-case hex digits.
/// Throws BootstrapError if the kernel gives none.
[[nodiscard]] std::string random_hex(size_t bytes);

/// The first Takyon path ID of a job's MPI path channels (libtakyon_mpi gives the pair lo < hi the
/// ID base + lo * size + hi, mod 2^32), derived from the job id so that concurrent jobs of one
/// user rarely pick the same IDs.
[[nodiscard]] uint32_t mpi_path_id_base(std::string_view job_id) noexcept;

/// Random bytes in an MPI inbox's name (hex doubles them).
inline constexpr size_t kInboxKeyBytes = 16;
/// The /dev/shm name of rank `rank`'s inbox: "/takyon-mpi-<job_id>-<rank>-<key>". `key` is
/// random_hex(kInboxKeyBytes), made by the rank and published through the bootstrap, so no other
/// local user can create the name first (job ids are predictable: PMIx namespaces).
[[nodiscard]] std::string mpi_inbox_name(std::string_view job_id, int rank, std::string_view key);
/// Whether `key` is one random_hex(kInboxKeyBytes) makes (what a peer's record must hold).
[[nodiscard]] bool is_inbox_key(std::string_view key) noexcept;
/// Removes the inboxes of job `job_id` (mpi_inbox_name's form) that this user owns from /dev/shm:
/// what ranks killed during MPI_Init left behind. For takyon-run, once all ranks are gone.
void remove_mpi_inboxes(std::string_view job_id) noexcept;

/// 64-bit FNV-1a.
[[nodiscard]] uint64_t fnv1a64(std::string_view data) noexcept;

}  // namespace takyon::mpi
