// SPDX-License-Identifier: MIT
// Process topologies: Dims_create's factorisation and Cartesian rank arithmetic (see topo.hpp).
#include "comm/topo.hpp"

#include <algorithm>
#include <string>

#include "runtime.hpp"

namespace takyon::mpi {
namespace {

/// Depth-first search for the most balanced split of `n` into `k` factors, each <= `max_factor`
/// (non-increasing order), among the divisors `divs` (ascending) of the original number.
struct Balance {
  const std::vector<long>& divs;
  std::vector<int> cur;
  std::vector<int> best;
  long best_spread = -1;

  void search(long n, int k, long max_factor) {
    if (k == 1) {
      if (n > max_factor) return;
      long spread = (cur.empty() ? n : cur.front()) - n;
      if (best_spread < 0 || spread < best_spread) {
        best_spread = spread;
        best = cur;
        best.push_back(int(n));
      }
      return;
    }
    for (long f : divs) {
      if (f > max_factor || f > n) break;
      if (n % f != 0) continue;
      // f is the largest of the k factors left: f^k >= n.
      long p = 1;
      for (int i = 0; i < k && p < n; ++i) p *= f;
      if (p < n) continue;
      // The smallest factor is at most n^(1/k) <= f: the spread is at least first - n^(1/k).
      long first = cur.empty() ? f : cur.front();
      long root = 1;
      while (true) {
        long q = 1;
        for (int i = 0; i < k && q <= n; ++i) q *= root + 1;
        if (q > n) break;
        ++root;
      }
      if (best_spread >= 0 && first - root >= best_spread) continue;
      cur.push_back(int(f));
      search(n / f, k - 1, f);
      cur.pop_back();
    }
  }
};

const char* topology_name(int kind) {
  switch (kind) {
    case MPI_CART:
      return "Cartesian";
    case MPI_GRAPH:
      return "graph";
    case MPI_DIST_GRAPH:
      return "distributed graph";
  }
  return "none";
}

}  // namespace

const Topology& check_topology(const CommInfo& c, int kind, const char* fn) {
  if (!c.topo || (kind != MPI_UNDEFINED && c.topo->kind != kind)) {
    const char* want = kind == MPI_UNDEFINED ? "process" : topology_name(kind);
    fail(MPI_ERR_TOPOLOGY, fn,
         std::string("communicator has no ") + want + " topology (argument comm; its topology: " +
             (c.topo ? topology_name(c.topo->kind) : "none") + ")");
  }
  return *c.topo;
}

int cart_rank_of(const Topology& t, const int* coords) {
  int rank = 0;
  for (std::size_t i = 0; i < t.dims.size(); ++i) rank = rank * t.dims[i] + coords[i];
  return rank;
}

void cart_coords_of(const Topology& t, int rank, int* coords) {
  for (std::size_t i = t.dims.size(); i-- > 0;) {
    coords[i] = rank % t.dims[i];
    rank /= t.dims[i];
  }
}

void cart_shift_of(const Topology& t, int rank, int direction, int disp, int* source, int* dest) {
  // Row-major: moving along `direction` changes the rank by a multiple of the later extents' product.
  int stride = 1;
  for (std::size_t i = std::size_t(direction) + 1; i < t.dims.size(); ++i) stride *= t.dims[i];
  const int d = t.dims[std::size_t(direction)];
  const int me = (rank / stride) % d;
  const bool periodic = t.periods[std::size_t(direction)] != 0;
  auto neighbour = [&](long x) {
    if (periodic) {
      x = ((x % d) + d) % d;
    } else if (x < 0 || x >= d) {
      return MPI_PROC_NULL;
    }
    return rank + int(x - me) * stride;
  };
  *dest = neighbour(long(me) + disp);
  *source = neighbour(long(me) - disp);
}

std::pair<int, int> graph_edges_of(const Topology& t, int rank) {
  return {rank == 0 ? 0 : t.index[std::size_t(rank) - 1], t.index[std::size_t(rank)]};
}

void dims_create(int nnodes, int ndims, int* dims, const char* fn) {
  if (ndims < 0) fail(MPI_ERR_DIMS, fn, "invalid ndims " + std::to_string(ndims) + " (argument ndims; >= 0)");
  if (ndims > 0 && dims == nullptr) fail(MPI_ERR_ARG, fn, "dims is NULL (argument dims)");
  if (nnodes < 1)
    fail(MPI_ERR_DIMS, fn, "invalid nnodes " + std::to_string(nnodes) + " (argument nnodes; >= 1)");
  long fixed = 1;
  int nfree = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) {
      fail(MPI_ERR_DIMS, fn,
           "invalid dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " (argument dims; >= 0)");
    }
    if (dims[i] == 0) {
      ++nfree;
    } else {
      fixed *= dims[i];
      if (fixed > nnodes) break;  // cannot divide nnodes any more (and no overflow)
    }
  }
  if (fixed > nnodes || nnodes % fixed != 0 || (nfree == 0 && fixed != nnodes)) {
    fail(MPI_ERR_DIMS, fn,
         "the non-zero entries of dims (argument dims) multiply to " +
             (fixed > nnodes ? std::string("more than nnodes") : std::to_string(fixed)) + ", which " +
             (nfree == 0 ? "is not" : "does not divide") + " nnodes = " + std::to_string(nnodes));
  }
  if (nfree == 0) return;
  const long rest = nnodes / fixed;
  std::vector<long> divs;
  for (long d = 1; d * d <= rest; ++d) {
    if (rest % d != 0) continue;
    divs.push_back(d);
    if (d != rest / d) divs.push_back(rest / d);
  }
  std::sort(divs.begin(), divs.end());
  // With more free entries than prime factors (counted with multiplicity), some entries are 1 in any
  // split, and the best is the primes themselves (largest first) followed by ones; searching only
  // that many entries also bounds the search's depth by 31.
  std::vector<int> primes;
  for (long m = rest, p = 2; m > 1; ++p) {
    if (p * p > m) p = m;
    while (m % p == 0) {
      primes.insert(primes.begin(), int(p));
      m /= p;
    }
  }
  Balance b{divs, {}, {}};
  if (nfree >= int(primes.size())) {
    b.best = primes;
  } else {
    b.search(rest, nfree, rest);
  }
  b.best.resize(std::size_t(nfree), 1);
  std::size_t next = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = b.best[next++];
  }
}

std::uint64_t hash_ints(std::uint64_t h, const int* v, int n) {
  if (h == 0) h = 14695981039346656037ULL;
  for (int i = 0; i < n; ++i) {
    auto u = static_cast<std::uint32_t>(v[i]);
    for (int b = 0; b < 4; ++b) {
      h ^= (u >> (8 * b)) & 0xffU;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

}  // namespace takyon::mpi
