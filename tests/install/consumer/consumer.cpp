// SPDX-License-Identifier: MIT
// An installed-Takyon consumer in C++: the same transfer through takyon::Path (takyon.hpp).
#include <takyon/takyon.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

namespace {

constexpr std::uint64_t kBytes = std::uint64_t{1024} * 1024;

std::byte pattern(std::uint64_t k) {
  return static_cast<std::byte>((k * 7 + (k >> 12)) & 0xff);
}

bool endpoint_a(const std::string& provider) {
  takyon::Path path(takyon::PathOptions::symmetric(provider, true, 1, kBytes));
  auto out = path.send_buffer(0);
  for (std::uint64_t k = 0; k < kBytes; k++) out[k] = pattern(k);
  if (!path.send(0, kBytes)) return false;
  auto reply = path.recv(0);
  if (!reply || reply->bytes != sizeof(std::uint64_t)) return false;
  std::uint64_t verified = 0;
  std::memcpy(&verified, path.recv_buffer(0).data() + reply->offset, sizeof(verified));
  path.destroy();
  return verified == kBytes;
}

bool endpoint_b(const std::string& provider) {
  takyon::Path path(takyon::PathOptions::symmetric(provider, false, 1, kBytes));
  auto message = path.recv(0);
  if (!message) return false;
  auto in = path.recv_buffer(0).subspan(message->offset, message->bytes);
  std::uint64_t verified = 0;
  while (verified < in.size() && in[verified] == pattern(verified)) verified++;
  std::memcpy(path.send_buffer(0).data(), &verified, sizeof(verified));
  if (!path.send(0, sizeof(verified))) return false;
  path.destroy();
  return verified == kBytes;
}

template <typename F>
void run(F endpoint, const std::string& provider, bool& ok) {
  try {
    ok = endpoint(provider);
  } catch (const takyon::Error& e) {
    std::fprintf(stderr, "takyon::Error (%s): %s\n", takyon::status_name(e.status()), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exception: %s\n", e.what());
  }
}

}  // namespace

int main() {
  const std::string provider = "InterThreadMemcpy -ID=" + std::to_string(getpid());
  bool ok_a = false;
  bool ok_b = false;
  std::thread b([&] { run(endpoint_b, provider, ok_b); });
  run(endpoint_a, provider, ok_a);
  b.join();
  if (!ok_a || !ok_b) {
    std::printf("C++ consumer: FAILED\n");
    return 1;
  }
  std::printf("C++ consumer: %llu bytes moved and verified over '%s'\n",
              static_cast<unsigned long long>(kBytes), provider.c_str());
  return 0;
}
