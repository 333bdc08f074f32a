// Pipeline schedules played as activity graphs: the bubble that emerges, against the closed
// forms of Narayanan et al. 2021, sec. 2.2.
#include "models/step/pipeline_schedule.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

using namespace gpuplan::models;

namespace {

constexpr double kForwardS = 1e-3;
constexpr double kBackwardS = 2e-3;  // backward = 2 x forward (2 GEMMs per forward GEMM)

/// p·v equal chunks: each stage's share of forward and backward split over its v chunks.
PipelineInput equal_stages(PipelineSchedule schedule, int p, int m, int v = 1) {
  PipelineInput in;
  in.schedule = schedule;
  in.stages = p;
  in.micro_batches = m;
  in.virtual_stages = v;
  in.forward_s.assign(static_cast<std::size_t>(p * v), kForwardS / v);
  in.backward_s.assign(static_cast<std::size_t>(p * v), kBackwardS / v);
  return in;
}

}  // namespace

TEST_SUITE("models.step.pipeline_schedule") {
  TEST_CASE("GPipe: the bubble is (p - 1)/(m + p - 1), and stage 0 holds all m micro-batches") {
    const PipelineResult r = simulate_pipeline(equal_stages(PipelineSchedule::kGpipe, 4, 8));
    // Forwards fill in (m + p - 1)·t_f, backwards drain in (m + p - 1)·t_b: 11 x 3 ms.
    CHECK(r.makespan_s == doctest::Approx(33e-3));
    CHECK(r.bubble_fraction == doctest::Approx(3.0 / 11.0));
    CHECK(r.peak_in_flight == std::vector<int>{8, 8, 8, 8});
  }

  TEST_CASE("1F1B: the same bubble as GPipe, but stage s holds only p - s micro-batches") {
    for (const int p : {2, 4, 8}) {
      for (const int m : {8, 16, 32}) {
        CAPTURE(p);
        CAPTURE(m);
        const PipelineResult r = simulate_pipeline(equal_stages(PipelineSchedule::kOneFOneB, p, m));
        const double expected = (p - 1.0) / (m + p - 1.0);
        CHECK(r.bubble_fraction == doctest::Approx(expected).epsilon(0.01));
        CHECK(r.makespan_s == doctest::Approx((m + p - 1) * (kForwardS + kBackwardS)).epsilon(0.01));
        CHECK(r.peak_in_flight.front() == p);
        CHECK(r.peak_in_flight.back() == 1);
      }
    }
  }

  TEST_CASE("interleaved 1F1B: v chunks per stage shrink the bubble to about (p - 1)/(v·m + p - 1)") {
    for (const int v : {2, 4}) {
      for (const int m : {8, 16, 32}) {
        CAPTURE(v);
        CAPTURE(m);
        const int p = 4;
        const PipelineResult r = simulate_pipeline(equal_stages(PipelineSchedule::kInterleavedOneFOneB, p, m, v));
        const double expected = (p - 1.0) / (v * m + p - 1.0);
        CHECK(r.bubble_fraction == doctest::Approx(expected).epsilon(0.02));
        const PipelineResult plain = simulate_pipeline(equal_stages(PipelineSchedule::kOneFOneB, p, m));
        CHECK(r.bubble_fraction < plain.bubble_fraction);
      }
    }
  }

  TEST_CASE("sends between stages add 2(p - 1) sends to the critical path of GPipe") {
    PipelineInput in = equal_stages(PipelineSchedule::kGpipe, 4, 8);
    in.send_s = 0.1e-3;
    // The last forward reaches stage 3 after 3 sends, the last backward stage 0 after 3 more.
    CHECK(simulate_pipeline(in).makespan_s == doctest::Approx(33e-3 + 6 * 0.1e-3));
  }

  TEST_CASE("one stage has no bubble; a slower stage bounds the others") {
    const PipelineResult one = simulate_pipeline(equal_stages(PipelineSchedule::kOneFOneB, 1, 4));
    CHECK(one.makespan_s == doctest::Approx(4 * 3e-3));
    CHECK(one.bubble_fraction == doctest::Approx(0.0));
    PipelineInput in = equal_stages(PipelineSchedule::kOneFOneB, 2, 8);
    in.forward_s[1] = 2e-3;  // the last stage (head and loss) twice as slow
    in.backward_s[1] = 4e-3;
    // The slow stage is busy 8 x 6 ms and waits only for the first forward of stage 0 (1 ms)
    // and then stage 0 waits for it: 1 + 48 + 2 (stage 0's last backward) = 51 ms.
    CHECK(simulate_pipeline(in).makespan_s == doctest::Approx(51e-3));
  }

  TEST_CASE("refused inputs") {
    PipelineInput in = equal_stages(PipelineSchedule::kOneFOneB, 4, 8);
    in.virtual_stages = 2;
    CHECK_THROWS_AS(simulate_pipeline(in), std::invalid_argument);
    CHECK_THROWS_AS(simulate_pipeline(equal_stages(PipelineSchedule::kInterleavedOneFOneB, 4, 6, 2)),
                    std::invalid_argument);
    PipelineInput short_times = equal_stages(PipelineSchedule::kGpipe, 4, 8);
    short_times.forward_s.pop_back();
    CHECK_THROWS_AS(simulate_pipeline(short_times), std::invalid_argument);
    // kMaxPipelineMicroBatches micro-batches are played, one more is refused.
    CHECK(simulate_pipeline(equal_stages(PipelineSchedule::kOneFOneB, 2, kMaxPipelineMicroBatches)).makespan_s > 0.0);
    CHECK_THROWS_WITH_AS(simulate_pipeline(equal_stages(PipelineSchedule::kOneFOneB, 2, kMaxPipelineMicroBatches + 1)),
                         "simulate_pipeline: 4097 micro-batches: at most 4096 are played (kMaxPipelineMicroBatches)",
                         std::invalid_argument);
  }
}
