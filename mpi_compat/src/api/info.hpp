// SPDX-License-Identifier: MIT
// Info objects (MPI_Info_*): what other entry points that take an MPI_Info argument need to check it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mpi.h"

namespace takyon::mpi {

/// Checks an info argument that a function only accepts (hints are ignored): MPI_INFO_NULL,
/// MPI_INFO_ENV or a live info object. Throws MPI_ERR_INFO naming `fn` otherwise (freed or garbage
/// handles are looked up, never dereferenced). Any thread.
void check_info_arg(MPI_Info info, const char* fn);

/// "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE" for a thread level, nullptr for anything else (the
/// values of the thread_level info keys: MPI_INFO_ENV, MPI_Session_init/get_info).
const char* thread_level_name(int level);

/// An info object's (key, value) pairs, in the order the keys were first set.
using InfoEntries = std::vector<std::pair<std::string, std::string>>;
/// The entries of `info` (none for MPI_INFO_NULL); throws MPI_ERR_INFO naming `fn` for a freed or
/// garbage handle. Any thread.
InfoEntries info_entries(MPI_Info info, const char* fn);
/// The hints of `e` a communicator keeps (MPI_Comm_set_info, MPI_Comm_dup_with_info): the MPI-4
/// assertions mpi_assert_no_any_tag, mpi_assert_no_any_source, mpi_assert_exact_length and
/// mpi_assert_allow_overtaking with the value "true" or "false"; any other key is dropped, as the
/// standard allows for hints an implementation does not use (api/comm_info.cpp).
InfoEntries comm_hints(const InfoEntries& e);
/// A new info object holding `entries` (the caller frees it with MPI_Info_free). Any thread.
MPI_Info make_info(InfoEntries entries);

}  // namespace takyon::mpi
