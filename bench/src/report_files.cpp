// SPDX-License-Identifier: MIT
// CSV and JSON writers (no dependencies: the JSON is small and flat enough to write by hand).
#include "report_files.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace takyon::bench {
namespace {

std::string number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

std::string us(double ns) {
  return number(ns / 1e3);
}

// CSV leaves a missing value empty where JSON writes null.
std::string csv_number(double value) {
  return std::isfinite(value) ? number(value) : std::string();
}

std::string csv_us(double ns) {
  return csv_number(ns / 1e3);
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x",
                        static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::ofstream open_for_writing(const std::string& path) {
  const std::filesystem::path file(path);
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw std::runtime_error("cannot create directory " + file.parent_path().string() + ": " +
                               ec.message());
  }
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open " + path + " for writing");
  return out;
}

void finish(std::ofstream& out, const std::string& path) {
  out.flush();
  if (!out) throw std::runtime_error("error writing " + path);
}

std::string json_record(const Record& r) {
  std::ostringstream out;
  out << "{\"provider\": " << json_string(r.provider) << ", \"mode\": " << json_string(r.mode)
      << ", \"test\": " << json_string(r.test) << ", \"bytes\": " << r.bytes
      << ", \"p50\": " << us(r.summary.p50) << ", \"p99\": " << us(r.summary.p99)
      << ", \"min\": " << us(r.summary.min) << ", \"mean\": " << us(r.summary.mean)
      << ", \"ratio_to_floor\": " << number(r.ratio_to_floor) << ", \"iterations\": " << r.summary.iterations;
  if (r.has_bandwidth())
    out << ", \"bandwidth_MBps\": " << number(r.bandwidth_mbps()) << ", \"window\": " << r.window;
  if (r.has_loss) out << ", \"lost\": " << r.lost;
  if (!r.from.empty()) out << ", \"from\": " << json_string(r.from);
  if (r.test.starts_with(test_name::kCollectivePrefix)) out << ", \"model_ratio\": " << number(r.model_ratio);
  out << "}";
  return out.str();
}

}  // namespace

const char* csv_header() {
  return "provider,mode,test,bytes,p50_us,p99_us,min_us,mean_us,ratio_to_floor,iterations,bandwidth_MBps,"
         "window,lost";
}

void write_csv(const std::string& path, const Results& results) {
  std::ofstream out = open_for_writing(path);
  out << csv_header() << "\n";
  for (const Record& r : results.records) {
    out << r.provider << ',' << r.mode << ',' << r.test << ',' << r.bytes << ',' << csv_us(r.summary.p50)
        << ',' << csv_us(r.summary.p99) << ',' << csv_us(r.summary.min) << ',' << csv_us(r.summary.mean)
        << ',' << csv_number(r.ratio_to_floor) << ',' << r.summary.iterations << ','
        << (r.has_bandwidth() ? csv_number(r.bandwidth_mbps()) : std::string()) << ','
        << (r.has_bandwidth() ? std::to_string(r.window) : std::string()) << ','
        << (r.has_loss ? std::to_string(r.lost) : std::string()) << "\n";
  }
  finish(out, path);
}

void write_json(const std::string& path, const JsonContext& context, const Results& results,
                const std::vector<TargetResult>& targets) {
  std::ofstream out = open_for_writing(path);
  const MachineInfo& m = context.machine;
  out << "{\n  \"tool\": \"takyon-bench\",\n  \"schema_version\": 1,\n  \"time_unit\": \"us per message\",\n";
  out << "  \"machine\": {\"cpu_model\": " << json_string(m.cpu_model) << ", \"cores\": " << m.online_cpus
      << ", \"allowed_cpus\": " << context.placement.allowed_cpus
      << ", \"hostname\": " << json_string(m.hostname) << ", \"kernel\": " << json_string(m.kernel)
      << ", \"date\": " << json_string(m.date_utc) << ", \"command_line\": " << json_string(m.command_line)
      << ", \"git_describe\": " << json_string(m.git_describe)
      << ", \"build_type\": " << json_string(m.build_type) << ", \"compiler\": " << json_string(m.compiler)
      << ", \"load_average\": " << number(m.load_average)
      << ", \"other_load_before\": " << number(m.other_load_before)
      << ", \"other_load_during\": " << number(m.other_load_during) << "},\n";
  out << "  \"config\": {\"cpu_a\": " << context.placement.cpu_a << ", \"cpu_b\": " << context.placement.cpu_b
      << ", \"window_buffers\": 4, \"warmup_ms\": " << number(context.warmup_s * 1e3)
      << ", \"measure_ms\": " << number(context.measure_s * 1e3) << ", \"iters\": " << context.iters
      << ", \"quick\": " << (context.quick ? "true" : "false")
      << ", \"ucx_perftest\": " << (context.ucx_perftest.empty() ? "null" : json_string(context.ucx_perftest))
      << ", \"collectives\": " << (context.collectives.empty() ? "null" : context.collectives)
      << ", \"sizes\": [";
  for (std::size_t i = 0; i < context.sizes.size(); ++i) out << (i > 0 ? ", " : "") << context.sizes[i];
  out << "]},\n  \"records\": [";
  for (std::size_t i = 0; i < results.records.size(); ++i) {
    out << (i > 0 ? ",\n    " : "\n    ") << json_record(results.records[i]);
  }
  out << "\n  ],\n  \"targets\": [";
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const TargetResult& t = targets[i];
    out << (i > 0 ? ",\n    " : "\n    ") << "{\"id\": " << json_string(t.id)
        << ", \"provider\": " << json_string(t.provider) << ", \"mode\": " << json_string(t.mode)
        << ", \"result\": \"" << verdict_name(t.verdict) << "\", \"value\": " << number(t.value)
        << ", \"limit\": " << number(t.limit) << ", \"comparison\": \"" << (t.at_most ? "<=" : ">=")
        << "\", \"description\": " << json_string(t.description) << "}";
  }
  out << "\n  ],\n  \"errors\": [";
  for (std::size_t i = 0; i < results.errors.size(); ++i) {
    out << (i > 0 ? ", " : "") << json_string(results.errors[i]);
  }
  out << "],\n  \"warnings\": [";
  for (std::size_t i = 0; i < results.warnings.size(); ++i) {
    out << (i > 0 ? ", " : "") << json_string(results.warnings[i]);
  }
  out << "]\n}\n";
  finish(out, path);
}

bool write_report_files(const std::string& csv_path, const std::string& json_path, const JsonContext& context,
                        const Results& results, const std::vector<TargetResult>& targets) {
  bool ok = true;
  try {
    if (!csv_path.empty()) write_csv(csv_path, results);
    if (!json_path.empty()) write_json(json_path, context, results, targets);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "takyon-bench: %s\n", e.what());
    ok = false;
  }
  if (!csv_path.empty()) std::printf("\nCSV:  %s\n", csv_path.c_str());
  if (!json_path.empty()) std::printf("JSON: %s\n", json_path.c_str());
  return ok;
}

bool print_failed_runs(const Results& results) {
  if (results.errors.empty()) return false;
  std::fprintf(stderr, "\ntakyon-bench: %zu run(s) failed:\n", results.errors.size());
  for (const std::string& error : results.errors) {
    std::fprintf(stderr, "  %s\n", error.substr(0, error.find('\n')).c_str());
  }
  return true;
}

}  // namespace takyon::bench
