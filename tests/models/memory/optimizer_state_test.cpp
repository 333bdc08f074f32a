#include "models/memory/optimizer_state.h"

#include <doctest/doctest.h>

using namespace gpuplan::models;

TEST_SUITE("models.memory.optimizer_state") {
  TEST_CASE("per-element state: SGD, momentum, Adam, bitsandbytes 8-bit") {
    Workload w;
    w.parameters = 1e6;
    CHECK(optimizer_state_bytes(w, Optimizer::kSgd) == 0.0);
    CHECK(optimizer_state_bytes(w, Optimizer::kSgdMomentum) == doctest::Approx(4e6));
    CHECK(optimizer_state_bytes(w, Optimizer::kAdamW) == doctest::Approx(8e6));
    // two 8-bit moments + one fp32 absmax per 2,048 values each: 2 · (1 + 4/2048) B
    // = 2.00390625 B per parameter.
    CHECK(optimizer_state_bytes(w, Optimizer::kAdamW8bit) == doctest::Approx(2'003'906.25));
    CHECK(optimizer_state_bytes(w, Optimizer::kPagedAdamW8bit) == doctest::Approx(2'003'906.25));
  }

  TEST_CASE("Adafactor factors the second moment of each weight matrix") {
    Workload w;
    Op linear;  // 1000 x 500 weight + 1000 bias
    linear.parameters = 501'000;
    linear.weight_rows = 1000;
    linear.weight_columns = 500;
    Op norm;  // 1000 weights, no matrix
    norm.parameters = 1000;
    Op tied_head;  // the embedding's matrix, owns no parameters
    tied_head.weight_rows = 50'000;
    tied_head.weight_columns = 500;
    w.ops = {linear, norm, tied_head};
    w.parameters = 502'000;
    // linear: (1000 + 500) · 4 B row/column means + 1000 · 4 B bias = 10,000 B;
    // norm: 1000 · 4 B = 4,000 B; tied head: 0.
    CHECK(optimizer_state_bytes(w, Optimizer::kAdafactor) == doctest::Approx(14'000.0));
  }
}
