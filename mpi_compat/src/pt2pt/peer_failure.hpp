// SPDX-License-Identifier: MIT
// The error every channel raises when a peer rank is gone (exited, or its path broke).
#pragma once

#include <stdexcept>

namespace takyon::mpi {

/// A peer failed (died without MPI_Finalize, or its path reported a disconnect): the message names the rank.
class PeerFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace takyon::mpi
