// The monitoring-log readers of `gpuplan diagnose`: every layout in the forms the tools print
// (nvidia-smi(1), DCGM, sysstat, procps, torch.profiler), a real profiler table from
// ../shared/data/logs/, and the errors at file:line:column.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/monitoring_log.h"
#include "core/units.h"

namespace gpuplan::config {
namespace {

models::MonitorTrace parse(const std::string& content, const std::string& path = "gpu.log",
                           const MonitoringLogOptions& options = {}) {
  return parse_monitoring_logs({{path, content}}, options);
}

std::string error_of(const std::string& content, const MonitoringLogOptions& options = {}) {
  try {
    parse(content, "gpu.log", options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw
// --format=csv -lms 500, two GPUs.
const char* kQueryCsv =
    "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W]\n"
    "2024/01/15 10:23:45.000, 0, NVIDIA A100-SXM4-80GB, 98 %, 40536 MiB, 81920 MiB, 312.45 W\n"
    "2024/01/15 10:23:45.001, 1, NVIDIA A100-SXM4-80GB, 0 %, 40000 MiB, 81920 MiB, [N/A]\n"
    "2024/01/15 10:23:45.500, 0, NVIDIA A100-SXM4-80GB, 50 %, 40536 MiB, 81920 MiB, 200.00 W\n"
    "2024/01/15 10:23:45.501, 1, NVIDIA A100-SXM4-80GB, 10 %, 40000 MiB, 81920 MiB, 70.00 W\n";

}  // namespace

TEST_SUITE("config.monitoring_log") {
  TEST_CASE("nvidia-smi --query-gpu CSV with units in cells: per GPU, SI values, [N/A] not measured") {
    const auto t = parse(kQueryCsv);
    REQUIRE(t.gpus.size() == 2);
    CHECK(t.gpus[0].format == "nvidia_smi_query");
    CHECK(t.gpus[0].index == 0);
    CHECK(t.gpus[0].name == "NVIDIA A100-SXM4-80GB");
    REQUIRE(t.gpus[0].readings.size() == 2);
    const auto& r = t.gpus[0].readings[0];
    CHECK(r.utilization == doctest::Approx(0.98));
    CHECK(r.memory_used_bytes == 40536.0 * 1024 * 1024);
    CHECK(r.memory_total_bytes == 81920.0 * 1024 * 1024);
    CHECK(r.power_w == doctest::Approx(312.45));
    // 2024-01-15 is day 19737 since 1970-01-01 (54 years with 13 leap days: 54 x 365 + 13 = 19723,
    // plus 14 days of January); 10:23:45 = 37425 s.
    CHECK(r.time_s == doctest::Approx(19737.0 * 86400.0 + 37425.0));
    CHECK(std::isnan(t.gpus[1].readings[0].power_w));
    CHECK(t.gpus[1].readings[1].power_w == doctest::Approx(70.0));
    // -lms 500: successive rows of one GPU 0.5 s apart.
    CHECK(t.gpus[0].interval_s == doctest::Approx(0.5));
    CHECK(t.notes.empty());
  }

  TEST_CASE("noheader,nounits needs --fields; with them the bare cells read the same") {
    const std::string body =
        "2024/01/15 10:23:45.000, 0, 98, 40536, 312.45\n"
        "2024/01/15 10:23:46.000, 0, 97, 40536, 310.00\n";
    CHECK(error_of(body) ==
          "a headerless nvidia-smi CSV (--format=csv,noheader) does not say its fields at gpu.log:1:1 (header); pass "
          "the --query-gpu list with --fields (e.g. --fields timestamp,index,utilization.gpu,memory.used)");
    MonitoringLogOptions o;
    o.query_fields = {"timestamp", "index", "utilization.gpu", "memory.used", "power.draw"};
    const auto t = parse(body, "gpu.log", o);
    REQUIRE(t.gpus.size() == 1);
    CHECK(t.gpus[0].readings[1].utilization == doctest::Approx(0.97));
    CHECK(t.gpus[0].readings[1].memory_used_bytes == 40536.0 * 1024 * 1024);
    CHECK(t.gpus[0].interval_s == doctest::Approx(1.0));
  }

  TEST_CASE("a header repeated by appended runs is skipped; a cut-short last line is skipped with a note") {
    const std::string header = "timestamp, utilization.gpu [%], memory.used [MiB]\n";
    const std::string log = header + "2024/01/15 10:23:45.000, 98 %, 100 MiB\n" + header +
                            "2024/01/15 10:23:46.000, 90 %, 100 MiB\n2024/01/15 10:23:47.000, 9";
    const auto t = parse(log);
    REQUIRE(t.gpus.size() == 1);
    CHECK(t.gpus[0].readings.size() == 2);
    REQUIRE(t.notes.size() == 1);
    CHECK(t.notes[0] == "gpu.log:5: the last line is cut short and was skipped");
  }

  TEST_CASE("without an index column, the n-th row of one timestamp is the n-th GPU") {
    const auto t = parse(
        "timestamp, utilization.gpu [%]\n2024/01/15 10:00:00.000, 10 %\n2024/01/15 10:00:00.000, 20 %\n"
        "2024/01/15 10:00:01.000, 30 %\n2024/01/15 10:00:01.000, 40 %\n");
    REQUIRE(t.gpus.size() == 2);
    CHECK(t.gpus[1].readings[1].utilization == doctest::Approx(0.40));
  }

  TEST_CASE("query CSV errors name file:line:column and the field") {
    const std::string header = "timestamp, utilization.gpu [%], memory.used [MiB]\n";
    CHECK(error_of(header + "2024/01/15 10:23:45.000, 98 %, 100 GB\n2024/01/15 10:23:46.000, 98 %, 100 MiB\n") ==
          "'100 GB' has unit 'GB' at gpu.log:2:32 (memory.used); expected MiB");
    CHECK(error_of(header + "2024/01/15 10:23:45.000, lots, 100 MiB\n2024/01/15 10:23:46.000, 98 %, 100 MiB\n") ==
          "'lots' is not a number at gpu.log:2:26 (utilization.gpu); expected a number in %, or [N/A]");
    CHECK(error_of(header + "15.01.2024 10:23:45, 98 %, 100 MiB\n2024/01/15 10:23:46.000, 98 %, 100 MiB\n") ==
          "'15.01.2024 10:23:45' is not a timestamp at gpu.log:2:1 (timestamp); expected YYYY/MM/DD HH:MM:SS.mmm as "
          "nvidia-smi prints it");
    CHECK(error_of(header + "2024/01/15 10:23:45.000, 98 %\n2024/01/15 10:23:46.000, 98 %, 100 MiB\n") ==
          "the row has 2 cells where the header has 3 at gpu.log:2:1 (row); every row of --query-gpu output has one "
          "cell per queried field");
    CHECK(error_of(header + "2024/01/15 10:23:45.000, 130 %, 100 MiB\n2024/01/15 10:23:46.000, 98 %, 100 MiB\n") ==
          "'130 %' is above 100 % at gpu.log:2:26 (utilization.gpu); expected a share from 0 to 100 %");
    CHECK(error_of(header + "2024/01/15 10:23:45.000, 98 %, -1 MiB\n2024/01/15 10:23:46.000, 98 %, 100 MiB\n") ==
          "'-1 MiB' is negative at gpu.log:2:32 (memory.used); expected a value of at least 0");
    // On the last line too: a complete row is no cut-short line, its impossible readings are errors.
    CHECK(error_of(header + "2024/01/15 10:23:45.000, 98 %, 100 MiB\n2024/01/15 10:23:46.000, 250 %, 100 MiB\n") ==
          "'250 %' is above 100 % at gpu.log:3:26 (utilization.gpu); expected a share from 0 to 100 %");
    CHECK(error_of(header + "2024/01/15 10:23:45.000, 98 %, 100 MiB\n2024/01/15 10:23:46.000, -5 %, 100 MiB") ==
          "'-5 %' is negative at gpu.log:3:26 (utilization.gpu); expected a value of at least 0");
    CHECK(error_of("timestamp, utilization.gpu [%], temprature.gpu\n") ==
          "unknown nvidia-smi --query-gpu field 'temprature.gpu' at gpu.log:1:33 (header); the fields gpuplan reads "
          "are timestamp, index, name, pci.bus_id, uuid, utilization.gpu, utilization.memory, memory.used, "
          "memory.total, power.draw, power.limit, clocks.sm");
  }

  TEST_CASE("nvidia-smi dmon -s pucvmet -o DT: times, power, SM and memory %, framebuffer MiB, PCIe MB/s") {
    const auto t = parse(
        "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk  pviol  tviol     fb   bar1  sbecc  dbecc    pci  rxpci  txpci\n"
        "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz      %   bool     MB     MB   errs   errs   errs   MB/s   MB/s\n"
        " 20240115   10:23:45      0    250     60      -     95     40      0      0   1593   1410      0      0  40536      5      0      0      0   1200     80\n"
        " 20240115   10:23:45      1     70     50      -      0      1      0      0   1593    210      0      0  40000      5      0      0      0      1      1\n"
        " 20240115   10:23:47      0    240     60      -     90     40      0      0   1593   1410      0      0  40536      5      0      0      0   1100     70\n");
    REQUIRE(t.gpus.size() == 2);
    CHECK(t.gpus[0].format == "nvidia_smi_dmon");
    const auto& r = t.gpus[0].readings[0];
    CHECK(r.power_w == 250.0);
    CHECK(r.utilization == doctest::Approx(0.95));
    CHECK(r.memory_utilization == doctest::Approx(0.40));
    CHECK(r.memory_used_bytes == 40536.0 * 1024 * 1024);
    CHECK(r.sm_clock_hz == doctest::Approx(1410e6));
    CHECK(r.pcie_rx_bytes_per_s == doctest::Approx(1200e6));
    CHECK(r.pcie_tx_bytes_per_s == doctest::Approx(80e6));
    CHECK(t.gpus[0].interval_s == doctest::Approx(2.0));
  }

  TEST_CASE("nvidia-smi dmon without times: 1 s, or --interval; a row of the wrong width is an error") {
    const std::string log =
        "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
        "# Idx      W      C      C      %      %      %      %    MHz    MHz\n"
        "    0     43     48      -     10      2      0      0   2505   1075\n"
        "    0     44     48      -     12      2      0      0   2505   1075\n";
    const auto t = parse(log);
    CHECK(t.gpus[0].interval_s == 1.0);
    REQUIRE(t.notes.size() == 1);
    CHECK(t.notes[0] == "gpu.log: no times in the log; the tool's default interval of 1 s assumed (--interval S to say otherwise)");
    MonitoringLogOptions o;
    o.interval_s = 0.2;
    CHECK(parse(log, "gpu.log", o).gpus[0].interval_s == 0.2);
    CHECK(error_of(log + "    0     44     48\n    0     44     48      -     12      2      0      0   2505   1075\n") ==
          "the row has 3 cells where the header has 10 at gpu.log:5:1 (row); every dmon row has one cell per column of its header");
  }

  TEST_CASE("dcgmi dmon: GPU rows, ratios and bytes/s as DCGM gives them, N/A not measured") {
    const auto t = parse(
        "#Entity   GPUTL  POWER  FBUSD  SMACT  TENSO  DRAMA  PCITX  PCIRX  NVLTX  NVLRX\n"
        "ID\n"
        "GPU 0     97     305.2  40536  0.412  0.100  0.650  1000   2000000  N/A    N/A\n"
        "GPU 1     96     300.0  40536  0.400  0.100  0.640  1000   2000000  N/A    N/A\n");
    REQUIRE(t.gpus.size() == 2);
    CHECK(t.gpus[0].format == "dcgmi_dmon");
    const auto& r = t.gpus[1].readings[0];
    CHECK(r.utilization == doctest::Approx(0.96));
    CHECK(r.power_w == doctest::Approx(300.0));
    CHECK(r.sm_active == doctest::Approx(0.400));
    CHECK(r.dram_active == doctest::Approx(0.640));
    CHECK(r.pcie_rx_bytes_per_s == 2000000.0);
    CHECK(std::isnan(r.nvlink_tx_bytes_per_s));
    CHECK(error_of("#Entity   SMACT\nID\nGPU 0  1.5\nGPU 0  0.5\n") ==
          "'1.5' is above 1 at gpu.log:3:8 (SMACT); expected a ratio from 0 to 1");
    CHECK(error_of("#Entity   GPUTL  POWER\nID\nGPU 0  97  many\nGPU 0  97  300\n") ==
          "'many' is not a number at gpu.log:3:12 (POWER); expected a number, or [N/A]");
  }

  TEST_CASE("the nvidia-smi table, old and new layouts, two snapshots") {
    const std::string old_layout =
        "Mon Jan 15 10:23:45 2024       \n"
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
        "|                               |                      |               MIG M. |\n"
        "|===============================+======================+======================|\n"
        "|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                    0 |\n"
        "| N/A   34C    P0    61W / 400W |  40536MiB / 81920MiB |     38%      Default |\n"
        "|                               |                      |             Disabled |\n"
        "+-------------------------------+----------------------+----------------------+\n"
        "\n"
        "+-----------------------------------------------------------------------------+\n"
        "| Processes:                                                                  |\n"
        "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"
        "|    0   N/A  N/A     12345      C   python                          40530MiB |\n"
        "+-----------------------------------------------------------------------------+\n";
    const std::string new_layout =
        "Mon Jan 15 10:23:47 2024       \n"
        "+---------------------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
        "|-----------------------------------------+----------------------+----------------------+\n"
        "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
        "|=========================================+======================+======================|\n"
        "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |\n"
        "| N/A   35C    P0             300W / 400W |  40536MiB / 81920MiB |     99%      Default |\n"
        "+-----------------------------------------+----------------------+----------------------+\n";
    const auto t = parse(old_layout + new_layout);
    REQUIRE(t.gpus.size() == 1);
    CHECK(t.gpus[0].format == "nvidia_smi_table");
    CHECK(t.gpus[0].name == "NVIDIA A100-SXM...");
    REQUIRE(t.gpus[0].readings.size() == 2);
    CHECK(t.gpus[0].readings[0].utilization == doctest::Approx(0.38));
    CHECK(t.gpus[0].readings[0].power_w == 61.0);
    CHECK(t.gpus[0].readings[0].power_limit_w == 400.0);
    CHECK(t.gpus[0].readings[1].power_w == 300.0);
    CHECK(t.gpus[0].readings[1].memory_total_bytes == 81920.0 * 1024 * 1024);
    CHECK(t.gpus[0].interval_s == doctest::Approx(2.0));
    // A snapshot header whose year is no date (50 digits: once a float-to-int overflow, found
    // by fuzz_monitoring_log) is no timestamp: the snapshot reads, the interval is unknown.
    std::string bad_year = old_layout;
    bad_year.replace(bad_year.find("2024"), 4, std::string(48, '5') + "24");
    const auto u = parse(bad_year);
    REQUIRE(u.gpus.size() == 1);
    REQUIRE(u.gpus[0].readings.size() == 1);
    CHECK(u.gpus[0].readings[0].utilization == doctest::Approx(0.38));
    CHECK(std::isnan(u.gpus[0].readings[0].time_s));
    // A GPU index of 11 digits (once a std::stoi overflow) is an error at the index.
    std::string wide_index = old_layout;
    wide_index.replace(wide_index.find("|   0  NVIDIA"), 13, "|   12345678901  NVIDIA");
    CHECK(error_of(wide_index) ==
          "the GPU index 12345678901 is past 9999 at gpu.log:9:5 (GPU index); keep the table as nvidia-smi printed it");
  }

  TEST_CASE("the real torch.profiler table of a single-process loader (R03, ../shared/data/logs)") {
    const std::string path = std::string(GPUPLAN_SHARED_DIR) + "/data/logs/R03-v100-torch-profiler-dataloader.txt";
    const auto t = read_monitoring_logs({path}, {});
    REQUIRE(t.profiles.size() == 1);
    const auto& rows = t.profiles[0].rows;
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].name == "enumerate(DataLoader)#_SingleProcessDataLoaderIter._...");
    CHECK(rows[0].self_cpu_share == doctest::Approx(0.8864));
    CHECK(rows[0].self_cpu_s == doctest::Approx(78.632));
    CHECK(rows[0].cpu_total_share == doctest::Approx(0.8918));
    CHECK(rows[0].calls == 100.0);
    CHECK(rows[1].self_cpu_s == doctest::Approx(0.068203));
    CHECK(rows[2].self_cuda_s == doctest::Approx(0.0));
    CHECK(rows[2].calls == 6000.0);
  }

  TEST_CASE("mpstat (12-hour clock), vmstat, iostat -x: CPU busy and iowait, disk %util; first reports since boot skipped") {
    const auto mp = parse(
        "Linux 5.15.0 (host) \t01/15/2024 \t_x86_64_\t(16 CPU)\n\n"
        "10:23:45 AM  CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n"
        "10:23:46 AM  all   80.00    0.00   10.00    5.00    0.00    0.00    0.00    0.00    0.00    5.00\n"
        "10:23:46 AM    0   80.00    0.00   10.00    5.00    0.00    0.00    0.00    0.00    0.00    5.00\n"
        "Average:     all   80.00    0.00   10.00    5.00    0.00    0.00    0.00    0.00    0.00    5.00\n",
        "cpu.log");
    REQUIRE(mp.hosts.size() == 1);
    CHECK(mp.hosts[0].format == "mpstat");
    CHECK(mp.hosts[0].cpus == 16);
    REQUIRE(mp.hosts[0].cpu.size() == 1);
    CHECK(mp.hosts[0].cpu[0].busy == doctest::Approx(0.90));  // 100 - 5 idle - 5 iowait
    CHECK(mp.hosts[0].cpu[0].iowait == doctest::Approx(0.05));
    // A banner CPU count past 10^6 (18 digits once overflowed std::stoi: fuzz_monitoring_log).
    const std::string huge = "Linux 5.15.0 (host) \t01/15/2024 \t_x86_64_\t(844444444444444444 CPU)\n\n"
                       "10:23:45 AM  CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n"
                       "10:23:46 AM  all   80.00    0.00   10.00    5.00    0.00    0.00    0.00    0.00    0.00    5.00\n";
    CHECK(error_of(huge) ==
          "a CPU count of 844444444444444444 is past 1000000 at gpu.log:1:44 (banner); keep the banner as sysstat printed it");

    const auto vm = parse(
        "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n"
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
        " 1  0      0 123456  12345 234567    0    0     5    10  100  200  5  1 94  0  0\n"
        "12  0      0 123456  12345 234567    0    0     5    10  100  200 88 10  2  0  0\n",
        "vm.log");
    REQUIRE(vm.hosts[0].cpu.size() == 1);
    CHECK(vm.hosts[0].cpu[0].busy == doctest::Approx(0.98));
    CHECK(vm.hosts[0].cpu[0].run_queue == 12.0);

    const std::string report =
        "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
        "          10.00    0.00    5.00   {}    0.00   {}\n\n"
        "Device            r/s     rkB/s   w/s     wkB/s  %util\n"
        "nvme0n1       2500.00 {}     1.00      4.00  {}\n\n";
    auto fill = [&](const char* wait, const char* idle, const char* kb, const char* util) {
      std::string r = report;
      for (const char* v : {wait, idle, kb, util}) r.replace(r.find("{}"), 2, v);
      return r;
    };
    const auto io = parse("Linux 5.15.0 (host) \t01/15/2024 \t_x86_64_\t(8 CPU)\n\n" + fill("1.00", "84.00", "100.00", "5.00") +
                              fill("45.00", "40.00", "160000.00", "98.00"),
                          "io.log");
    REQUIRE(io.hosts[0].cpu.size() == 1);
    CHECK(io.hosts[0].cpu[0].iowait == doctest::Approx(0.45));
    REQUIRE(io.hosts[0].disks.size() == 1);
    CHECK(io.hosts[0].disks[0].device == "nvme0n1");
    CHECK(io.hosts[0].disks[0].utilization == doctest::Approx(0.98));
    CHECK(io.hosts[0].disks[0].read_bytes_per_s == doctest::Approx(160000.0 * 1024));
  }

  TEST_CASE("the last line: cut short (fewer cells than its header) is skipped with a note; any other bad last line is an error") {
    // Each log as the tool prints it, then a last line the logger was stopped in the middle
    // of, one complete but with a bad reading, and one wider than its header.
    struct Case {
      std::string log;        // header and one good row
      std::string cut;        // a prefix of a valid row
      std::string bad;        // a complete row with a value that is not a number
      std::string bad_error;  // the whole message for `bad`
      std::string wide;       // a row with one cell more than the header
      std::string wide_error;
    };
    const std::string dmon_header =
        "# gpu    pwr     sm\n"
        "# Idx      W      %\n"
        "    0     43     10\n";
    const std::string dcgmi_header = "#Entity   GPUTL  POWER\nID\nGPU 0     97     300\n";
    const std::string mpstat_header =
        "10:23:45 AM  CPU    %usr %iowait   %idle\n"
        "10:23:46 AM  all   80.00    5.00    5.00\n";
    const std::string vmstat_header =
        " r  b us sy id wa\n"
        " 1  0  5  1 94  0\n"
        " 2  0 50  1 49  0\n";
    const std::string iostat_header =
        "avg-cpu:  %user %iowait   %idle\n"
        "          10.00    1.00   89.00\n\n"
        "Device            r/s  %util\n"
        "nvme0n1       2500.00   5.00\n";
    const std::string profiler_header =
        "------------  ------------  ------------  ------------\n"
        "        Name    Self CPU %      Self CPU    # of Calls\n"
        "------------  ------------  ------------  ------------\n"
        "    aten::mm        50.00%      10.000ms           100\n";
    const std::vector<Case> cases = {
        {dmon_header, "    0     44", "    0     44     many\n",
         "'many' is not a number at gpu.log:4:18 (sm); expected a number, or [N/A]", "    0     44     10     7\n",
         "the row has 4 cells where the header has 3 at gpu.log:4:1 (row); every dmon row has one cell per column of its header"},
        {dcgmi_header, "GPU 0     9", "GPU 0     97     many\n",
         "'many' is not a number at gpu.log:4:18 (POWER); expected a number, or [N/A]", "GPU 0     97     300   1\n",
         "the row has 3 values where the header has 2 fields at gpu.log:4:1 (row); every dcgmi dmon row is 'GPU <id>' and one value per field"},
        {mpstat_header, "10:23:47 AM  all   80.00", "10:23:47 AM  all   80.00    5.00    idle\n",
         "'idle' is not a number at gpu.log:3:37 (%idle); expected a number, or [N/A]",
         "10:23:47 AM  all   80.00    5.00    5.00  1\n",
         "the row has 7 cells where the header has 6 at gpu.log:3:1 (row); keep the output as the tool printed it"},
        {vmstat_header, " 3  0 50", " 3  0 xx  1 49  0\n", "'xx' is not a number at gpu.log:4:7 (us); expected a number, or [N/A]",
         " 3  0 50  1 49  0 7\n",
         "the row has 7 cells where the header has 6 at gpu.log:4:1 (row); keep the output as the tool printed it"},
        {iostat_header, "nvme0n1       25", "nvme0n1       2500.00   five\n",
         "'five' is not a number at gpu.log:6:25 (%util); expected a number, or [N/A]", "nvme0n1       2500.00   5.00  9\n",
         "the row has 4 cells where the header has 3 at gpu.log:6:1 (row); keep the output as the tool printed it"},
        {profiler_header, "   aten::add", "   aten::add        50.00%       1.000ms          many\n",
         "'many' is not a number at gpu.log:5:51 (# of Calls); expected a number, or [N/A]",
         "   aten::add        50.00%       1.000ms           100      7\n",
         "the row has 5 cells where the header has 4 at gpu.log:5:55 (row); keep the table as the profiler printed it"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.log);
      const auto t = parse(c.log + c.cut);
      const int cut_line = static_cast<int>(std::count(c.log.begin(), c.log.end(), '\n')) + 1;
      const std::string note = "gpu.log:" + std::to_string(cut_line) + ": the last line is cut short and was skipped";
      CHECK(std::find(t.notes.begin(), t.notes.end(), note) != t.notes.end());
      CHECK(error_of(c.log + c.bad) == c.bad_error);
      CHECK(error_of(c.log + c.wide) == c.wide_error);
    }
  }

  TEST_CASE("a file of no known format is an error that lists the formats") {
    CHECK(error_of("\nhello world\n") ==
          "cannot tell the format of the log at gpu.log:2:1; gpuplan diagnose reads nvidia-smi --query-gpu=... "
          "--format=csv (with its header, or pass --fields for noheader), nvidia-smi dmon, the nvidia-smi table, "
          "dcgmi dmon, a torch profiler key_averages().table(), mpstat, vmstat and iostat -x output");
    CHECK(error_of("") ==
          "the log is empty at gpu.log:1:1; record the running job, e.g. nvidia-smi --query-gpu=timestamp,index,name,"
          "utilization.gpu,memory.used,memory.total,power.draw,power.limit --format=csv -l 1 > gpu.csv");
  }
}

}  // namespace gpuplan::config
