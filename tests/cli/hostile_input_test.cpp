// The hostile corpus of issue 15, through the built binary: every case exits 2 with the
// whole message (file and position), leaves no output file behind, and ends well within a
// hang guard of 10 s (a guard against hangs, not a speed target: those live in bench/).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/output_file.h"
#include "run_command.h"

using gpuplan::testing::run_gpuplan;

namespace {

namespace fs = std::filesystem;

/// A valid one-GPU scenario of one epoch: each case changes one thing (line numbers are
/// part of the expected messages: keep it as it is).
const std::string kBase = R"(format: gpuplan/v1
name: hostile
seed: 1
workload:
  model: resnet50
  dataset:
    samples: 1281167
    sample_size: "110 KiB"
    decode_time: "6 ms"
  epochs: 1
training:
  batch_size: 32
hardware:
  gpu: rtx3090
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// A fresh folder for one test, removed at the end.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("gpuplan-hostile-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(counter()++));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path file = path / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file.string();
  }
  /// Every entry of the folder other than `keep`.
  std::vector<std::string> others(const std::vector<std::string>& keep) const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(path)) {
      const std::string name = entry.path().filename().string();
      if (std::find(keep.begin(), keep.end(), name) == keep.end()) out.push_back(name);
    }
    return out;
  }
};

struct Timed {
  gpuplan::testing::CommandResult result;
  double wall_s;
};

Timed run_timed(const std::string& args) {
  const auto start = std::chrono::steady_clock::now();
  Timed t{run_gpuplan(args), 0.0};
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

/// `gpuplan run` on `bytes` as s.yaml: exit 2, stderr exactly `expected` with "@" replaced
/// by the file's path, no -o file and no --trace file left, and done within the hang guard.
void check_run_refused(const std::string& bytes, const std::string& expected) {
  const TempDir dir;
  const std::string file = dir.write("s.yaml", bytes);
  const Timed t = run_timed("run " + file + " --format csv -o " + (dir.path / "out.csv").string() + " --trace " +
                            (dir.path / "trace.json").string());
  std::string want = expected;
  for (std::size_t at = want.find('@'); at != std::string::npos; at = want.find('@', at + file.size())) {
    want.replace(at, 1, file);
  }
  CHECK(t.result.exit_code == 2);
  CHECK(t.result.err == want);
  CHECK(t.result.out.empty());
  CHECK(dir.others({"s.yaml"}).empty());
  CHECK(t.wall_s < 10.0);
}

std::string one_error(const std::string& message) { return "gpuplan: 1 error:\n  " + message + "\n"; }

}  // namespace

