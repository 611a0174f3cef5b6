// SPDX-License-Identifier: MIT
// Environment: Init/Finalize/Abort, thread levels, versions, processor name, timers, Alloc_mem,
// Comm_rank/size (the predefined communicator attributes: api/attr.cpp).
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

#include "api/common.hpp"
#include "api/export.hpp"
#include "api/info.hpp"
#include "api/lifetime.hpp"

namespace takyon::mpi {
namespace {

constexpr char kLibraryVersion[] =
    "Takyon MPI 0.1.0 (libtakyon_mpi; MPI-5.0 standard ABI; point-to-point over node-local shared memory)";

void copy_out(const char* what, char* dst, int* len, int max) {
  auto n = int(std::strlen(what));
  if (n > max - 1) n = max - 1;
  std::memcpy(dst, what, std::size_t(n));
  dst[n] = '\0';
  *len = n;
}

int init(const char* fn, int required, int* provided) {
  int level = start_world_model(fn, required);
  if (provided != nullptr) *provided = level;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace takyon::mpi

using namespace takyon::mpi;

extern "C" int PMPI_Init(int* /*argc*/, char*** /*argv*/) {
  return guarded("MPI_Init", MPI_COMM_WORLD, [&] { return init("MPI_Init", MPI_THREAD_SINGLE, nullptr); });
}
TAKYON_MPI_WEAK_ALIAS(Init)

extern "C" int PMPI_Init_thread(int* /*argc*/, char*** /*argv*/, int required, int* provided) {
  return guarded("MPI_Init_thread", MPI_COMM_WORLD, [&] {
    if (provided == nullptr) fail(MPI_ERR_ARG, "MPI_Init_thread", "provided is NULL");
    return init("MPI_Init_thread", required, provided);
  });
}
TAKYON_MPI_WEAK_ALIAS(Init_thread)

extern "C" int PMPI_Initialized(int* flag) {
  return guarded("MPI_Initialized", MPI_COMM_WORLD, [&] {
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Initialized", "flag is NULL");
    *flag = world_model_started_ever() ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Initialized)

extern "C" int PMPI_Finalized(int* flag) {
  return guarded("MPI_Finalized", MPI_COMM_WORLD, [&] {
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Finalized", "flag is NULL");
    *flag = world_model_ended() ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Finalized)

extern "C" int PMPI_Finalize(void) {
  return guarded("MPI_Finalize", MPI_COMM_WORLD, [&] {
    check_world_model("MPI_Finalize");
    int rc = delete_attrs(*find_comm(MPI_COMM_SELF));  // MPI: SELF's attributes go first, LIFO
    if (rc != MPI_SUCCESS)
      fail(rc, "MPI_Finalize",
           "an MPI_COMM_SELF attribute delete callback returned error code " + std::to_string(rc));
    end_world_model("MPI_Finalize");
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Finalize)

extern "C" int PMPI_Abort(MPI_Comm /*comm*/, int errorcode) {
  std::fprintf(stderr, "takyon-mpi: rank %d called MPI_Abort with error code %d\n", world_rank_or_minus1(),
               errorcode);
  abort_job(errorcode,
            "MPI_Abort(" + std::to_string(errorcode) + ") on rank " + std::to_string(world_rank_or_minus1()));
}
TAKYON_MPI_WEAK_ALIAS(Abort)

extern "C" int PMPI_Query_thread(int* provided) {
  return guarded("MPI_Query_thread", MPI_COMM_WORLD, [&] {
    if (provided == nullptr) fail(MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
    check_initialized("MPI_Query_thread");
    *provided = thread_level();
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Query_thread)

extern "C" int PMPI_Is_thread_main(int* flag) {
  return guarded("MPI_Is_thread_main", MPI_COMM_WORLD, [&] {
    if (flag == nullptr) fail(MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    check_initialized("MPI_Is_thread_main");
    *flag = is_thread_main() ? 1 : 0;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Is_thread_main)

extern "C" int PMPI_Get_version(int* version, int* subversion) {
  return guarded("MPI_Get_version", MPI_COMM_WORLD, [&] {
    if (version == nullptr || subversion == nullptr) fail(MPI_ERR_ARG, "MPI_Get_version", "NULL argument");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Get_version)

extern "C" int PMPI_Get_library_version(char* version, int* resultlen) {
  return guarded("MPI_Get_library_version", MPI_COMM_WORLD, [&] {
    if (version == nullptr || resultlen == nullptr)
      fail(MPI_ERR_ARG, "MPI_Get_library_version", "NULL argument");
    copy_out(kLibraryVersion, version, resultlen, MPI_MAX_LIBRARY_VERSION_STRING);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Get_library_version)

extern "C" int PMPI_Get_processor_name(char* name, int* resultlen) {
  return guarded("MPI_Get_processor_name", MPI_COMM_WORLD, [&] {
    if (name == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "MPI_Get_processor_name", "NULL argument");
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    gethostname(host, sizeof host - 1);
    copy_out(host, name, resultlen, MPI_MAX_PROCESSOR_NAME);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Get_processor_name)

extern "C" double PMPI_Wtime(void) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
TAKYON_MPI_WEAK_ALIAS(Wtime)

extern "C" double PMPI_Wtick(void) {
  timespec ts{};
  clock_getres(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
TAKYON_MPI_WEAK_ALIAS(Wtick)

extern "C" int PMPI_Pcontrol(const int /*level*/, ...) {
  return MPI_SUCCESS;
}
TAKYON_MPI_WEAK_ALIAS(Pcontrol)

extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return guarded("MPI_Alloc_mem", MPI_COMM_WORLD, [&] {
    check_info_arg(info, "MPI_Alloc_mem");  // hints are ignored
    if (size < 0)
      fail(MPI_ERR_ARG, "MPI_Alloc_mem", "negative size " + std::to_string(size) + " (argument size)");
    if (baseptr == nullptr) fail(MPI_ERR_ARG, "MPI_Alloc_mem", "baseptr is NULL");
    void* p = nullptr;
    if (posix_memalign(&p, 4096, size == 0 ? 1 : std::size_t(size)) != 0) {
      fail(MPI_ERR_NO_MEM, "MPI_Alloc_mem", "cannot allocate " + std::to_string(size) + " bytes");
    }
    *static_cast<void**>(baseptr) = p;
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Alloc_mem)

extern "C" int PMPI_Free_mem(void* base) {
  std::free(base);
  return MPI_SUCCESS;
}
TAKYON_MPI_WEAK_ALIAS(Free_mem)

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  return guarded("MPI_Comm_size", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_size");
    if (size == nullptr) fail(MPI_ERR_ARG, "MPI_Comm_size", "size is NULL (argument size)");
    *size = comm_size(c);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_size)

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  return guarded("MPI_Comm_rank", comm, [&] {
    CommInfo& c = check_comm(comm, "MPI_Comm_rank");
    if (rank == nullptr) fail(MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL (argument rank)");
    *rank = comm_rank(c);
    return MPI_SUCCESS;
  });
}
TAKYON_MPI_WEAK_ALIAS(Comm_rank)

extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  if (address == nullptr) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_address: address is NULL");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
TAKYON_MPI_WEAK_ALIAS(Get_address)

extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return base + disp;
}
TAKYON_MPI_WEAK_ALIAS(Aint_add)

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return addr1 - addr2;
}
TAKYON_MPI_WEAK_ALIAS(Aint_diff)
