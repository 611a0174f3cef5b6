// SPDX-License-Identifier: MIT
// What every collective shares: checked sends and receives that turn timeouts into errors, buffer
// checks, and the C allocation of handles and path lists.
#include "extensions/collective/collective_common.hpp"

#include <cinttypes>
#include <cstdlib>
#include <set>

#include "extensions/extension_error.hpp"

namespace takyon::detail {

std::string describe_path(const TakyonPath* path) {
  return std::string("path '") + path->attrs.interconnect + "' endpoint " +
         (path->attrs.is_endpointA ? "A" : "B");
}

int send_buffer_count(const TakyonPath* path) {
  return path->attrs.is_endpointA ? path->attrs.nbufs_AtoB : path->attrs.nbufs_BtoA;
}

int recv_buffer_count(const TakyonPath* path) {
  return path->attrs.is_endpointA ? path->attrs.nbufs_BtoA : path->attrs.nbufs_AtoB;
}

uint8_t* send_buffer_addr(const TakyonPath* path, int buffer) {
  return reinterpret_cast<uint8_t*>(path->attrs.sender_addr_list[buffer]);
}

uint8_t* recv_buffer_addr(const TakyonPath* path, int buffer) {
  return reinterpret_cast<uint8_t*>(path->attrs.recver_addr_list[buffer]);
}

namespace {
const char* path_error(const TakyonPath* path) {
  return path->attrs.error_message != nullptr ? path->attrs.error_message : "(no message)";
}
}  // namespace

bool check_buffer(const CollectiveCall& call, const TakyonPath* path, int buffer, bool need_send,
                  bool need_recv, uint64_t send_bytes, uint64_t recv_bytes) {
  if (need_send) {
    const int n = send_buffer_count(path);
    if (buffer < 0 || buffer >= n) {
      return fail_extensionf(
          "%s (%s): buffer %d does not exist for sending on %s, which has %d send buffer(s)", call.function,
          call.role.c_str(), buffer, describe_path(path).c_str(), n);
    }
    if (path->attrs.sender_max_bytes_list[buffer] < send_bytes) {
      return fail_extensionf("%s (%s): %" PRIu64 " bytes do not fit send buffer %d of %s (%" PRIu64 " bytes)",
                             call.function, call.role.c_str(), send_bytes, buffer,
                             describe_path(path).c_str(), path->attrs.sender_max_bytes_list[buffer]);
    }
  }
  if (need_recv) {
    const int n = recv_buffer_count(path);
    if (buffer < 0 || buffer >= n) {
      return fail_extensionf(
          "%s (%s): buffer %d does not exist for receiving on %s, which has %d receive buffer(s)",
          call.function, call.role.c_str(), buffer, describe_path(path).c_str(), n);
    }
    if (path->attrs.recver_max_bytes_list[buffer] < recv_bytes) {
      return fail_extensionf("%s (%s): %" PRIu64 " bytes do not fit receive buffer %d of %s (%" PRIu64
                             " bytes)",
                             call.function, call.role.c_str(), recv_bytes, buffer,
                             describe_path(path).c_str(), path->attrs.recver_max_bytes_list[buffer]);
    }
  }
  return true;
}

bool start_send(const CollectiveCall& call, TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset,
                uint64_t dest_offset) {
  bool timed_out = false;
  if (!takyonSend(path, buffer, bytes, src_offset, dest_offset, &timed_out)) {
    return fail_extensionf("%s (%s): sending %" PRIu64 " bytes in buffer %d on %s failed: %s", call.function,
                           call.role.c_str(), bytes, buffer, describe_path(path).c_str(), path_error(path));
  }
  if (timed_out) {
    return fail_extensionf(
        "%s (%s): timed out after %g s waiting to send in buffer %d on %s (send_start_timeout)",
        call.function, call.role.c_str(), path->attrs.send_start_timeout, buffer,
        describe_path(path).c_str());
  }
  return true;
}

bool finish_send(const CollectiveCall& call, TakyonPath* path, int buffer) {
  if (path->attrs.send_completion_method != TAKYON_USE_IS_SEND_FINISHED) return true;
  for (;;) {
    bool timed_out = false;
    if (!takyonIsSendFinished(path, buffer, &timed_out)) {
      return fail_extensionf("%s (%s): completing the send in buffer %d on %s failed: %s", call.function,
                             call.role.c_str(), buffer, describe_path(path).c_str(), path_error(path));
    }
    if (!timed_out) return true;
    // A finish timeout of 0 means "poll": keep asking (a dead peer makes the call fail). Any other
    // expiry is the application's limit, and a collective cannot leave a send half done.
    if (path->attrs.send_finish_timeout != 0.0) {
      return fail_extensionf(
          "%s (%s): the send in buffer %d on %s did not finish within %g s (send_finish_timeout)",
          call.function, call.role.c_str(), buffer, describe_path(path).c_str(),
          path->attrs.send_finish_timeout);
    }
  }
}

bool send_whole(const CollectiveCall& call, TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset,
                uint64_t dest_offset) {
  return start_send(call, path, buffer, bytes, src_offset, dest_offset) && finish_send(call, path, buffer);
}

bool recv_message(const CollectiveCall& call, TakyonPath* path, int buffer, uint64_t* bytes_ret,
                  uint64_t* offset_ret) {
  bool timed_out = false;
  if (!takyonRecv(path, buffer, bytes_ret, offset_ret, &timed_out)) {
    return fail_extensionf("%s (%s): receiving in buffer %d on %s failed: %s", call.function,
                           call.role.c_str(), buffer, describe_path(path).c_str(), path_error(path));
  }
  if (timed_out) {
    return fail_extensionf(
        "%s (%s): timed out after %g s waiting for a message in buffer %d on %s "
        "(recv_start_timeout)",
        call.function, call.role.c_str(), path->attrs.recv_start_timeout, buffer,
        describe_path(path).c_str());
  }
  return true;
}

bool check_path_list(const char* function, const char* list_name, int n, TakyonPath* const* list) {
  if (n < 0)
    return fail_extensionf("%s: the number of entries in %s is %d; it must not be negative", function,
                           list_name, n);
  if (n > 0 && list == nullptr)
    return fail_extensionf("%s: %s is NULL but should hold %d path(s)", function, list_name, n);
  std::set<const TakyonPath*> seen;
  for (int i = 0; i < n; i++) {
    if (list[i] == nullptr) return fail_extensionf("%s: %s[%d] is NULL", function, list_name, i);
    if (!seen.insert(list[i]).second) {
      return fail_extensionf("%s: %s[%d] (%s) appears twice in the list", function, list_name, i,
                             describe_path(list[i]).c_str());
    }
  }
  return true;
}

TakyonPath** copy_path_list(int n, TakyonPath* const* list) {
  auto* copy = static_cast<TakyonPath**>(std::calloc(static_cast<size_t>(n) + 1, sizeof(TakyonPath*)));
  if (copy == nullptr) return nullptr;
  for (int i = 0; i < n; i++) copy[i] = list[i];
  return copy;
}

void* alloc_handle(const char* function, size_t bytes) {
  void* handle = std::calloc(1, bytes);
  if (handle == nullptr) fail_extensionf("%s: out of memory", function);
  return handle;
}

bool element_bytes(const CollectiveCall& call, uint64_t nelements, uint64_t bytes_per_elem, uint64_t& bytes) {
  if (bytes_per_elem != 0 && nelements > UINT64_MAX / bytes_per_elem) {
    return fail_extensionf("%s (%s): %" PRIu64 " elements of %" PRIu64 " bytes overflow 64 bits",
                           call.function, call.role.c_str(), nelements, bytes_per_elem);
  }
  bytes = nelements * bytes_per_elem;
  return true;
}

}  // namespace takyon::detail
