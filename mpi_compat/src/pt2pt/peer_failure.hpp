// SPDX-License-Identifier: MIT
// The error every channel raises when a peer rank is gone (exited, or its path broke).
#pragma once

#include <stdexcept>
#include <string>

namespace takyon::mpi {

/// A peer failed: the message names the rank and what was seen. The API reports kGone as
/// MPI_ERR_PROC_ABORTED, kMisbehaved as MPI_ERR_OTHER (the engine library sees no mpi.h).
class PeerFailure : public std::runtime_error {
 public:
  enum class Kind {
    kGone,        ///< died (exited or was killed without MPI_Finalize), or its path reported a disconnect
    kMisbehaved,  ///< alive as far as this rank can tell, but broke the protocol or stopped taking data
  };
  explicit PeerFailure(const std::string& what, Kind kind = Kind::kGone)
      : std::runtime_error(what), kind_(kind) {}
  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] bool gone() const { return kind_ == Kind::kGone; }

 private:
  Kind kind_;
};

}  // namespace takyon::mpi
