// Activation offloading's memory rule (models/memory/activation_offload.h): a round-number
// workload of four blocks, worked out by hand.
#include "models/memory/activation_offload.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "models/memory/footprint.h"
#include "parameter_op.h"

using namespace gpuplan::models;

namespace {

using testing::four_block_workload;  // parameter_op.h: fp32 blocks of 1400-1700 elements

TrainingSpec fp32_sgd(int batch) {
  TrainingSpec t;
  t.batch_size = batch;
  t.optimizer = Optimizer::kSgd;
  return t;
}

}  // namespace

TEST_SUITE("models.memory.activation_offload") {
  TEST_CASE("without checkpointing: the blocks' saves go to the host, two blocks stay in flight") {
    const Workload w = four_block_workload();
    TrainingSpec t = fp32_sgd(8);
    const ActivationOffload o = activation_offload(w, t, saved_bytes_per_sample(w, t));
    REQUIRE(o.blocks.size() == 4);
    // Block k saves (1400 + 100 k) x 4 B: 5600, 6000, 6400, 6800 B per sample.
    CHECK(o.blocks[0].first_op == 1);
    CHECK(o.blocks[0].end_op == 3);
    CHECK(o.blocks[3].first_op == 7);
    CHECK(o.blocks[3].end_op == 9);
    CHECK(o.blocks[2].offloaded_bytes == doctest::Approx(6400));
    CHECK(o.blocks[2].copied);
    CHECK_FALSE(o.blocks[3].copied);  // backward reads the last block first: it stays
    // Outside the blocks: (100 + 200) x 4 = 1200 B.
    CHECK(o.outside_blocks_bytes == doctest::Approx(1200));
    // Host: blocks 0-2, 5600 + 6000 + 6400 = 18000 B per sample.
    CHECK(o.host_bytes == doctest::Approx(18000));
    // In flight: 2 blocks x the largest, 6800 B = 13600 B; nothing recomputed.
    CHECK(o.in_flight_bytes == doctest::Approx(13600));
    CHECK(o.recompute_bytes == 0.0);
    CHECK(o.gpu_bytes() == doctest::Approx(14800));
    // The memory model: 14800 B x 8 samples = 118400 B, where keeping everything is
    // (300 + 6200) x 4 x 8 = 208000 B.
    const MemoryBreakdown kept = training_memory(w, t, testing::zero_overheads());
    CHECK(kept.activations_bytes == doctest::Approx(208000));
    t.activation_offloading = true;
    const MemoryBreakdown offloaded = training_memory(w, t, testing::zero_overheads());
    CHECK(offloaded.activations_bytes == doctest::Approx(118400));
    CHECK(offloaded.weights_bytes == kept.weights_bytes);
  }

  TEST_CASE("with checkpointing: the checkpoint inputs move, the replayed block stays") {
    const Workload w = four_block_workload();
    TrainingSpec t = fp32_sgd(8);
    t.activation_checkpointing = true;
    const ActivationOffload o = activation_offload(w, t, saved_bytes_per_sample(w, t));
    REQUIRE(o.blocks.size() == 4);
    // Inputs (50 + 10 k) x 4 B: 200, 240, 280, 320 B; host blocks 0-2: 720 B per sample.
    CHECK(o.blocks[1].checkpointed);
    CHECK(o.blocks[1].offloaded_bytes == doctest::Approx(240));
    CHECK(o.host_bytes == doctest::Approx(720));
    // In flight 2 x 320 = 640 B; the replayed block is the largest's saves, 6800 B.
    CHECK(o.in_flight_bytes == doctest::Approx(640));
    CHECK(o.recompute_bytes == doctest::Approx(6800));
    // GPU: 1200 + 640 + 6800 = 8640 B x 8 = 69120 B; checkpointing alone keeps every input:
    // (300 + 260 + 1700) x 4 x 8 = 72320 B.
    CHECK(training_memory(w, t, testing::zero_overheads()).activations_bytes == doctest::Approx(72320));
    t.activation_offloading = true;
    CHECK(training_memory(w, t, testing::zero_overheads()).activations_bytes == doctest::Approx(69120));
  }

  TEST_CASE("one block: nothing to copy, the block stays") {
    const Workload four = four_block_workload();
    Workload w;
    for (const std::size_t i : {0, 1, 2, 9}) w.ops.push_back(four.ops[i]);  // embed, layers.0, head
    const TrainingSpec t = fp32_sgd(1);
    const ActivationOffload o = activation_offload(w, t, saved_bytes_per_sample(w, t));
    REQUIRE(o.blocks.size() == 1);
    CHECK(o.host_bytes == 0.0);
    CHECK(o.in_flight_bytes == doctest::Approx(5600));  // min(1, 2) x 5600
  }

  TEST_CASE("host bytes per node: per GPU x one micro-batch x GPUs per node") {
    JobSpec job;
    job.workload = four_block_workload();
    job.training = fp32_sgd(8);
    job.hardware.gpus_per_node = 4;
    CHECK(offloaded_activation_host_bytes_per_node(job) == 0.0);  // off
    job.training.activation_offloading = true;
    // 18000 B per sample x 8 samples x 4 GPUs = 576000 B.
    CHECK(offloaded_activation_host_bytes_per_node(job) == doctest::Approx(576000));
  }

  TEST_CASE("op_saved must match the op table") {
    const Workload w = four_block_workload();
    CHECK_THROWS_AS(activation_offload(w, fp32_sgd(1), std::vector<double>(3, 0.0)), std::invalid_argument);
  }
}
