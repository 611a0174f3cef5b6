// SPDX-License-Identifier: MIT
// A communicator's info hints: MPI_Comm_set_info and MPI_Comm_get_info. A communicator keeps the
// standard's assertions (api/info.hpp: comm_hints) and drops every other key, which the standard
// allows for hints the implementation does not use, so MPI_Comm_get_info returns what is in effect.
// MPI_Comm_dup copies the hints, MPI_Comm_dup_with_info and MPI_Comm_idup_with_info take the info's.
#include <array>
#include <string_view>

#include "api/common.hpp"
#include "api/export.hpp"
#include "api/info.hpp"

namespace takyon::mpi {

InfoEntries comm_hints(const InfoEntries& e) {
  static constexpr std::array<std::string_view, 4> kKept = {
      "mpi_assert_no_any_tag", "mpi_assert_no_any_source", "mpi_assert_exact_length",
      "mpi_assert_allow_overtaking"};
  InfoEntries kept;
  for (const auto& [key, value] : e) {
    bool known = false;
    for (std::string_view k : kKept) known = known || key == k;
    if (known && (value == "true" || value == "false")) kept.emplace_back(key, value);
  }
  return kept;
}

}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  constexpr const char* fn = "MPI_Comm_set_info";
  return guarded(fn, comm, [&] {
    CommInfo& c = check_comm(comm, fn);
    if (info == MPI_INFO_NULL) fail(MPI_ERR_INFO, fn, "invalid info object MPI_INFO_NULL (argument info)");
    InfoEntries hints = comm_hints(info_entries(info, fn));
    // A hint set again replaces its value; hints not named keep theirs (MPI-4: set_info adds).
    for (auto& [key, value] : hints) {
      bool replaced = false;
      for (auto& [k, v] : c.hints) {
        if (k == key) {
          v = value;
          replaced = true;
        }
      }
      if (!replaced) c.hints.emplace_back(key, value);
    }
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_set_info)

extern "C" int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  constexpr const char* fn = "MPI_Comm_get_info";
  return guarded(fn, comm, [&] {
    const CommInfo& c = check_comm(comm, fn);
    if (info_used == nullptr) fail(MPI_ERR_ARG, fn, "info_used is NULL (argument info_used)");
    *info_used = make_info(c.hints);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_get_info)
