// SPDX-License-Identifier: MIT
// Rabenseifner allreduce (commutative ops): over the largest power of two p' <= p (the other ranks
// fold into a partner first, as in recursive doubling), a recursive-halving reduce-scatter (round k:
// send one half of the range still owned to the partner at distance p'/2^(k+1), receive and reduce
// the other half) leaves 1/p' of the vector reduced on each rank; a recursive-doubling allgather
// then reverses the pattern. Each rank moves about 2x the vector in 2 log2 p' rounds. The send
// buffer is never copied into recv: the first receive lands in recv and takes send's items.
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/table.hpp"

namespace takyon::mpi {

void allreduce_rabenseifner(Schedule& s, const char* send, char* recv, const ReduceSpec& r) {
  int rank = s.rank();
  std::size_t bytes = r.bytes();
  const PowerOfTwoFold fold(s.size());
  const int pof2 = fold.pof2;
  char* tmp = nullptr;
  auto scratch = [&] {
    if (tmp == nullptr) tmp = s.scratch(bytes);
    return tmp;
  };
  // Where this rank's partial vector lives: its send buffer until something lands in recv (no
  // copy of send into recv: the first receive goes straight into recv and takes send's items).
  const char* cur = send;
  const int newrank = fold.vrank(rank);
  if (fold.pairs(rank)) {
    if (rank % 2 == 0) {
      s.send(rank + 1, send, bytes);
    } else {
      if (send == recv) {
        s.recv(rank - 1, scratch(), bytes);
        s.reduce(tmp, recv, r.count, r.dt, r.op);
      } else {
        s.recv(rank - 1, recv, bytes);
        s.reduce(send, recv, r.count, r.dt, r.op);  // recv = mine op left's (the op commutes)
      }
      cur = recv;
    }
    s.next_round();
  }
  if (newrank >= 0 && pof2 == 1) s.copy(send, recv, bytes);  // a single rank
  if (newrank >= 0 && pof2 > 1) {
    // pof2 blocks of the vector (in items)
    std::vector<std::size_t> disp(std::size_t(pof2) + 1);
    for (int i = 0; i <= pof2; ++i) disp[std::size_t(i)] = r.count * std::size_t(i) / std::size_t(pof2);
    auto span = [&](int a, int b) { return (disp[std::size_t(b)] - disp[std::size_t(a)]) * r.item; };
    auto at = [&](char* base, int a) { return base + disp[std::size_t(a)] * r.item; };
    // Reduce-scatter by recursive halving: [lo, hi) is the range of blocks this rank still reduces.
    int lo = 0;
    int hi = pof2;
    std::vector<int> lo_at;
    std::vector<int> hi_at;
    for (int mask = pof2 / 2; mask > 0; mask >>= 1) {
      int newpeer = newrank ^ mask;
      int peer = fold.real(newpeer);
      int mid = lo + (hi - lo) / 2;
      lo_at.push_back(lo);
      hi_at.push_back(hi);
      int keep_lo = newrank < newpeer ? lo : mid;
      int keep_hi = newrank < newpeer ? mid : hi;
      int give_lo = newrank < newpeer ? mid : lo;
      int give_hi = newrank < newpeer ? hi : mid;
      std::size_t n = disp[std::size_t(keep_hi)] - disp[std::size_t(keep_lo)];
      if (cur != recv) {  // the first round, send not yet in recv: receive in place, then add mine
        s.recv(peer, at(recv, keep_lo), span(keep_lo, keep_hi));
        s.send(peer, at(const_cast<char*>(cur), give_lo), span(give_lo, give_hi));
        s.reduce(at(const_cast<char*>(cur), keep_lo), at(recv, keep_lo), n, r.dt, r.op);
        cur = recv;
      } else {
        s.recv(peer, at(scratch(), keep_lo), span(keep_lo, keep_hi));
        s.send(peer, at(recv, give_lo), span(give_lo, give_hi));
        s.reduce(at(tmp, keep_lo), at(recv, keep_lo), n, r.dt, r.op);
      }
      s.next_round();
      lo = keep_lo;
      hi = keep_hi;
    }
    // Allgather by recursive doubling: the same partners in reverse order.
    int step = int(lo_at.size());
    for (int mask = 1; mask < pof2; mask <<= 1) {
      --step;
      int newpeer = newrank ^ mask;
      int peer = fold.real(newpeer);
      int plo = lo_at[std::size_t(step)];
      int phi = hi_at[std::size_t(step)];
      int mid = plo + (phi - plo) / 2;
      int other_lo = lo == plo ? mid : plo;
      int other_hi = lo == plo ? phi : mid;
      s.recv(peer, at(recv, other_lo), span(other_lo, other_hi));
      s.send(peer, at(recv, lo), span(lo, hi));
      s.next_round();
      lo = plo;
      hi = phi;
    }
  }
  if (fold.pairs(rank)) {
    if (rank % 2 == 0) {
      s.recv(rank + 1, recv, bytes);
    } else {
      s.send(rank - 1, recv, bytes);
    }
    s.next_round();
  }
}

void allreduce_rabenseifner(Schedule& s, const CollArgs& a) {
  allreduce_rabenseifner(s, a.send, a.recv, *a.reduce);
}

}  // namespace takyon::mpi
