// --format html of run, plan and diagnose rendered in a real browser (headless Chromium,
// installed by scripts/install-deps): every chart drew (the page counts them on <body>), the
// page fetches nothing (it opens offline), and a screenshot lands in the build tree
// (build/<type>/html-report-screenshots/) for a person to look at.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;

namespace {

const std::string kSource = GPUPLAN_SOURCE_DIR;

/// The headless browser: chromium-headless-shell (Debian), else chromium; empty when neither.
std::string browser() {
  for (const char* candidate : {"/usr/bin/chromium-headless-shell", "/usr/bin/chromium"}) {
    if (::access(candidate, X_OK) == 0) return candidate;
  }
  return "";
}

std::filesystem::path screenshot_dir() {
  // GPUPLAN_BINARY is <build>/cli/gpuplan.
  const auto dir = std::filesystem::path(GPUPLAN_BINARY).parent_path().parent_path() / "html-report-screenshots";
  std::filesystem::create_directories(dir);
  return dir;
}

struct Rendered {
  std::string dom;
  std::uintmax_t screenshot_bytes = 0;
};

Rendered render(const std::string& html_path, const std::string& name) {
  Rendered r;
  const std::string flags = " --no-sandbox --disable-gpu --hide-scrollbars --window-size=1150,2000 ";
  const std::string dom_path = html_path + ".dom";
  const std::string b = browser();
  std::system(("timeout 120 " + b + flags + "--dump-dom file://" + html_path + " >" + dom_path + " 2>/dev/null").c_str());
  r.dom = slurp(dom_path);
  std::filesystem::remove(dom_path);
  const std::filesystem::path png = screenshot_dir() / (name + ".png");
  std::filesystem::remove(png);
  std::system(("timeout 120 " + b + flags + "--screenshot=" + png.string() + " file://" + html_path + " >/dev/null 2>&1").c_str());
  if (std::filesystem::exists(png)) r.screenshot_bytes = std::filesystem::file_size(png);
  return r;
}

void check_page(const std::string& html_path, const std::string& name, int charts) {
  const std::string html = slurp(html_path);
  CHECK(html.find("Chart.js v3.9.1") != std::string::npos);  // the library is in the page
  CHECK(html.find("src=\"http") == std::string::npos);      // nothing fetched
  CHECK(html.find("<link") == std::string::npos);
  const Rendered r = render(html_path, name);
  INFO("DOM head: " << r.dom.substr(0, 300));
  CHECK(r.dom.find("data-charts-drawn=\"" + std::to_string(charts) + "\"") != std::string::npos);
  CHECK(r.dom.find("data-charts-failed=\"0\"") != std::string::npos);
  CHECK(r.dom.find(" [charts drawn]</title>") != std::string::npos);
  CHECK(r.screenshot_bytes > 10000);
}

std::string temp_path(const std::string& name) {
  return "/tmp/gpuplan_html_test_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace

TEST_SUITE("cli.html_report") {
  TEST_CASE("a headless browser is installed (scripts/install-deps installs chromium-headless-shell)") {
    REQUIRE_MESSAGE(!browser().empty(), "no /usr/bin/chromium-headless-shell or /usr/bin/chromium: run scripts/install-deps");
  }

  TEST_CASE("run --format html: step breakdown, throughput, dollars, memory, simulated utilization all draw") {
    REQUIRE(!browser().empty());
    const std::string out = temp_path("run.html");
    const auto r = run_gpuplan("run " + kSource + "/scenarios/dle-resnet50-a100.yaml --format html -o " + out);
    REQUIRE(r.exit_code == 0);
    check_page(out, "run-dle-resnet50-a100", 5);  // the scenario prices an instance: the dollars chart is in
    std::filesystem::remove(out);
  }

  TEST_CASE("plan --format html: the time/dollar chart with the Pareto front, deadline and budget lines draws") {
    REQUIRE(!browser().empty());
    const std::string out = temp_path("plan.html");
    const auto r = run_gpuplan("plan " + kSource + "/scenarios/capacity-plan-llm-finetune.yaml --deadline 48h --budget '$200' "
                               "--providers gcp,lambda --threads 2 --format html -o " + out);
    REQUIRE(r.exit_code == 0);
    check_page(out, "plan-capacity-plan-llm-finetune", 1);
    const std::string html = slurp(out);
    CHECK(html.find("\"label\":\"deadline 2.00 d\"") != std::string::npos);
    CHECK(html.find("\"label\":\"budget $200\"") != std::string::npos);
    std::filesystem::remove(out);
  }

  TEST_CASE("diagnose --format html: the measured trace beside the simulated one, and the remedies") {
    REQUIRE(!browser().empty());
    const std::string log = temp_path("gpu.csv");
    std::string csv = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\n";
    for (int t = 0; t < 40; ++t) {
      csv += "2024/03/02 14:00:" + std::string(t < 10 ? "0" : "") + std::to_string(t) + ".000, 0, NVIDIA GeForce RTX 3090, " +
             (t % 4 == 0 ? "95 %" : "0 %") + ", 5120 MiB, " + (t % 4 == 0 ? "330 W" : "110 W") + "\n";
    }
    std::ofstream(log) << csv;
    const std::string out = temp_path("diagnose.html");
    const auto r = run_gpuplan("diagnose " + log + " --scenario " + kSource + "/scenarios/resnet50-imagenet-rtx3090.yaml --format html -o " + out);
    REQUIRE(r.exit_code == 0);
    check_page(out, "diagnose-rtx3090", 5);  // utilization, memory, power measured; simulated utilization; remedies
    std::filesystem::remove(out);
    std::filesystem::remove(log);
  }
}
