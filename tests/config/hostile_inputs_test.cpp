// The hostile corpus of issue 15 through every reader of files other than the scenario
// (tests/cli/hostile_input_test.cpp has the scenario): the GPU catalog (gpus.yaml), a
// SkyPilot instance CSV, a SkyPilot spot trace, a cuda_probe output, a calibration profile
// and a `diagnose` log (nvidia-smi dmon). Each is read from a file, as the commands read it,
// after one change: a UTF-16 or UTF-32 byte-order mark, a NUL byte, CR-only line endings, a
// file of 100 MB, nesting 10^5 levels deep, or one number written as 2^63, 1e30, NaN or an
// infinity in each way the formats allow. Every one is an error whose whole message is
// asserted (the file and the position).
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "config/calibration_profile.h"
#include "config/config_error.h"
#include "config/gpu_catalog.h"
#include "config/instance_catalog.h"
#include "config/monitoring_log.h"
#include "config/probe_results.h"
#include "config/spot_trace.h"
#include "config_fixture.h"

namespace gpuplan::config {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// One reader: a valid file, how the command line reads it, and a number in it to replace.
struct Reader {
  std::string name;  // the file's name (messages name it)
  std::string text;
  std::function<void(const std::string&)> load;
  std::string number;  // text of one number in `text`, replaced by the hostile numbers
  bool nests = true;   // YAML or JSON (CSV and logs have no nesting)
};

std::vector<Reader> readers() {
  const std::string source = GPUPLAN_SOURCE_DIR;
  return {
      {"gpus.yaml",
       "format: gpuplan/v1\n"
       "gpus:\n"
       "  test-gpu:\n"
       "    form_factor: sxm\n"
       "    compute_capability: \"8.0\"\n"
       "    sms: 108\n"
       "    peak_dense: {fp32: \"19.5 TFLOP/s\", tf32: \"156 TFLOP/s\", fp16: \"312 TFLOP/s\", bf16: \"312 TFLOP/s\"}\n"
       "    memory: \"80 GiB\"\n"
       "    memory_bandwidth: \"2039 GB/s\"\n"
       "    pcie: {generation: 4, lanes: 16}\n"
       "    tdp: \"400 W\"\n"
       "    idle_power: \"50 W\"\n"
       "    source: \"a test row\"\n"
       "    retrieved: 2026-12-01\n"
       "    memory_type: hbm2e\n"
       "    l2_cache: \"40 MiB\"\n"
       "    boost_clock: \"1410 MHz\"\n"
       "    accuracy: prediction-only\n",
       [](const std::string& p) { GpuCatalog::load(p); }, "108"},
      {"vms.csv",
       "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n"
       "p4d.24xlarge,A100,8,96,1152,32.77,9.83,us-east-1,us-east-1a\n",
       [](const std::string& p) {
         InstanceCatalog c;
         c.add_csv(p, "aws", testing::shipped_catalogs().gpus, &testing::shipped_catalogs().storage);
       },
       "96", false},
      {"trace.json", "{\"metadata\": {\"gap_seconds\": 600}, \"data\": [0, 1, 0, 0]}\n",
       [](const std::string& p) { read_spot_trace(p); }, "600"},
      {"probe.json", slurp(source + "/tests/fixtures/calibration/probe-a100-2gpu.json"),
       [](const std::string& p) { load_probe_results(p); }, "8.199852408163264e-06"},
      {"profile.json", slurp(source + "/tests/fixtures/calibration/profiles/a100-80gb-2026-01-01.json"),
       [](const std::string& p) { load_calibration_profile(p); }, "18500000000000.0"},
      {"gpu.log",
       "# gpu    pwr     sm\n"
       "# Idx      W      %\n"
       "    0     43     10\n"
       "    0     44     12\n",
       [](const std::string& p) { read_monitoring_logs({p}, {}); }, "44", false},
  };
}

struct Folder {
  fs::path path = fs::temp_directory_path() / ("gpuplan-hostile-inputs-" + std::to_string(::getpid()));
  Folder() { fs::create_directories(path); }
  ~Folder() { fs::remove_all(path); }
};

/// The message of the ConfigError that reading `bytes` as `reader` throws, with the file's
/// path written "@"; "accepted" when there is none.
std::string error_reading(const Reader& reader, const std::string& bytes, std::uintmax_t size = 0) {
  const Folder folder;
  const std::string file = (folder.path / reader.name).string();
  std::ofstream(file, std::ios::binary) << bytes;
  if (size > 0) fs::resize_file(file, size);
  try {
    reader.load(file);
  } catch (const ConfigError& e) {
    std::string m = e.what();
    for (std::size_t at = m.find(file); at != std::string::npos; at = m.find(file, at + 1)) m.replace(at, file.size(), "@");
    return m;
  }
  return "accepted";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// Every hostile form of `reader`'s file: (what was changed, the message).
std::vector<std::pair<std::string, std::string>> hostile_errors(const Reader& reader) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string& t = reader.text;
  CHECK(error_reading(reader, t) == "accepted");
  out.emplace_back("utf-16", error_reading(reader, std::string("\xFF\xFE", 2) + t));
  out.emplace_back("utf-32", error_reading(reader, std::string("\0\0\xFE\xFF", 4) + t));
  const std::size_t line2 = t.find('\n') + 1;
  out.emplace_back("nul", error_reading(reader, t.substr(0, line2) + std::string(1, '\0') + t.substr(line2)));
  std::string cr = t;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  out.emplace_back("cr-only", error_reading(reader, cr));
  out.emplace_back("100 MB", error_reading(reader, t, std::uintmax_t{100} << 20));
  if (reader.nests) {
    out.emplace_back("deep", error_reading(reader, replaced(t, reader.number, std::string(100'000, '[') +
                                                                                std::string(100'000, ']'))));
  }
  for (const char* n : {"9223372036854775808", "1e30", "1e999", "-1e999", ".nan", ".NaN", "nan", "NaN", ".inf",
                        "-.inf", "inf", "-inf", "Infinity"}) {
    out.emplace_back(n, error_reading(reader, replaced(t, reader.number, n)));
  }
  return out;
}

}  // namespace

TEST_SUITE("config.hostile_inputs") {
  TEST_CASE("every reader: byte-order marks, NUL, CR-only, 100 MB, deep nesting, 2^63, 1e30, NaN, infinities") {
    // "<file> | <change> | <the whole message>", the file's path written "@". JSON has no
    // NaN or infinity: those are syntax errors there; CSV and logs have no nesting.
    const testing::Messages expected = {
      "gpus.yaml | utf-16 | the file is UTF-16 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "gpus.yaml | utf-32 | the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "gpus.yaml | nul | NUL byte at @:2:1; the file is binary, or UTF-16/32 without a byte-order mark: save it as UTF-8 text",
      "gpus.yaml | cr-only | carriage return without a line feed at @:1:19; the file has CR-only (old Mac) line endings: save it with LF or CRLF line endings",
      "gpus.yaml | 100 MB | cannot read file '@': it is 104,857,600 bytes, more than the 67,108,864 gpuplan reads; split it or remove what is not needed",
      "gpus.yaml | deep | nesting deeper than 64 levels at @:6:71; gpuplan's files nest a few levels: check for unclosed brackets or aliases of aliases",
      "gpus.yaml | 9223372036854775808 | expected a whole number from 1 to 1000, found '9223372036854775808' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | 1e30 | expected a whole number from 1 to 1000, found '1e30' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | 1e999 | expected a whole number from 1 to 1000, found '1e999' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | -1e999 | expected a whole number from 1 to 1000, found '-1e999' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | .nan | expected a whole number from 1 to 1000, found '.nan' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | .NaN | expected a whole number from 1 to 1000, found '.NaN' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | nan | expected a whole number from 1 to 1000, found 'nan' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | NaN | expected a whole number from 1 to 1000, found 'NaN' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | .inf | expected a whole number from 1 to 1000, found '.inf' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | -.inf | expected a whole number from 1 to 1000, found '-.inf' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | inf | expected a whole number from 1 to 1000, found 'inf' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | -inf | expected a whole number from 1 to 1000, found '-inf' at @:6:10 (gpus.test-gpu.sms)",
      "gpus.yaml | Infinity | expected a whole number from 1 to 1000, found 'Infinity' at @:6:10 (gpus.test-gpu.sms)",
      "vms.csv | utf-16 | the file is UTF-16 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "vms.csv | utf-32 | the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "vms.csv | nul | NUL byte at @:2:1; the file is binary, or UTF-16/32 without a byte-order mark: save it as UTF-8 text",
      "vms.csv | cr-only | carriage return without a line feed at @:1:102; the file has CR-only (old Mac) line endings: save it with LF or CRLF line endings",
      "vms.csv | 100 MB | cannot read file '@': it is 104,857,600 bytes, more than the 67,108,864 gpuplan reads; split it or remove what is not needed",
      "vms.csv | 9223372036854775808 | expected a vCPU count from 0 to 1e+05, found '9223372036854775808' at @:2:21 (vCPUs)",
      "vms.csv | 1e30 | expected a vCPU count from 0 to 1e+05, found '1e30' at @:2:21 (vCPUs)",
      "vms.csv | 1e999 | expected a vCPU count from 0 to 1e+05, found '1e999' at @:2:21 (vCPUs)",
      "vms.csv | -1e999 | expected a vCPU count from 0 to 1e+05, found '-1e999' at @:2:21 (vCPUs)",
      "vms.csv | .nan | expected a vCPU count from 0 to 1e+05, found '.nan' at @:2:21 (vCPUs)",
      "vms.csv | .NaN | expected a vCPU count from 0 to 1e+05, found '.NaN' at @:2:21 (vCPUs)",
      "vms.csv | nan | expected a vCPU count from 0 to 1e+05, found 'nan' at @:2:21 (vCPUs)",
      "vms.csv | NaN | expected a vCPU count from 0 to 1e+05, found 'NaN' at @:2:21 (vCPUs)",
      "vms.csv | .inf | expected a vCPU count from 0 to 1e+05, found '.inf' at @:2:21 (vCPUs)",
      "vms.csv | -.inf | expected a vCPU count from 0 to 1e+05, found '-.inf' at @:2:21 (vCPUs)",
      "vms.csv | inf | expected a vCPU count from 0 to 1e+05, found 'inf' at @:2:21 (vCPUs)",
      "vms.csv | -inf | expected a vCPU count from 0 to 1e+05, found '-inf' at @:2:21 (vCPUs)",
      "vms.csv | Infinity | expected a vCPU count from 0 to 1e+05, found 'Infinity' at @:2:21 (vCPUs)",
      "trace.json | utf-16 | the file is UTF-16 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "trace.json | utf-32 | the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "trace.json | nul | NUL byte at @:2:1; the file is binary, or UTF-16/32 without a byte-order mark: save it as UTF-8 text",
      "trace.json | cr-only | carriage return without a line feed at @:1:57; the file has CR-only (old Mac) line endings: save it with LF or CRLF line endings",
      "trace.json | 100 MB | cannot read file '@': it is 104,857,600 bytes, more than the 67,108,864 gpuplan reads; split it or remove what is not needed",
      "trace.json | deep | @: metadata.gap_seconds is an array, not a number; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | 9223372036854775808 | @: metadata.gap_seconds must be from 1 to 10,000,000 (seconds between probes), found 9223372036854775808; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | 1e30 | @: metadata.gap_seconds must be from 1 to 10,000,000 (seconds between probes), found 1e+30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | 1e999 | number '1e999' outside the range of a double (about 1.8e308) at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | -1e999 | number '-1e999' outside the range of a double (about 1.8e308) at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | .nan | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"gap_seconds\": .' at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | .NaN | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"gap_seconds\": .' at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | nan | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"gap_seconds\": na' at @:1:31; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | NaN | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"gap_seconds\": N' at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | .inf | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"gap_seconds\": .' at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | -.inf | malformed JSON: syntax error while parsing value - invalid number; expected digit after '-'; last read: '-.' at @:1:31; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | inf | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"gap_seconds\": i' at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | -inf | malformed JSON: syntax error while parsing value - invalid number; expected digit after '-'; last read: '-i' at @:1:31; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "trace.json | Infinity | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"gap_seconds\": I' at @:1:30; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}",
      "probe.json | utf-16 | the file is UTF-16 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "probe.json | utf-32 | the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "probe.json | nul | NUL byte at @:2:1; the file is binary, or UTF-16/32 without a byte-order mark: save it as UTF-8 text",
      "probe.json | cr-only | carriage return without a line feed at @:1:2; the file has CR-only (old Mac) line endings: save it with LF or CRLF line endings",
      "probe.json | 100 MB | cannot read probe output '@': it is 104,857,600 bytes, more than the 67,108,864 gpuplan reads; split it or remove what is not needed",
      "probe.json | deep | expected a number, found an array at @ (h2d_pinned[0].median_s)",
      "probe.json | 9223372036854775808 | out-of-range number 9223372036854775808: no measured quantity reaches 1e18 in SI units at @ (h2d_pinned[0].median_s); produce the file again (cuda_probe -o FILE, gpuplan calibrate)",
      "probe.json | 1e30 | out-of-range number 1e+30: no measured quantity reaches 1e18 in SI units at @ (h2d_pinned[0].median_s); produce the file again (cuda_probe -o FILE, gpuplan calibrate)",
      "probe.json | 1e999 | number '1e999' outside the range of a double (about 1.8e308) at @:251:19; produce it again with cuda_probe -o FILE",
      "probe.json | -1e999 | number '-1e999' outside the range of a double (about 1.8e308) at @:251:19; produce it again with cuda_probe -o FILE",
      "probe.json | .nan | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"median_s\": .' at @:251:19; produce it again with cuda_probe -o FILE",
      "probe.json | .NaN | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"median_s\": .' at @:251:19; produce it again with cuda_probe -o FILE",
      "probe.json | nan | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"median_s\": na' at @:251:20; produce it again with cuda_probe -o FILE",
      "probe.json | NaN | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"median_s\": N' at @:251:19; produce it again with cuda_probe -o FILE",
      "probe.json | .inf | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"median_s\": .' at @:251:19; produce it again with cuda_probe -o FILE",
      "probe.json | -.inf | malformed JSON: syntax error while parsing value - invalid number; expected digit after '-'; last read: '-.' at @:251:20; produce it again with cuda_probe -o FILE",
      "probe.json | inf | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"median_s\": i' at @:251:19; produce it again with cuda_probe -o FILE",
      "probe.json | -inf | malformed JSON: syntax error while parsing value - invalid number; expected digit after '-'; last read: '-i' at @:251:20; produce it again with cuda_probe -o FILE",
      "probe.json | Infinity | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"median_s\": I' at @:251:19; produce it again with cuda_probe -o FILE",
      "profile.json | utf-16 | the file is UTF-16 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "profile.json | utf-32 | the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "profile.json | nul | NUL byte at @:2:1; the file is binary, or UTF-16/32 without a byte-order mark: save it as UTF-8 text",
      "profile.json | cr-only | carriage return without a line feed at @:1:2; the file has CR-only (old Mac) line endings: save it with LF or CRLF line endings",
      "profile.json | 100 MB | cannot read calibration profile '@': it is 104,857,600 bytes, more than the 67,108,864 gpuplan reads; split it or remove what is not needed",
      "profile.json | deep | expected a number, found an array at @ (gemm.fp32.rate_flop_per_s)",
      "profile.json | 9223372036854775808 | out-of-range number 9223372036854775808: no measured quantity reaches 1e18 in SI units at @ (gemm.fp32.rate_flop_per_s); produce the file again (cuda_probe -o FILE, gpuplan calibrate)",
      "profile.json | 1e30 | out-of-range number 1e+30: no measured quantity reaches 1e18 in SI units at @ (gemm.fp32.rate_flop_per_s); produce the file again (cuda_probe -o FILE, gpuplan calibrate)",
      "profile.json | 1e999 | number '1e999' outside the range of a double (about 1.8e308) at @:23:26; write the profile again with gpuplan calibrate",
      "profile.json | -1e999 | number '-1e999' outside the range of a double (about 1.8e308) at @:23:26; write the profile again with gpuplan calibrate",
      "profile.json | .nan | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"rate_flop_per_s\": .' at @:23:26; write the profile again with gpuplan calibrate",
      "profile.json | .NaN | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"rate_flop_per_s\": .' at @:23:26; write the profile again with gpuplan calibrate",
      "profile.json | nan | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"rate_flop_per_s\": na' at @:23:27; write the profile again with gpuplan calibrate",
      "profile.json | NaN | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"rate_flop_per_s\": N' at @:23:26; write the profile again with gpuplan calibrate",
      "profile.json | .inf | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"rate_flop_per_s\": .' at @:23:26; write the profile again with gpuplan calibrate",
      "profile.json | -.inf | malformed JSON: syntax error while parsing value - invalid number; expected digit after '-'; last read: '-.' at @:23:27; write the profile again with gpuplan calibrate",
      "profile.json | inf | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"rate_flop_per_s\": i' at @:23:26; write the profile again with gpuplan calibrate",
      "profile.json | -inf | malformed JSON: syntax error while parsing value - invalid number; expected digit after '-'; last read: '-i' at @:23:27; write the profile again with gpuplan calibrate",
      "profile.json | Infinity | malformed JSON: syntax error while parsing value - invalid literal; last read: '\"rate_flop_per_s\": I' at @:23:26; write the profile again with gpuplan calibrate",
      "gpu.log | utf-16 | the file is UTF-16 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "gpu.log | utf-32 | the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8",
      "gpu.log | nul | NUL byte at @:2:1; the file is binary, or UTF-16/32 without a byte-order mark: save it as UTF-8 text",
      "gpu.log | cr-only | carriage return without a line feed at @:1:20; the file has CR-only (old Mac) line endings: save it with LF or CRLF line endings",
      "gpu.log | 100 MB | cannot read file '@': it is 104,857,600 bytes, more than the 67,108,864 gpuplan reads; split it or remove what is not needed",
      "gpu.log | 9223372036854775808 | '9223372036854775808' is out of range at @:4:11 (pwr); no reading of a monitoring tool reaches 1e15 (W, %, MiB, MHz, MB/s, bytes/s)",
      "gpu.log | 1e30 | '1e30' is out of range at @:4:11 (pwr); no reading of a monitoring tool reaches 1e15 (W, %, MiB, MHz, MB/s, bytes/s)",
      "gpu.log | 1e999 | '1e999' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | -1e999 | '-1e999' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | .nan | '.nan' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | .NaN | '.NaN' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | nan | 'nan' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | NaN | 'NaN' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | .inf | '.inf' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | -.inf | '-.inf' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | inf | 'inf' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | -inf | '-inf' is not a number at @:4:11 (pwr); expected a number, or [N/A]",
      "gpu.log | Infinity | 'Infinity' is not a number at @:4:11 (pwr); expected a number, or [N/A]"};
    testing::Messages actual;
    for (const Reader& reader : readers()) {
      for (const auto& [change, message] : hostile_errors(reader)) actual.push_back(reader.name + " | " + change + " | " + message);
    }
    CHECK(actual == expected);
  }
}

}  // namespace gpuplan::config
