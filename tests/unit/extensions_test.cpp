// SPDX-License-Identifier: MIT
// The guide's small extensions: attributes, time, endian, named memory maps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "takyon/takyon_extensions.h"

namespace {

TEST(Attributes, AllocFillsEveryFieldAndListsMatchTheEndpoint) {
  TakyonPathAttributes a = takyonAllocAttributes(true, false, 3, 2, 4096, 1.5, "InterThreadMemcpy -ID=5");
  EXPECT_STREQ(a.interconnect, "InterThreadMemcpy -ID=5");
  EXPECT_TRUE(a.is_endpointA);
  EXPECT_FALSE(a.is_polling);
  EXPECT_FALSE(a.abort_on_failure);
  EXPECT_EQ(a.verbosity, TAKYON_VERBOSITY_ERRORS);
  for (double t : {a.path_create_timeout, a.send_start_timeout, a.send_finish_timeout, a.recv_start_timeout,
                   a.recv_finish_timeout, a.path_destroy_timeout}) {
    EXPECT_EQ(t, 1.5);
  }
  EXPECT_EQ(a.send_completion_method, TAKYON_BLOCKING);
  EXPECT_EQ(a.recv_completion_method, TAKYON_BLOCKING);
  EXPECT_EQ(a.nbufs_AtoB, 3);
  EXPECT_EQ(a.nbufs_BtoA, 2);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a.sender_max_bytes_list[i], 4096u);
    EXPECT_EQ(a.sender_addr_list[i], 0u);
  }
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a.recver_max_bytes_list[i], 4096u);
    EXPECT_EQ(a.recver_addr_list[i], 0u);
  }
  EXPECT_EQ(a.error_message, nullptr);
  takyonFreeAttributes(a);
}

TEST(Attributes, BadArgumentsGiveNullListsThatCreateRejects) {
  TakyonPathAttributes a = takyonAllocAttributes(true, true, -1, 1, 64, 1.0, "InterThreadMemcpy -ID=1");
  EXPECT_EQ(a.sender_max_bytes_list, nullptr);
  a.nbufs_AtoB = 1;
  a.verbosity = TAKYON_VERBOSITY_NONE;
  EXPECT_EQ(takyonCreate(&a), nullptr);
  ASSERT_NE(a.error_message, nullptr);
  EXPECT_NE(std::string(a.error_message).find("sender_max_bytes_list is NULL"), std::string::npos)
      << a.error_message;
  free(a.error_message);
  takyonFreeAttributes(a);
}

TEST(Time, MonotonicAndSleepIsAccurate) {
  const double t0 = takyonTime();
  EXPECT_GE(t0, 0.0);
  takyonSleep(0.05);
  const double slept = takyonTime() - t0;
  EXPECT_GE(slept, 0.05);
  EXPECT_LT(slept, 0.5);
  takyonSleep(0);
  takyonSleep(-1);
}

TEST(Endian, SwapsEachWidthInPlaceAndUnaligned) {
  EXPECT_EQ(takyonEndianIsBig(), __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
  unsigned char raw[1 + 16];
  for (int i = 0; i < 17; ++i) raw[i] = static_cast<unsigned char>(i);
  takyonEndianSwap2Byte(raw + 1, 8);
  EXPECT_EQ(raw[1], 2);
  EXPECT_EQ(raw[2], 1);
  takyonEndianSwap2Byte(raw + 1, 8);
  takyonEndianSwap4Byte(raw + 1, 4);
  EXPECT_EQ(raw[1], 4);
  EXPECT_EQ(raw[4], 1);
  takyonEndianSwap4Byte(raw + 1, 4);
  takyonEndianSwap8Byte(raw + 1, 2);
  EXPECT_EQ(raw[1], 8);
  EXPECT_EQ(raw[8], 1);
  EXPECT_EQ(raw[9], 16);
  takyonEndianSwap8Byte(raw + 1, 2);
  for (int i = 0; i < 17; ++i) EXPECT_EQ(raw[i], i);
  takyonEndianSwap8Byte(nullptr, 0);
}

TEST(Mmap, NamedBlockIsSharedReplacedAndRemoved) {
  const std::string name = "unit-" + std::to_string(getpid());
  const std::string path = "/dev/shm/takyon-mmap-" + name;
  void* addr = nullptr;
  TakyonMmapHandle handle = nullptr;
  takyonMmapAlloc(name.c_str(), 10000, &addr, &handle);
  ASSERT_NE(addr, nullptr);
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(access(path.c_str(), F_OK), 0);
  std::memset(addr, 0x5a, 10000);
  // A second allocation of the same name replaces the block: fresh zeroed memory.
  void* addr2 = nullptr;
  TakyonMmapHandle handle2 = nullptr;
  takyonMmapAlloc(name.c_str(), 100, &addr2, &handle2);
  ASSERT_NE(addr2, nullptr);
  EXPECT_EQ(static_cast<unsigned char*>(addr2)[0], 0);
  EXPECT_EQ(static_cast<unsigned char*>(addr)[9999], 0x5a);  // the old mapping stays valid
  takyonMmapFree(handle2);
  takyonMmapFree(handle);
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  takyonMmapFree(nullptr);
}

TEST(Mmap, BadArgumentsReturnNull) {
  void* addr = reinterpret_cast<void*>(1);
  TakyonMmapHandle handle = reinterpret_cast<TakyonMmapHandle>(1);
  takyonMmapAlloc("has/slash", 10, &addr, &handle);
  EXPECT_EQ(addr, nullptr);
  EXPECT_EQ(handle, nullptr);
  takyonMmapAlloc("", 10, &addr, &handle);
  EXPECT_EQ(addr, nullptr);
  takyonMmapAlloc("zero-bytes", 0, &addr, &handle);
  EXPECT_EQ(addr, nullptr);
  takyonMmapAlloc(std::string(TAKYON_MAX_MMAP_NAME_CHARS, 'x').c_str(), 10, &addr, &handle);
  EXPECT_EQ(addr, nullptr);
}

}  // namespace
