// SPDX-License-Identifier: MIT
// The three Bootstrap sources make_bootstrap() chooses from (private to this library).
#pragma once

#include <memory>

#include "bootstrap.hpp"

namespace takyon::mpi::detail {

/// takyon-run's rendezvous client (TAKYON_RUN_* set). Throws BootstrapError.
std::unique_ptr<Bootstrap> make_run_client_bootstrap();
/// PMIx (PMIX_NAMESPACE and PMIX_RANK set). Throws BootstrapError.
std::unique_ptr<Bootstrap> make_pmix_bootstrap();
/// A job of one rank.
std::unique_ptr<Bootstrap> make_singleton_bootstrap();

}  // namespace takyon::mpi::detail
