// SPDX-License-Identifier: MIT
// make_bootstrap(): the environment picks the source (takyon-run, then PMIx, then singleton).
#include <cstdlib>

#include "bootstrap.hpp"
#include "run_env.hpp"
#include "sources.hpp"

namespace takyon::mpi {

std::unique_ptr<Bootstrap> make_bootstrap() {
  if (std::getenv(run_env::kRank) != nullptr) return detail::make_run_client_bootstrap();
  if (std::getenv("PMIX_NAMESPACE") != nullptr && std::getenv("PMIX_RANK") != nullptr) {
    return detail::make_pmix_bootstrap();
  }
  return detail::make_singleton_bootstrap();
}

}  // namespace takyon::mpi
