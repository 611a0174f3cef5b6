// SPDX-License-Identifier: MIT
// Copies for the rendezvous pipeline. A large message's destination is written once and not read
// again soon, so its receiver copies out of the shared chunks with non-temporal stores: the lines
// go to memory without being read for ownership first and without evicting the chunks and the
// sender's data from the caches, which raises the windowed bandwidth (64 in flight, 4 x 128 KiB
// chunks) from 1 MiB on; below 1 MiB ordinary stores win (the destination stays cached), hence
// kStreamingMin.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace takyon::mpi::shm {

#if defined(__SSE2__)
/// Copies the whole 64-byte blocks of [src, src + n) to dst, four unaligned 16-byte loads and then
/// `store(at, value)` for each; returns the bytes copied (n rounded down to a multiple of 64).
template <class Store>
inline std::size_t copy_blocks64(char* dst, const char* src, std::size_t n, const Store& store) {
  std::size_t done = 0;
  for (; n - done >= 64; done += 64) {
    const char* s = src + done;
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    store(dst + done, a);
    store(dst + done + 16, b);
    store(dst + done + 32, c);
    store(dst + done + 48, e);
  }
  return done;
}
#endif

/// memcpy(dst, src, n), except where glibc's memcpy is pathologically slow. From 4 KiB on, Debian
/// 12's glibc (2.36) copies with `rep movsb`, which on AMD Zen 3 runs many times slower when the
/// destination lies 1-31 bytes past the source modulo 4 KiB: a page-aligned shared buffer copied
/// into a malloc block that starts 16 bytes into its page (glibc's large blocks) hits that window,
/// and so does a flat alltoall of 64 KiB blocks without the shared heap. In that window, an SSE2
/// loop of unaligned 16-byte moves (equally fast at every distance); anywhere else memcpy, which is
/// faster there.
inline void copy_bulk(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
#if defined(__SSE2__)
  const std::uintptr_t distance =
      (reinterpret_cast<std::uintptr_t>(d) - reinterpret_cast<std::uintptr_t>(s)) & 4095U;
  if (n >= 4096 && distance - 1 < 31) {
    const std::size_t done = copy_blocks64(
        d, s, n, [](char* at, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(at), v); });
    d += done;
    s += done;
    n -= done;
  }
#endif
  std::memcpy(d, s, n);
}

/// Messages of at least this many bytes are copied out with copy_streaming().
inline constexpr std::size_t kStreamingMin = std::size_t{1} << 20;

/// memcpy(dst, src, n) with non-temporal stores for the 16-byte-aligned body of dst (plain memcpy
/// where SSE2 is missing or n is small). Stores are fenced before it returns, so a release store
/// that follows (the chunk's "free" flag) orders after them.
inline void copy_streaming(char* dst, const char* src, std::size_t n) {
#if defined(__SSE2__)
  if (n >= 4096) {
    std::size_t head = (16 - (reinterpret_cast<std::uintptr_t>(dst) & 15U)) & 15U;
    std::memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    const std::size_t done = copy_blocks64(
        dst, src, n, [](char* at, __m128i v) { _mm_stream_si128(reinterpret_cast<__m128i*>(at), v); });
    _mm_sfence();
    dst += done;
    src += done;
    n -= done;
  }
#endif
  std::memcpy(dst, src, n);
}

}  // namespace takyon::mpi::shm
