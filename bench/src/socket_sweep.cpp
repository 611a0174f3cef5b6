// SPDX-License-Identifier: MIT
// Socket provider sweeps with their plain socket baselines, turned into records and table rows.
#include "socket_sweep.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "control_pair.hpp"
#include "path_driver.hpp"
#include "peer.hpp"
#include "report_text.hpp"
#include "socket_driver.hpp"

namespace takyon::bench {
namespace {

// Endpoint B, in the forked child: its links, then 'ready', then A's commands until quit.
void serve(SocketKind kind, const SocketProviderStrings& strings, bool polling, std::uint64_t buffer_bytes,
           PlainSockets& plain, int ctl) {
  const std::unique_ptr<Link> provider = open_provider_link(kind, strings, false, polling, buffer_bytes);
  const std::unique_ptr<Link> plain_link = plain.open(false, buffer_bytes);
  ctl_write(ctl, &kPeerReady, 1);
  run_socket_peer(ctl, *provider, *plain_link);
  provider->close();
}

}  // namespace

bool run_socket_sweep(const std::string& provider, SocketKind kind, bool polling, const SweepSetup& setup,
                      Results& results) {
  const std::string mode = mode_name(polling);
  const bool datagram = is_datagram(kind);
  std::vector<std::uint64_t> sizes = setup.sizes;
  std::erase_if(sizes, [kind](std::uint64_t s) { return s > max_socket_message(kind); });
  if (sizes.empty()) {
    std::printf("\n== %s, %s: no size up to its limit of %llu bytes in this sweep ==\n", provider.c_str(),
                mode.c_str(), static_cast<unsigned long long>(max_socket_message(kind)));
    return true;
  }
  // Every slot holds the largest message, and at least a stamped acknowledgement.
  const std::uint64_t buffer_bytes = std::max<std::uint64_t>(sizes.back(), 8);
  std::string what = provider + " " + mode;
  std::optional<Peer> peer;
  try {
    const SocketProviderStrings strings = make_socket_provider_strings(kind, next_path_id());
    what = strings.title + " " + mode;
    print_socket_table_header(strings.title, polling, plain_description(kind), datagram);
    std::vector<Record> records;
    {
      ControlPair control;
      PlainSockets plain(kind);
      peer.emplace(PeerKind::kProcess, setup.placement.cpu_b, [&, kind, polling, buffer_bytes] {
        serve(kind, strings, polling, buffer_bytes, plain, control.keep(1));
      });
      const int ctl = control.keep(0);
      const std::unique_ptr<Link> link = open_provider_link(kind, strings, true, polling, buffer_bytes);
      const std::unique_ptr<Link> plain_link = plain.open(true, buffer_bytes);
      // On an error, B must hear of it before A's connected path is destroyed: a graceful destroy
      // waits for B's close, and B waits for a command. Closing the control channel first makes B
      // leave (its process exits and the path's connection with it) instead.
      const ControlPair::CloseOnUnwind guard(control, 0);
      char ready = 0;
      ctl_read(ctl, &ready, 1);
      if (ready != kPeerReady) throw std::runtime_error("endpoint B did not get ready");

      SocketDriver driver(ctl, *link, *plain_link);
      const std::string plain_latency = plain_latency_test(kind);
      const std::string plain_bandwidth = plain_bandwidth_test(kind);
      for (std::uint64_t bytes : sizes) {
        // The baseline and the provider in turns, kBaselineSlices times each, so a change of the machine
        // during the pair weighs on both.
        const auto [plain_lat, lat] = measure_alternating(
            driver.latency(true, bytes), driver.latency(false, bytes), setup.budget, kBaselineSlices);
        Record base_lat = make_record(provider, mode, plain_latency, bytes, plain_lat);
        Record latency = make_record(provider, mode, test_name::kLatency, bytes, lat);
        latency.ratio_to_floor = latency.summary.p50 / base_lat.summary.p50;

        const std::uint64_t window = window_messages(bytes);
        driver.reset_stream_stats();
        const auto [plain_bw, bw] =
            measure_alternating(driver.bandwidth(true, bytes, window), driver.bandwidth(false, bytes, window),
                                setup.budget, kBaselineSlices);
        Record base_bw = make_record(provider, mode, plain_bandwidth, bytes, plain_bw);
        Record bandwidth = make_record(provider, mode, test_name::kBandwidth, bytes, bw);
        for (Record* r : {&base_bw, &bandwidth}) {
          r->window = window;
          r->has_loss = datagram;
          r->lost = driver.stream_stats(r == &base_bw).lost;
        }
        bandwidth.ratio_to_floor = bandwidth.summary.p50 > 0 ? base_bw.summary.p50 / bandwidth.summary.p50
                                                             : std::numeric_limits<double>::quiet_NaN();

        print_socket_table_row(base_lat, latency, base_bw, bandwidth, datagram);
        if (datagram && (base_bw.lost != 0 || bandwidth.lost != 0)) {
          const std::string warning = what + ", " + std::to_string(bytes) +
                                      " B stream: " + std::to_string(bandwidth.lost) + " of " +
                                      std::to_string(driver.stream_stats(false).sent) +
                                      " message(s) lost (plain UDP: " + std::to_string(base_bw.lost) +
                                      " of " + std::to_string(driver.stream_stats(true).sent) + ")";
          results.warnings.push_back(warning);
        }
        for (Record* r : {&base_lat, &latency, &base_bw, &bandwidth}) records.push_back(std::move(*r));
      }
      driver.quit();
      link->close();
    }
    peer->join();
    for (Record& r : records) results.records.push_back(std::move(r));
    return true;
  } catch (const std::exception& e) {
    std::string message = what + " failed: " + e.what();
    if (peer) {
      try {
        peer->join();
      } catch (const std::exception& peer_error) {
        message += std::string("\n  and ") + peer_error.what();
      }
    }
    std::fprintf(stderr, "takyon-bench: %s\n", message.c_str());
    results.errors.push_back(message);
    return false;
  }
}

}  // namespace takyon::bench
