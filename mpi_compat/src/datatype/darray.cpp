// SPDX-License-Identifier: MIT
// MPI_Type_create_darray's type map (see darray.hpp).
#include "datatype/darray.hpp"

#include <algorithm>

namespace takyon::mpi {

std::vector<std::pair<int, int>> darray_runs(const DarrayDim& d) {
  std::vector<std::pair<int, int>> runs;
  switch (d.distrib) {
    case MPI_DISTRIBUTE_BLOCK: {
      long long first = static_cast<long long>(d.coord) * d.darg;
      long long last = std::min<long long>(first + d.darg, d.gsize);
      if (first < last) runs.emplace_back(int(first), int(last));
      break;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
      // Blocks of darg elements dealt round-robin: this process's start every psize blocks.
      long long step = static_cast<long long>(d.psize) * d.darg;
      for (long long first = static_cast<long long>(d.coord) * d.darg; first < d.gsize; first += step)
        runs.emplace_back(int(first), int(std::min<long long>(first + d.darg, d.gsize)));
      break;
    }
    default:
      runs.emplace_back(0, d.gsize);
  }
  return runs;
}

std::shared_ptr<Type> build_darray(const std::vector<DarrayDim>& dims, const Type& old) {
  const std::size_t n = dims.size();
  std::vector<std::vector<std::pair<int, int>>> runs(n);
  std::vector<std::vector<int>> owned(n);  // the outer dimensions' owned indices
  for (std::size_t d = 0; d < n; ++d) {
    runs[d] = darray_runs(dims[d]);
    if (d == 0) continue;
    for (const auto& [first, last] : runs[d]) {
      for (int i = first; i < last; ++i) owned[d].push_back(i);
    }
  }
  const MPI_Aint ext = old.extent();
  MPI_Aint total = 1;
  for (const DarrayDim& d : dims)
    total = mul_or_throw(total, d.gsize, "element count (product of array_of_gsizes)");
  const MPI_Aint ub = mul_or_throw(total, ext, "extent (product of array_of_gsizes x extent)");

  // Blocks: one per innermost run per combination of the outer dimensions' owned indices.
  std::size_t combos = 1;
  bool empty = false;
  for (std::size_t d = 1; d < n; ++d) {
    empty = empty || owned[d].empty();
    combos = std::min(combos * std::max<std::size_t>(owned[d].size(), 1), kMaxFlatEntries + 1);
  }
  TypeBuilder b;
  std::size_t per = 0;
  for (const auto& [first, last] : runs[0]) per += TypeBuilder::blocks_of(old, std::size_t(last - first));
  b.expect(per > kMaxFlatEntries / combos ? kMaxFlatEntries + 1 : per * combos);
  std::vector<std::size_t> idx(n, 0);
  while (!empty && !runs[0].empty()) {
    MPI_Aint offset = 0;  // of the innermost dimension's index 0, in elements
    MPI_Aint scale = dims[0].gsize;
    for (std::size_t d = 1; d < n; ++d) {
      offset = add_or_throw(offset, mul_or_throw(owned[d][idx[d]], scale, "displacement"), "displacement");
      scale = mul_or_throw(scale, dims[d].gsize, "element count (product of array_of_gsizes)");
    }
    for (const auto& [first, last] : runs[0]) {
      b.add(old, mul_or_throw(add_or_throw(offset, first, "displacement"), ext, "displacement"),
            std::size_t(last - first));
    }
    std::size_t d = 1;
    while (d < n && ++idx[d] == owned[d].size()) idx[d++] = 0;
    if (d >= n) break;
  }
  auto t = b.build();
  t->lb = 0;
  t->ub = ub;
  t->explicit_lb = t->explicit_ub = true;
  t->finish();
  return t;
}

}  // namespace takyon::mpi
