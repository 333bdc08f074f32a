// cli/output_file.h: an output is written in full or not at all, also when the process is
// stopped by SIGINT (Ctrl-C) or SIGTERM: the handler removes the temporary file, then the
// signal ends the process as it would have.
#include "cli/output_file.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "run_command.h"

namespace {

namespace fs = std::filesystem;
using gpuplan::testing::TempDir;

bool exists(const std::string& path) { return fs::exists(fs::symlink_status(path)); }

/// Every entry of `dir`, by name.
std::vector<std::string> entries(const TempDir& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Waits up to `limit` for `child` to end; kills it (SIGKILL) past that. Its wait status.
int wait_for(pid_t child, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      FAIL("the child did not end within the limit");
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status;
}

/// A scenario that keeps `gpuplan run` busy for a while: many strategies of a ResNet-50 run.
std::string slow_scenario(int strategies) {
  std::string text = R"(format: gpuplan/v1
name: slow
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
strategies:
)";
  for (int i = 0; i < strategies; ++i) {
    text += "  s" + std::to_string(i) + ": {training.batch_size: " + std::to_string(8 + i) + "}\n";
  }
  return text;
}

}  // namespace

TEST_SUITE("cli.output_file") {
  TEST_CASE("the interrupt cleanup removes the temporary files of open outputs, and only theirs") {
    const TempDir dir("cleanup");
    const std::string pid = std::to_string(::getpid());
    const std::string a_tmp = dir / ("a.csv.tmp." + pid);
    const std::string b_tmp = dir / ("b.csv.tmp." + pid);
    const std::string c_tmp = dir / ("c.csv.tmp." + pid);
    {
      gpuplan::cli::OutputFile a(dir / "a.csv");
      gpuplan::cli::OutputFile b(dir / "b.csv");
      b.write("partial");
      CHECK(exists(a_tmp));
      CHECK(exists(b_tmp));
      gpuplan::cli::OutputFile c(dir / "c.csv");
      c.write("done");
      c.commit();
      // A file at c's former temporary path is not c's any more: the cleanup leaves it.
      std::ofstream(c_tmp) << "another program's";
      gpuplan::cli::remove_registered_temporaries();
      CHECK_FALSE(exists(a_tmp));
      CHECK_FALSE(exists(b_tmp));
      CHECK(exists(c_tmp));
      CHECK(gpuplan::testing::slurp(dir / "c.csv") == "done");
    }  // the destructors find nothing left to remove
    CHECK(entries(dir) == std::vector<std::string>{"c.csv", "c.csv.tmp." + pid});
    // Destroyed outputs are no longer registered either.
    std::ofstream(a_tmp) << "another program's";
    gpuplan::cli::remove_registered_temporaries();
    CHECK(exists(a_tmp));
    // More outputs at once than the handler has slots for: those beyond work, uncovered.
    std::vector<std::unique_ptr<gpuplan::cli::OutputFile>> many;
    for (int i = 0; i < gpuplan::cli::kMaxInterruptibleOutputs + 2; ++i) {
      many.push_back(std::make_unique<gpuplan::cli::OutputFile>(dir / ("m" + std::to_string(i) + ".csv")));
    }
    gpuplan::cli::remove_registered_temporaries();
    CHECK(exists(dir / ("m" + std::to_string(gpuplan::cli::kMaxInterruptibleOutputs) + ".csv.tmp." + pid)));
    CHECK_FALSE(exists(dir / ("m0.csv.tmp." + pid)));
    many.clear();
  }

  TEST_CASE("a process with an open output that gets SIGTERM or SIGINT ends by that signal, its temporary file removed") {
    // In a child, so that the signal's default action ends the child, not the tests.
    for (const int signal_number : {SIGTERM, SIGINT}) {
      const TempDir dir("signal-" + std::to_string(signal_number));
      const std::string out = dir / "out.csv";
      const pid_t child = ::fork();
      REQUIRE(child >= 0);
      if (child == 0) {
        ::signal(signal_number, SIG_DFL);  // as in a shell; an ignored signal stays ignored
        try {
          gpuplan::cli::OutputFile file(out);
          file.write("partial");
          ::raise(signal_number);
        } catch (...) {
          ::_exit(4);
        }
        ::_exit(3);  // not reached: the handler raises the signal again under its default action
      }
      const int status = wait_for(child, std::chrono::seconds(30));
      CHECK(WIFSIGNALED(status));
      CHECK(WTERMSIG(status) == signal_number);
      CHECK(entries(dir).empty());
    }
  }

  TEST_CASE("gpuplan run -o stopped by SIGTERM or SIGINT leaves no temporary file behind") {
    const TempDir dir("interrupted-run");
    const std::string scenario = dir / "s.yaml";
    std::ofstream(scenario) << slow_scenario(300);
    for (const int signal_number : {SIGTERM, SIGINT}) {
      const std::string out = dir / "out.csv";
      const std::string binary = GPUPLAN_BINARY;
      const pid_t child = ::fork();
      REQUIRE(child >= 0);
      if (child == 0) {
        // Only async-signal-safe calls until exec. SIGINT of a background job of a
        // non-interactive shell is ignored, and exec keeps that: set the default, as a
        // terminal's job has.
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        ::execl(binary.c_str(), "gpuplan", "run", scenario.c_str(), "-o", out.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
      }
      // gpuplan creates the temporary file once the scenario is loaded, before it simulates.
      const std::string temporary = out + ".tmp." + std::to_string(child);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      bool ended = false;
      int status = 0;
      while (!exists(temporary) && std::chrono::steady_clock::now() < until) {
        if (::waitpid(child, &status, WNOHANG) == child) {
          ended = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      REQUIRE_MESSAGE(!ended, "gpuplan ended before it created its temporary file");
      REQUIRE_MESSAGE(exists(temporary), "no temporary file within 60 s");
      ::kill(child, signal_number);
      status = wait_for(child, std::chrono::seconds(60));
      if (WIFSIGNALED(status)) {
        CHECK(WTERMSIG(status) == signal_number);
        CHECK(entries(dir) == std::vector<std::string>{"s.yaml"});
      } else {
        // It finished before the signal came (a much faster machine): the output is whole.
        MESSAGE("gpuplan finished before the signal; only the absence of a temporary file is checked");
        CHECK(WIFEXITED(status));
        CHECK(entries(dir) == std::vector<std::string>{"out.csv", "s.yaml"});
        fs::remove(out);
      }
    }
  }
}

TEST_SUITE("cli.stdout") {
  TEST_CASE("a failed write to stdout exits 2 with the reason on stderr, whatever the subcommand") {
    const std::string fix =
        "; the output is lost: run it again with standard output open, or write it to a file with -o FILE\n";
    // stdout closed (`>&-`): the C library's EBADF.
    const auto closed = gpuplan::testing::run_gpuplan("list gpus >&-");
    CHECK(closed.exit_code == 2);
    CHECK(closed.err == "gpuplan: cannot write to standard output: Bad file descriptor" + fix);
    const auto version = gpuplan::testing::run_gpuplan("--version >&-");
    CHECK(version.exit_code == 2);
    CHECK(version.err == "gpuplan: cannot write to standard output: Bad file descriptor" + fix);
    // A full disk (/dev/full) on run, whose table is written by its own code path.
    const auto full = gpuplan::testing::run_gpuplan(std::string("run ") + GPUPLAN_SOURCE_DIR +
                                                    "/scenarios/resnet50-imagenet-rtx3090.yaml >/dev/full");
    CHECK(full.exit_code == 2);
    CHECK(full.err == "gpuplan: cannot write to standard output: No space left on device" + fix);
    // A failing command keeps its own exit code and message; nothing was written to stdout.
    const auto failed = gpuplan::testing::run_gpuplan("run /nonexistent.yaml >&-");
    CHECK(failed.exit_code == 2);
    CHECK(failed.err.find("cannot write to standard output") == std::string::npos);
    // With -o FILE, stdout is not written: a closed stdout is no error.
    const TempDir dir("stdout-closed");
    const auto to_file = gpuplan::testing::run_gpuplan(std::string("run ") + GPUPLAN_SOURCE_DIR +
                                                       "/scenarios/resnet50-imagenet-rtx3090.yaml -o " + (dir / "o.csv") +
                                                       " >&-");
    CHECK(to_file.exit_code == 0);
    CHECK(to_file.err == "");
    CHECK(exists(dir / "o.csv"));
  }
}
