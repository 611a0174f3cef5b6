// SPDX-License-Identifier: MIT
// The C++ program the wrapper tests compile with takyon-mpicxx (-c) and, once libtakyon_mpi exists, link.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> all(static_cast<size_t>(size));
  MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  std::printf("hello from C++ rank %d of %d (sum of ranks %d)\n", rank, size, sum);
  MPI_Finalize();
  return 0;
}