TEST_SUITE("cli.hostile_input") {
  TEST_CASE("aliases: a self-reference and a billion-laughs bomb are errors at the alias") {
    check_run_refused(kBase + "strategies: &s\n  amp: *s\n",
                      one_error("alias '*s' refers to the anchor '&s' that contains it at @:19:8; an anchor "
                                "cannot contain itself: write the value out instead"));
    std::string bomb = kBase + "x0: &x0 [a, a, a, a, a, a, a, a, a, a]\n";
    for (int level = 1; level < 9; ++level) {
      std::string list;
      for (int i = 0; i < 10; ++i) list += (i == 0 ? "*x" : ", *x") + std::to_string(level - 1);
      bomb += "x" + std::to_string(level) + ": &x" + std::to_string(level) + " [" + list + "]\n";
    }
    // Anchor k expands to 1 + 10 x (size of k-1) values: 11, 111, 1,111, 11,111, 111,111.
    // The base holds 35 values, lines 18-22 another 5 keys + 11 + 111 + 1,111 + 11,111 +
    // 111,111 = 123,460, line 23's key and sequence 2, and its first alias of *x4 (column 10)
    // adds 111,111: 234,608, past 200,000.
    check_run_refused(bomb, one_error("more than 200,000 values in one file (alias '*x4' expanded) at @:23:10; "
                                      "split the file, or write fewer strategies, sweep values or aliases"));
  }

  TEST_CASE("deep nesting, a second document, a million keys") {
    check_run_refused(kBase + "x: " + std::string(100'000, '[') + std::string(100'000, ']') + "\n",
                      one_error("nesting deeper than 64 levels at @:18:67; gpuplan's files nest a few levels: "
                                "check for unclosed brackets or aliases of aliases"));
    check_run_refused(kBase + "---\nformat: gpuplan/v1\n",
                      one_error("a second YAML document at @:18:1; gpuplan reads one document per file: remove "
                                "the '---' line and what follows, or move it to a file of its own"));
    std::string keys = kBase;
    for (int i = 0; i < 1'000'000; ++i) keys += "k" + std::to_string(i) + ": 1\n";
    // The base holds 35 values (the mapping, 13 keys with their values, 4 sections as key and
    // mapping) and each key line 2: value 200,001 is the value of the 99,983rd key line,
    // line 17 + 99,983 = 100,000, column 9 ("k99982: 1").
    check_run_refused(keys, one_error("more than 200,000 values in one file at @:100000:9; split the file, or "
                                      "write fewer strategies, sweep values or aliases"));
  }

  TEST_CASE("encodings: BOMs of UTF-16 and UTF-32, NUL bytes, CR-only line endings, bytes that are not UTF-8") {
    const std::string utf16 = one_error("the file is UTF-16 (it starts with a byte-order mark) at @:1:1; save it as UTF-8");
    check_run_refused(std::string("\xFF\xFE", 2) + kBase, utf16);
    check_run_refused(std::string("\xFE\xFF", 2) + kBase, utf16);
    check_run_refused(std::string("\xFF\xFE\0\0", 4) + kBase,
                      one_error("the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8"));
    check_run_refused(std::string("\0\0\xFE\xFF", 4) + kBase,
                      one_error("the file is UTF-32 (it starts with a byte-order mark) at @:1:1; save it as UTF-8"));
    check_run_refused(replaced(kBase, "seed: 1", std::string("seed: \0", 7)),
                      one_error("NUL byte at @:3:7; the file is binary, or UTF-16/32 without a byte-order mark: "
                                "save it as UTF-8 text"));
    std::string cr_only = kBase;
    std::replace(cr_only.begin(), cr_only.end(), '\n', '\r');
    check_run_refused(cr_only, one_error("carriage return without a line feed at @:1:19; the file has CR-only "
                                         "(old Mac) line endings: save it with LF or CRLF line endings"));
    check_run_refused(replaced(kBase, "name: hostile", "name: \"ho\xFFstile\""),
                      one_error("bytes that are not UTF-8 at @:2:10; save the file as UTF-8 text"));
  }

  TEST_CASE("a UTF-8 byte-order mark and CRLF line endings are read") {
    std::string crlf;
    for (const char c : kBase) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    const TempDir dir;
    const auto r = run_gpuplan("run " + dir.write("s.yaml", "\xEF\xBB\xBF" + crlf) + " --print-resolved");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }

  TEST_CASE("absurd counts and quantities, NaN and infinities written every way: errors at the key") {
    check_run_refused(replaced(kBase, "\"110 KiB\"", "\"1e308 KiB\""),
                      one_error("out-of-range size '1e308 KiB': its magnitude exceeds 1e30 in SI base units at "
                                "@:8:18 (workload.dataset.sample_size); check the exponent"));
    check_run_refused(replaced(kBase, "\"6 ms\"", "\"1e999 ms\""),
                      one_error("out-of-range duration '1e999 ms': its magnitude exceeds 1e30 in SI base units at "
                                "@:9:18 (workload.dataset.decode_time); check the exponent"));
    for (const char* count : {"9223372036854775808", "1e30", ".nan", ".inf", "-.inf"}) {
      check_run_refused(replaced(kBase, "batch_size: 32", std::string("batch_size: ") + count),
                        one_error(std::string("expected a whole number from 1 to 1000000, found '") + count +
                                  "' at @:12:15 (training.batch_size)"));
    }
    check_run_refused(replaced(kBase, "samples: 1281167", "samples: 1e30"),
                      one_error("out-of-range value 1e30 at @:7:14 (workload.dataset.samples); expected a number "
                                "from 1 to 1e+15"));
    for (const char* number : {".nan", "NaN", ".NAN", ".inf", ".Inf", "-.INF", "+.inf", "inf", "Infinity", "-infinity"}) {
      check_run_refused(replaced(kBase, "epochs: 1", std::string("epochs: ") + number),
                        one_error(std::string("expected a number above 0, at most 1e+06, found '") + number +
                                  "' at @:10:11 (workload.epochs)"));
    }
    for (const char* size : {"nan KiB", "inf KiB", "-inf KiB", "NaN B", "infinity GB"}) {
      check_run_refused(replaced(kBase, "\"110 KiB\"", std::string("\"") + size + "\""),
                        one_error(std::string("expected a finite size, found '") + size +
                                  "' at @:8:18 (workload.dataset.sample_size)"));
    }
  }

  TEST_CASE("a dataset past 1 EB, or a job past simulated time's 292 years: an input error at the key") {
    // 1,281,167 x 1e15 TiB (1e15 x 2^40 B = 1.1e27 B) = 1.41e33 B.
    check_run_refused(replaced(kBase, "\"110 KiB\"", "\"1e15 TiB\""),
                      one_error("the dataset of 1.28e+06 samples x 1.1e+27 B = 1.41e+33 B exceeds 1e+18 B (1 EB) at "
                                "@:8:18 (workload.dataset.sample_size); check the unit of sample_size (bytes per "
                                "sample, e.g. \"110 KiB\") and samples"));
    // 10^12 samples of 110 KiB (1.13e17 B, within 1 EB) for 10^5 epochs: 10^12 / 32 =
    // 3.125e10 steps per epoch, 3.125e15 steps, past 2^63 ns = 9.22e9 s at any step time
    // above 3 us; at the simulated 0.257 s per step, 10^5 x 3.125e10 x 0.257 = 8.04e14 s.
    check_run_refused(replaced(replaced(kBase, "samples: 1281167", "samples: 1e12"), "epochs: 1", "epochs: 100000"),
                      one_error("baseline: time to train 8.04e+14 s (1e+05 epochs x 3.12e+10 steps per epoch x 0.257 s per step, "
                                "with evaluation and checkpoints) exceeds 9.22e+09 s (2^63 ns, about 292 years) at "
                                "@:10:11 (workload.epochs); lower workload.epochs, or check what makes each step slow "
                                "(workload.dataset.sample_size, the storage, the batch)"));
  }

  TEST_CASE("a row out of memory on a token budget past 292 years: the advice's re-run reports it at the key") {
    // The baseline does not fit, so its time was never computed; the memory remedies that fit
    // ran past simulated time and stopped the run as an unlocated error.
    const TempDir dir;
    const std::string file = dir.write("s.yaml", "format: gpuplan/v1\nname: t\nworkload:\n  model: llama3-8b\n"
                                                 "  sequence_length: 4096\n  tokens: 1000000000000000000\n"
                                                 "  dataset: {synthetic: true}\ntraining:\n  batch_size: 2\n"
                                                 "  gradient_accumulation: 4\n  precision: bf16_amp\n"
                                                 "  fine_tuning: {method: lora, rank: 16}\n"
                                                 "cloud: {instance: lambda/gpu_1x_h100_sxm5}\n");
    const auto r = run_gpuplan("run " + file);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("gpuplan: 1 error:\n  baseline: time to train ", 0) == 0);
    CHECK(r.err.find("exceeds 9.22e+09 s (2^63 ns, about 292 years) at " + file +
                     ":6:11 (workload.tokens); lower workload.tokens") != std::string::npos);
  }

  TEST_CASE("diagnose: a UTF-16 log, a NUL byte, /dev/zero and a FIFO as a log: exit 2, the message, no -o file") {
    // The readers of every other file kind: tests/config/hostile_inputs_test.cpp.
    const TempDir dir;
    const std::string fifo = (dir.path / "fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string dmon = "# gpu    pwr     sm\n# Idx      W      %\n    0     43     10\n";
    const std::string utf16 = dir.write("u.log", std::string("\xFF\xFE", 2) + dmon);
    const std::string nul = dir.write("n.log", dmon + std::string("    0  \0  44\n", 13));
    const std::string not_regular =
        "': it is not a regular file (a FIFO, socket or device); save the input to a file and give its path";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {utf16, "the file is UTF-16 (it starts with a byte-order mark) at " + utf16 + ":1:1; save it as UTF-8"},
        {nul, "NUL byte at " + nul + ":4:8; the file is binary, or UTF-16/32 without a byte-order mark: save it as "
              "UTF-8 text"},
        {"/dev/zero", "cannot read file '/dev/zero" + not_regular},
        {fifo, "cannot read file '" + fifo + not_regular},
    };
    for (const auto& [log, message] : cases) {
      const Timed t = run_timed("diagnose " + log + " -o " + (dir.path / "out.txt").string());
      CHECK(t.result.exit_code == 2);
      CHECK(t.result.err == one_error(message));
      CHECK(t.result.out.empty());
      CHECK(dir.others({"fifo", "u.log", "n.log"}).empty());
      CHECK(t.wall_s < 10.0);
    }
  }

  TEST_CASE("a global batch beyond 2^31 is reported exactly, not wrapped") {
    // 1,000,000 x 1,000,000 x 1 GPU = 10^12 samples, a dataset of 10^12 (110 KiB each:
    // 1.1e17 B, within 1 EB).
    const TempDir dir;
    const std::string file =
        dir.write("s.yaml", replaced(replaced(replaced(kBase, "samples: 1281167", "samples: 1e12"), "batch_size: 32",
                                              "batch_size: 1000000\n  gradient_accumulation: 1000000"),
                                     // the loaders hold two decoded batches: 2 x 10^6 x 3x224x224 x 4 B = 1.2 TB
                                     "\"64 GiB\"", "\"2 TiB\""));
    const auto r = run_gpuplan("run " + file + " --format json");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("\"global_batch_samples\": 1000000000000") != std::string::npos);
  }

  TEST_CASE("--seed outside 0 to 2^63 - 1 is refused, not wrapped") {
    const TempDir dir;
    const std::string file = dir.write("s.yaml", kBase);
    for (const char* seed : {"-1", "18446744073709551615", "1e3", "x"}) {
      const auto r = run_gpuplan("run " + file + " --seed " + seed);
      CHECK(r.exit_code == 2);
      CHECK(r.err == std::string("gpuplan: --seed expects a whole number from 0 to 9223372036854775807, found '") +
                         seed + "' (see gpuplan --help)\n");
    }
  }

  TEST_CASE("inputs that are not regular files: a directory, /dev/zero and a FIFO are refused at once") {
    const TempDir dir;
    const std::string fifo = (dir.path / "fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string not_regular =
        "': it is not a regular file (a FIFO, socket or device); save the input to a file and give its path";
    for (const std::string& input : {std::string("/dev/zero"), fifo}) {
      const Timed t = run_timed("run " + input);
      CHECK(t.result.exit_code == 2);
      CHECK(t.result.err == one_error("cannot read file '" + input + not_regular));
      CHECK(t.wall_s < 10.0);
    }
    const auto r = run_gpuplan("run " + dir.path.string());
    CHECK(r.err == one_error("cannot read file '" + dir.path.string() + "': it is a directory; give the path of a "
                             "file in it"));
  }

  TEST_CASE("-o never replaces what is not a regular file, and a bad -o leaves no trace file behind") {
    const TempDir dir;
    const std::string scenario = dir.write("s.yaml", kBase);
    const std::string fifo = (dir.path / "fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string link = (dir.path / "link").string();
    fs::create_symlink(dir.path / "elsewhere", link);
    fs::create_directories(dir.path / "sub");
    const std::string sub = (dir.path / "sub").string();
    const std::string missing = (dir.path / "missing" / "o.csv").string();
    const std::string not_regular =
        "it is not a regular file (a FIFO, socket or device), which gpuplan does not replace; give the path of "
        "a regular file";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {missing, "its folder does not exist; create it first"},
        {sub, "it is a directory; give the path of a file in it"},
        {fifo, not_regular},
        {"/dev/null", not_regular},
        {link, "it is a symbolic link, which gpuplan does not replace; give the path of a regular file"},
        // /proc exists and takes no new file (open answers ENOENT, even to root).
        {"/proc/o.csv", "its folder /proc is not writable; write to a folder you may write"},
    };
    for (const auto& [target, reason] : cases) {
      const auto r = run_gpuplan("run " + scenario + " --trace " + (dir.path / "t.json").string() + " -o " + target);
      CHECK(r.exit_code == 2);
      CHECK(r.err == "gpuplan: cannot write '" + target + "': " + reason + " (see gpuplan --help)\n");
      CHECK(dir.others({"s.yaml", "fifo", "link", "sub"}).empty());
    }
    CHECK(fs::is_symlink(link));
    CHECK(fs::is_fifo(fifo));
    if (::geteuid() != 0) {  // root may write anywhere
      fs::permissions(sub, fs::perms::owner_read | fs::perms::owner_exec);
      const auto r = run_gpuplan("run " + scenario + " -o " + sub + "/o.csv");
      CHECK(r.err == "gpuplan: cannot write '" + sub + "/o.csv': its folder " + sub +
                         " is not writable (Permission denied); write to a folder you may write (see gpuplan "
                         "--help)\n");
      fs::permissions(sub, fs::perms::owner_all);
    }
  }

  TEST_CASE("calibrate: a probe's date cannot steer the profile's path; bad numbers are input errors") {
    const TempDir dir;
    const std::string probe = gpuplan::testing::slurp(std::string(GPUPLAN_SOURCE_DIR) +
                                                      "/tests/fixtures/calibration/probe-a100-2gpu.json");
    const std::string catalogs = (dir.path / "catalogs").string();
    fs::copy(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", catalogs, fs::copy_options::recursive);
    const std::string traversal =
        dir.write("t.json", replaced(probe, "\"date\": \"2026-01-01T00:00:00Z\"", "\"date\": \"/../../../x\""));
    auto r = run_gpuplan("calibrate --from " + traversal + " --catalogs " + catalogs);
    CHECK(r.exit_code == 2);
    CHECK(r.err == one_error("expected a date such as 2026-11-29 or 2026-11-29T10:00:00Z, found '/../../../x' at " +
                             traversal + " (provenance.date)"));
    CHECK(dir.others({"catalogs", "t.json"}).empty());
    // 1e400 where the first H2D time was (line 251 of the fixture).
    const std::string huge = dir.write("h.json", replaced(probe, "8.199852408163264e-06", "1e400"));
    r = run_gpuplan("calibrate --from " + huge + " --catalogs " + catalogs);
    CHECK(r.exit_code == 2);
    CHECK(r.err == one_error("number '1e400' outside the range of a double (about 1.8e308) at " + huge +
                             ":251:19; produce it again with cuda_probe -o FILE"));
  }

  TEST_CASE("file names from data keep only letters, digits, '-', '_' and '.', and never start with a dot") {
    using gpuplan::cli::sanitized_file_name;
    CHECK(sanitized_file_name("a100-80gb-2026-01-01.json") == "a100-80gb-2026-01-01.json");
    CHECK(sanitized_file_name("a100-/../../../x.json") == "a100-_.._.._.._x.json");
    CHECK(sanitized_file_name("..") == "__");
    CHECK(sanitized_file_name(".hidden") == "_hidden");
    CHECK(sanitized_file_name("NVIDIA A100 \xC3\xA9") == "NVIDIA_A100___");
    CHECK(sanitized_file_name("") == "_");
  }
}
