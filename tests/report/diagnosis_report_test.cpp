// gpuplan diagnose's text (report/diagnosis_report.h): the simulator's checked suggestion
// with its gain, and a sentence when the logs and the simulation name different limits.

#include "report/diagnosis_report.h"

#include <doctest/doctest.h>

#include <string>

using namespace gpuplan;

namespace {
/// One GPU whose logs say `measured`, beside a simulated job limited by `simulated`.
models::DiagnoseResult logged(const std::string& measured, const std::string& simulated) {
  models::DiagnoseResult r;
  r.logs = {"gpu.csv (nvidia_smi_query)"};
  models::Finding f;
  f.gpu_index = 0;
  f.bottleneck = measured;
  f.supported = true;
  f.headline = "GPU 0 waits";
  f.remedy = "something";
  r.diagnosis.findings = {f};
  r.scenario_name = "s";
  models::SimulatedJob s;
  s.strategy = "as_run";
  s.gpu_utilization = 0.42;
  s.step_time_s = 0.22;
  s.throughput_samples_per_s = 1155.0;
  s.bottleneck = simulated;
  s.suggestion = "data_loader.num_workers: 11";
  s.suggestion_throughput_change = 0.37;
  r.simulated = s;
  r.baseline = "as_run";
  return r;
}
}  // namespace

TEST_SUITE("report.diagnosis_report") {
  TEST_CASE("the suggestion carries its simulated gain; a disagreement on the limit is said, an agreement is not") {
    // A trial's case: iowait says storage, the scenario's loader says CPU decode.
    const std::string differ = report::render_diagnosis_text(logged("storage", "data_loading_cpu"));
    CHECK(differ.find("Simulator's suggestion: data_loader.num_workers: 11 (simulated: +37 % samples/s)") !=
          std::string::npos);
    CHECK(differ.find("The logs show storage and the simulation data_loading_cpu: the logs are what ran;") !=
          std::string::npos);
    // The logs' input pipeline covers the loader's CPU, storage and copies.
    CHECK(report::render_diagnosis_text(logged("input_pipeline", "data_loading_cpu")).find("The logs show") ==
          std::string::npos);
    CHECK(report::render_diagnosis_text(logged("compute", "gpu_compute")).find("The logs show") == std::string::npos);
    CHECK(report::render_diagnosis_text(logged("under_utilized", "gpu_compute")).find("The logs show") ==
          std::string::npos);
  }
}
