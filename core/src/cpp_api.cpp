// SPDX-License-Identifier: MIT
// The C++ API: takyon::Path over PathCore, errors as takyon::Error.
#include <cstdio>
#include <utility>

#include "path_core.hpp"
#include "takyon/takyon.hpp"

namespace takyon {

using detail::PathCore;

PathOptions PathOptions::symmetric(std::string provider, bool endpoint_a, int nbufs, std::uint64_t bytes) {
  PathOptions options;
  options.provider = std::move(provider);
  options.endpoint_a = endpoint_a;
  options.send_bytes.assign(static_cast<size_t>(nbufs), bytes);
  options.recv_bytes.assign(static_cast<size_t>(nbufs), bytes);
  return options;
}

namespace {

void throw_if_error(Status status, const PathCore& core) {
  if (status < Status::kOk) throw Error(status, core.last_error());
}

}  // namespace

Path::Path(const PathOptions& options) {
  if (options.provider.size() >= TAKYON_MAX_INTERCONNECT_CHARS) {
    throw Error(Status::kInvalidArgument,
                "takyon::Path: provider string longer than TAKYON_MAX_INTERCONNECT_CHARS - 1");
  }
  auto check_addrs = [](const std::vector<void*>& addrs, size_t count, const char* name) {
    if (!addrs.empty() && addrs.size() != count) {
      throw Error(Status::kInvalidArgument,
                  std::string("takyon::Path: ") + name + " must be empty or have one entry per buffer");
    }
  };
  check_addrs(options.send_addrs, options.send_bytes.size(), "send_addrs");
  check_addrs(options.recv_addrs, options.recv_bytes.size(), "recv_addrs");
  std::vector<uint64_t> send_bytes = options.send_bytes;
  std::vector<uint64_t> recv_bytes = options.recv_bytes;
  std::vector<size_t> send_addrs(send_bytes.size(), 0);
  std::vector<size_t> recv_addrs(recv_bytes.size(), 0);
  for (size_t i = 0; i < options.send_addrs.size(); ++i)
    send_addrs[i] = reinterpret_cast<size_t>(options.send_addrs[i]);
  for (size_t i = 0; i < options.recv_addrs.size(); ++i)
    recv_addrs[i] = reinterpret_cast<size_t>(options.recv_addrs[i]);

  TakyonPathAttributes attrs{};
  std::snprintf(attrs.interconnect, sizeof(attrs.interconnect), "%s", options.provider.c_str());
  attrs.is_endpointA = options.endpoint_a;
  attrs.is_polling = options.polling;
  attrs.abort_on_failure = false;
  attrs.verbosity = options.verbosity;
  attrs.path_create_timeout = options.timeouts.create;
  attrs.send_start_timeout = options.timeouts.send_start;
  attrs.send_finish_timeout = options.timeouts.send_finish;
  attrs.recv_start_timeout = options.timeouts.recv_start;
  attrs.recv_finish_timeout = options.timeouts.recv_finish;
  attrs.path_destroy_timeout = options.timeouts.destroy;
  attrs.send_completion_method =
      options.send_completion == Completion::kBlocking ? TAKYON_BLOCKING : TAKYON_USE_IS_SEND_FINISHED;
  attrs.recv_completion_method = TAKYON_BLOCKING;
  const int nsend = static_cast<int>(send_bytes.size());
  const int nrecv = static_cast<int>(recv_bytes.size());
  attrs.nbufs_AtoB = options.endpoint_a ? nsend : nrecv;
  attrs.nbufs_BtoA = options.endpoint_a ? nrecv : nsend;
  attrs.sender_max_bytes_list = send_bytes.data();
  attrs.recver_max_bytes_list = recv_bytes.data();
  attrs.sender_addr_list = send_addrs.data();
  attrs.recver_addr_list = recv_addrs.data();

  std::string error;
  Status status = Status::kOk;
  std::unique_ptr<PathCore> core = PathCore::create(attrs, error, status);
  if (!core) throw Error(status, error);
  core_ = core.release();
}

Path::~Path() {
  if (core_ == nullptr) return;
  core_->destroy();
  delete core_;
}

Path::Path(Path&& other) noexcept : core_(std::exchange(other.core_, nullptr)) {}

Path& Path::operator=(Path&& other) noexcept {
  if (this != &other) {
    if (core_ != nullptr) {
      core_->destroy();
      delete core_;
    }
    core_ = std::exchange(other.core_, nullptr);
  }
  return *this;
}

namespace {

PathCore& live(PathCore* core, const char* operation) {
  if (core == nullptr) {
    throw Error(Status::kInvalidArgument,
                std::string("takyon::Path::") + operation + ": the path was destroyed or moved from");
  }
  return *core;
}

}  // namespace

bool Path::send(int buffer, std::uint64_t bytes, std::uint64_t src_offset, std::uint64_t dest_offset) {
  PathCore& core = live(core_, "send");
  const Status status = core.send(buffer, bytes, src_offset, dest_offset, true);
  throw_if_error(status, core);
  return status == Status::kOk;
}

bool Path::write_piggyback(int buffer, std::uint64_t bytes, std::uint64_t src_offset,
                           std::uint64_t dest_offset, std::uint32_t piggyback) {
  PathCore& core = live(core_, "write_piggyback");
  const Status status = core.write_piggyback(buffer, bytes, src_offset, dest_offset, piggyback, true);
  throw_if_error(status, core);
  return status == Status::kOk;
}

bool Path::is_send_finished(int buffer) {
  PathCore& core = live(core_, "is_send_finished");
  const Status status = core.is_send_finished(buffer, true, "takyonIsSendFinished");
  throw_if_error(status, core);
  return status == Status::kOk;
}

std::optional<Received> Path::recv(int buffer) {
  PathCore& core = live(core_, "recv");
  Received out;
  const Status status = core.recv(buffer, &out.bytes, &out.offset, true, &out.piggyback);
  throw_if_error(status, core);
  if (status == Status::kTimedOut) return std::nullopt;
  return out;
}

void Path::write(int buffer, std::uint64_t bytes, std::uint64_t src_offset, std::uint64_t dest_offset) {
  PathCore& core = live(core_, "write");
  throw_if_error(core.write(buffer, bytes, src_offset, dest_offset), core);
}

void Path::read(int buffer, std::uint64_t bytes, std::uint64_t local_offset, std::uint64_t remote_offset) {
  PathCore& core = live(core_, "read");
  throw_if_error(core.read(buffer, bytes, local_offset, remote_offset), core);
}

std::uint64_t Path::atomic_fetch_add(int buffer, std::uint64_t offset, std::uint64_t add) {
  PathCore& core = live(core_, "atomic_fetch_add");
  std::uint64_t old = 0;
  throw_if_error(core.fetch_add(buffer, offset, add, &old), core);
  return old;
}

std::uint64_t Path::atomic_compare_swap(int buffer, std::uint64_t offset, std::uint64_t compare,
                                        std::uint64_t swap) {
  PathCore& core = live(core_, "atomic_compare_swap");
  std::uint64_t old = 0;
  throw_if_error(core.compare_swap(buffer, offset, compare, swap, &old), core);
  return old;
}

void Path::write_start(int buffer, std::uint64_t bytes, std::uint64_t src_offset, std::uint64_t dest_offset) {
  PathCore& core = live(core_, "write_start");
  throw_if_error(core.write(buffer, bytes, src_offset, dest_offset, true), core);
}

void Path::read_start(int buffer, std::uint64_t bytes, std::uint64_t local_offset,
                      std::uint64_t remote_offset) {
  PathCore& core = live(core_, "read_start");
  throw_if_error(core.read(buffer, bytes, local_offset, remote_offset, true), core);
}

void Path::atomic_fetch_add_start(int buffer, std::uint64_t offset, std::uint64_t add, std::uint64_t* old) {
  PathCore& core = live(core_, "atomic_fetch_add_start");
  throw_if_error(core.fetch_add(buffer, offset, add, old, true), core);
}

void Path::atomic_compare_swap_start(int buffer, std::uint64_t offset, std::uint64_t compare,
                                     std::uint64_t swap, std::uint64_t* old) {
  PathCore& core = live(core_, "atomic_compare_swap_start");
  throw_if_error(core.compare_swap(buffer, offset, compare, swap, old, true), core);
}

bool Path::is_one_sided_finished() {
  PathCore& core = live(core_, "is_one_sided_finished");
  const Status status = core.is_one_sided_finished(true);
  throw_if_error(status, core);
  return status == Status::kOk;
}

void Path::destroy() {
  PathCore& core = live(core_, "destroy");
  const std::string error = core.destroy();
  const Status status = core.last_status();
  delete core_;
  core_ = nullptr;
  if (!error.empty()) throw Error(status, error);
}

int Path::send_buffer_count() const noexcept {
  return core_ == nullptr ? 0 : core_->send_count();
}
int Path::recv_buffer_count() const noexcept {
  return core_ == nullptr ? 0 : core_->recv_count();
}

std::span<std::byte> Path::send_buffer(int buffer) const {
  PathCore& core = live(core_, "send_buffer");
  if (buffer < 0 || buffer >= core.send_count()) {
    throw Error(Status::kInvalidArgument, "takyon::Path::send_buffer: index " + std::to_string(buffer) +
                                              " out of range (" + std::to_string(core.send_count()) +
                                              " buffers)");
  }
  return {core.buffers().send[buffer], core.send_bytes()[buffer]};
}

std::span<std::byte> Path::recv_buffer(int buffer) const {
  PathCore& core = live(core_, "recv_buffer");
  if (buffer < 0 || buffer >= core.recv_count()) {
    throw Error(Status::kInvalidArgument, "takyon::Path::recv_buffer: index " + std::to_string(buffer) +
                                              " out of range (" + std::to_string(core.recv_count()) +
                                              " buffers)");
  }
  return {core.buffers().recv[buffer], core.recv_bytes()[buffer]};
}

TakyonPath* Path::c_path() const noexcept {
  return core_ == nullptr ? nullptr : core_->c_path();
}

const TakyonProviderInfo* Path::provider() const noexcept {
  return core_ == nullptr ? nullptr : find_provider(core_->provider_info().name);
}

TakyonPathCapabilities Path::capabilities() const {
  TakyonPathCapabilities out{};
  live(core_, "capabilities").capabilities(out);
  return out;
}

}  // namespace takyon
