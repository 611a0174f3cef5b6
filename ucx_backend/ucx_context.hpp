// SPDX-License-Identifier: MIT
// UcxContext: one ucp_context per process and transport selection (-tls=), shared by every Ucx
// path that asks for the same transports, for as long as one of them exists. ucp_init() loads
// and probes every transport (tens of milliseconds); a path then costs one worker, one endpoint
// and its registrations, so a program (or the MPI layer) that opens many paths pays it once.
#pragma once

#include <ucp/api/ucp.h>

#include <memory>
#include <string>

#include "error_log.hpp"

namespace takyon::detail {

class UcxContext {
 public:
  /// The shared context for `tls` ("" = UCX's default choice, or UCX_TLS from the environment).
  static Status acquire(const std::string& tls, const std::string& provider, ErrorLog& log,
                        std::shared_ptr<UcxContext>& out);
  ~UcxContext();
  UcxContext(const UcxContext&) = delete;
  UcxContext& operator=(const UcxContext&) = delete;

  [[nodiscard]] ucp_context_h get() const noexcept { return context_; }
  [[nodiscard]] const std::string& tls() const noexcept { return tls_; }
  /// Transport resources (transport and device pairs) UCX chose; what a worker opens grows with it.
  [[nodiscard]] long resources() const noexcept { return resources_; }

 private:
  UcxContext(ucp_context_h context, std::string tls, long resources)
      : context_(context), tls_(std::move(tls)), resources_(resources) {}
  ucp_context_h context_;
  std::string tls_;
  long resources_;
};

/// "UCS_ERR_UNREACHABLE (Destination is unreachable)".
std::string ucs_text(ucs_status_t status);

}  // namespace takyon::detail
