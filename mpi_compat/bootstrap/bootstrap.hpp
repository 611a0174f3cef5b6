// SPDX-License-Identifier: MIT
// Who am I, who are my peers: the one interface libtakyon_mpi starts from. Three sources:
//   takyon-run  (TAKYON_RUN_* in the environment): the launcher's loopback rendezvous, secret-checked
//   PMIx        (PMIX_NAMESPACE/PMIX_RANK: Open MPI's mpirun, Slurm's srun --mpi=pmix)
//   singleton   (neither): a job of one rank
// Everything here is called by one thread of the rank (MPI_Init/MPI_Finalize/MPI_Abort's caller).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace takyon::mpi {

/// A bootstrap failure: the message names the source and the cause ("takyon-run rendezvous
/// 127.0.0.1:40211: connection refused", "PMIx_Get(PMIX_LOCAL_RANK): not found").
class BootstrapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct JobInfo {
  int rank = 0;  ///< 0 .. size-1
  int size = 1;
  int local_rank = 0;  ///< among the ranks on this host, 0 .. local_size-1
  int local_size = 1;
  /// Unique per job and the same on every rank; only [A-Za-z0-9_-], at most 32 characters, so it
  /// can name shared-memory segments (/dev/shm/takyon-mpi-<job_id>-...).
  std::string job_id;
  std::string launcher;  ///< "takyon-run", "pmix" or "singleton"
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  [[nodiscard]] virtual const JobInfo& job() const = 0;
  /// Collective over all ranks: every rank gives `mine` (any bytes, up to 64 KiB) and gets every
  /// rank's, indexed by rank. Throws BootstrapError (a peer died, the launcher went away, timeout).
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
  /// Collective over all ranks. Throws BootstrapError.
  virtual void barrier() = 0;
  /// MPI_Abort: asks the launcher to end the whole job with `code` (the other ranks are killed),
  /// saying `why`. Returns once the request is out; the caller then exits with `code`.
  virtual void abort(int code, const std::string& why) noexcept = 0;
  /// MPI_Finalize: this rank is done with the job (not a failure when it exits). Throws BootstrapError.
  virtual void finalize() = 0;
};

/// Picks the source from the environment (takyon-run, then PMIx, then singleton) and connects.
/// Throws BootstrapError.
std::unique_ptr<Bootstrap> make_bootstrap();

}  // namespace takyon::mpi
