// The run page (report/run_html.h): a language model's throughput is headed and charted in
// tokens/s, as the text table heads it; an image model's in samples/s.

#include "report/run_html.h"

#include <doctest/doctest.h>

#include <string>

using namespace gpuplan;

namespace {
models::ScenarioResult one_row(bool language_model) {
  models::ScenarioResult r;
  r.scenario_name = "test scenario";
  r.scenario_path = "x.yaml";
  models::VariantResult v;
  v.strategy = "baseline";
  v.gpu = "h100-sxm";
  v.peak_memory_bytes = 30e9;
  v.memory_capacity_bytes = 85.9e9;
  v.step.step_time_s = 2.0;
  v.step.gpu_compute_s = 2.0;
  v.throughput_samples_per_s = 4.0;  // 4 sequences of 2,048 tokens a second
  if (language_model) v.throughput_tokens_per_s = 8192.0;
  r.variants = {v};
  return r;
}
}  // namespace

TEST_SUITE("report.run_html") {
  TEST_CASE("a language model's throughput is in tokens/s in the table and the chart; an image model's in samples/s") {
    const std::string lm = report::render_run_html(one_row(true), {});
    CHECK(lm.find("<th>tokens/s</th>") != std::string::npos);
    CHECK(lm.find("<td>8,192</td>") != std::string::npos);
    CHECK(lm.find("samples/s") == std::string::npos);
    const std::string image = report::render_run_html(one_row(false), {});
    CHECK(image.find("<th>samples/s</th>") != std::string::npos);
    CHECK(image.find("tokens/s") == std::string::npos);
  }
}
