# SPDX-License-Identifier: MIT
# cmake -DCC=<C compiler> -DINCLUDE_DIR=<dir with mpi.h> -DOUT=<scratch file> -P check_no_probes.cmake
# Configure scripts decide which MPI features exist by looking for names such as MPI_Accumulate, so
# mpi.h declares only what libtakyon_mpi implements (mpi.library.exports checks that each declared
# function is exported). This checks a sample of the declarations, one-sided ones included, on the
# preprocessed header, where every TAKYON_MPI_FN_ declaration has been expanded to its real MPI_ and
# PMPI_ names.
foreach(var CC INCLUDE_DIR OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_no_probes.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND ${CC} -E -P -I${INCLUDE_DIR} -x c ${INCLUDE_DIR}/mpi.h -o ${OUT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "preprocessing mpi.h failed (${rc}): ${err}")
endif()
file(READ ${OUT} text)
set(found 0)
foreach(name MPI_Send PMPI_Send MPI_Wtime PMPI_Wtime MPI_Comm_get_attr MPI_Ialltoall PMPI_Graph_neighbors
             MPI_Session_init PMPI_Comm_create_from_group MPI_Accumulate PMPI_Get_accumulate MPI_Win_create
             MPI_Win_allocate_shared PMPI_Win_flush_local_all MPI_Rget_accumulate_c)
  if(NOT text MATCHES "[^A-Za-z0-9_]${name} *\\(")
    message(SEND_ERROR "mpi.h does not declare ${name}")
    set(found 1)
  endif()
endforeach()
if(found)
  message(FATAL_ERROR "mpi.h declarations: wrong")
endif()
message(STATUS "mpi.h declares the sample")
