// SPDX-License-Identifier: MIT
// Which sanitizer this test binary was built with, for tests that must skip or widen budgets.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define TAKYON_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TAKYON_TEST_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define TAKYON_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAKYON_TEST_ASAN 1
#endif
#endif

namespace takyon::test {

#if defined(TAKYON_TEST_TSAN)
inline constexpr bool kTsan = true;
#else
inline constexpr bool kTsan = false;
#endif
#if defined(TAKYON_TEST_ASAN)
inline constexpr bool kAsan = true;
#else
inline constexpr bool kAsan = false;
#endif
inline constexpr bool kSanitized = kTsan || kAsan;

}  // namespace takyon::test
