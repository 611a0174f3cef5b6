// SPDX-License-Identifier: MIT
// The request pool (see request.hpp).
#include "pt2pt/request.hpp"

#include <functional>
#include <new>

namespace takyon::mpi {

Request* RequestPool::acquire() {
  if (free_.empty()) {
    blocks_.push_back(std::make_unique<Request[]>(kBlock));
    Request* block = blocks_.back().get();
    for (std::size_t i = kBlock; i-- > 0;) free_.push_back(&block[i]);
  }
  Request* r = free_.back();
  free_.pop_back();
  // Rebuilt in place (release() already freed `owned`): plain stores of every default, no
  // temporary and no move-assignment, which cost the send path noticeably.
  r->~Request();
  new (r) Request;  // default-initialised: each member its initialiser (value-init zeroed all with rep stos)
  r->magic = Request::kMagic;
  ++live_;
  return r;
}

void RequestPool::release(Request* r) {
  r->magic = 0;
  r->owned.reset();
  r->dt_hold.reset();
  r->keep.reset();
  free_.push_back(r);
  --live_;
}

bool RequestPool::owns_live(const void* p) const {
  std::less<> before;
  for (const auto& b : blocks_) {
    const Request* first = b.get();
    const Request* last = first + kBlock;
    if (!before(p, first) && before(p, last)) {
      auto offset =
          static_cast<std::size_t>(static_cast<const char*>(p) - reinterpret_cast<const char*>(first));
      return offset % sizeof(Request) == 0 && static_cast<const Request*>(p)->magic == Request::kMagic;
    }
  }
  return false;
}

}  // namespace takyon::mpi
