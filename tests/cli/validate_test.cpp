#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;

// Accuracy guard: the validation cases (tests/validation/README.md) with the one set of model parameters, fitted by
// `gpuplan fit tests/validation` on the 93 throughput rows before the N group was added (2026-12-02; N is out of
// sample). The bounds sit just above today's figures: throughput MAPE 12.6 % over 111 rows (8.2 % over 27 one-GPU
// cases, 14.0 % over 84 multi-GPU cases; 11.5 % over the 105 rows before the long-context X148-X153 were added). By group: every D, K and P case runs Megatron's fused kernels
// (training.framework_overhead: eager_fused: fused scale-mask-softmax, bias+GeLU, apex layer norm and Adam), so
// vTrain's Megatron-DeepSpeed GPT D001-D007 read 30.1 % (their measured steps carry 40-60 ms per micro-step the model
// has no term for, which the unfused chain had hidden), Korthikanti's 22B at TP8 K001-K002 6.0 %, the Megatron-LM
// pipeline rows P001-P016 (SC21 weak scaling, Korthikanti's 175B/530B/1T, 32 to 3,072 A100s) 6.4 %; llm-foundry FSDP
// and ZeRO-2 F001-F022 9.9 %; the DeepSpeed ZeRO-3 + CPU AdamW offload rows O001 (H200) and O002 (B200) 95 %, predicted
// far too fast (the measured steps carry ~2 s of offload where the model's copies and host AdamW bound by the DGX
// host's DRAM bandwidth per core, 48 B per parameter, give 0.71 s); the NeMo / Megatron-Bridge rows N001-N012 (fp8 on
// H100, B200, GB200 and GB300 with Megatron's distributed optimizer and overlap_param_gather, TP/PP/CP/FSDP layouts up
// to Nemotron-4 340B on 128 H100) 7.3 % over 12.
// 2026-12-03: `attention: flash3` (FlashAttention-3 / cuDNN fused attention at its published rate per head dim) for
// the recipes that run it (Transformer Engine's cuDNN backend: N001-N012; llm.c's cuDNN on H100: L011, X113; the
// stas00 rows' FlashAttention-3/4: F021, F022, O001, O002), and under fp8 attention and the output head on the bf16
// path (only the blocks' linears run fp8 GEMMs). The N group went from 9.6 to 7.6 % (13.1 % with the fp8 rule alone,
// attention then at FlashAttention-2's Hopper rate); overall throughput 12.3 -> 12.5 % and multi-GPU 13.6 -> 14.0 %,
// because the HF + DeepSpeed rows become faster still where they were already too fast: F022 (B200) +17.4 -> +35.5 %,
// O001 +56.6 -> +73.0 %, O002 +103.8 -> +117.7 % (F021 -7.6 -> +7.7 %, L011 +3.2 -> +8.7 %): the model over-predicts
// HF eager training on Blackwell (measured MFU 35 % against 47 % on H200), which faster attention uncovers.
// 2026-12-03, later: Megatron's fused softmax and layer norms (framework_overhead: eager_fused) take and return 16-bit
// tensors under AMP instead of autocast's fp32 (runs_fp32_under_autocast): throughput 12.5 -> 11.6 % (9.9 % without
// the two offload rows), multi-GPU 14.0 -> 12.7 %; P001-P016 11.7 -> 6.4 % (P001-P004 from -21..-25 % to -8..-17 %),
// K001-K002 15.7 -> 6.0 %, D001-D007 30.6 -> 30.1 %, N001-N012 7.6 -> 8.3 %.
// 2026-12-03, later still: the stas00 rows run Liger-Kernel as its recipe says (loss: fused_linear_cross_entropy,
// framework_overhead: eager_fused for its fused RMSNorm, SwiGLU and RoPE): F021 +7.7 -> +9.6, F022 +35.5 -> +39.6,
// O001 +73.0 -> +74.1, O002 +117.7 -> +119.1 %; and its long-context rows are cases: X148/X149 (32K, H200/B200)
// -8.6/+14.0 %, X150/X151 (128K) -41.7/-34.5 %, X152/X153 (256K) -46.2/-40.3 % (the model computes attention over
// the full s x s where FlashAttention-3/4 skip the tiles above the diagonal: with that skip X150 reads -0.1 % and
// X152 -1.2 %, but the short-context rows go too fast, throughput 13.3 %; tests/validation/README.md), X157 and X156
// peak memory at 32K and 256K -5.4/-5.1 %, and 256K fits the H200 (fits 7 of 7). Throughput 11.6 -> 12.7 % over
// 111, multi-GPU 14.1 % over 84, memory 7.4 % over 11.
// Then Transformer Engine's fp8 cast-transpose kernels of each fp8 linear's input (forward) and output gradient
// (backward): N001-N012 8.3 -> 7.3 % (N001 +26.1 -> +17.9, N003 +7.3 -> +0.0, N010 -9.7 -> -13.5 %), throughput
// 12.7 -> 12.6 %, multi-GPU 14.1 -> 14.0 %.
// 2026-12-03, session 13: three physical facts the model lacked, each from a published figure and none fitted on
// these cases. (1) Every fused attention kernel skips the key tiles above the diagonal of a causal mask, (n+1)/(2n)
// of n² tiles for n query blocks of 128, and pays 1.85 tiles per query block (FlashAttention-3's forward figure with
// and without the mask); (2) DeepSpeed's CPU-Adam reaches 0.199 of the host's DRAM peak (DeepSpeed PR #735: 11.6 B
// parameters in 8.2 s); (3) llm-foundry's MPT tables ran attn_impl: triton (submit_benchmarks.py's default), so
// F001-F020 say attention: flash_triton, FlashAttention in Triton at 1 / sqrt(1.3 x 2.5) of FlashAttention-2 (its
// paper: 1.3-2.5x). Throughput 12.6 -> 10.4 % over 111, multi-GPU 14.0 -> 11.1 %; O001/O002 +74/+119 -> -25/-28 %,
// X148-X153 -8.6/+14.0/-41.7/-34.5/-46.2/-40.3 -> -13.2/-18.3/-4.5/-0.3/-1.7/+6.4 %, F 10.2 -> 10.4 % (F003-F005 at 32K
// and 64K -3/-4/-12 -> +4.0/+5.0/+2.7 %; F021/F022 +9.6/+39.6 -> +23.0/+55.7 %); N001-N012 7.3 -> 10.5 %, where the
// full square had hidden short-context costs the model lacks (N001 +17.9 -> +23.5, N005 GB200 +5.1 -> +24.3, N009 CP2
// +8.0 -> +24.8 %; N010 -13.5 -> -5.6 %). GEMM fractions per architecture and precision from
// published MAMF (Blackwell bf16 0.776, fp8 0.709 Hopper / 0.763 Blackwell), GB200's load clock
// implied by its MAMF, and the four fitted fractions refit (2026-12-03): throughput 10.4 -> 9.8 %,
// one GPU 8.2 -> 8.0 %, several 11.1 -> 10.4 %; N001-N012 10.5 -> 7.8 % (N001 +12.2, N005
// +12.7, N009 +16.7, N010 -12.4 %).
// 2026-12-03, session 15: a checkpointed block's replayed forward is dispatched at a forward's host cost (the
// module's Python forward runs again inside torch.utils.checkpoint's backward; it was costed as autograd's), and full
// checkpointing replays the blocks only (not embedding, head or loss, which keep their activations as the memory
// model already said): throughput 9.8 -> 8.6 %, one GPU 8.0 -> 7.6 %, several 10.4 -> 8.9 %; D001-D007 29.7 -> 12.3 %
// (D002 +43 -> +11, D004 +42 -> +10, D006 +66 -> +29 %), V108 +13.4 -> -3.3 %; vTrain's 504 PP1 rows 24.1 -> 13.6 %.
// 2026-12-03, session 16: stas00's Llama 3.1 8B rows count model FLOP as the page's benchmark.py does (expected
// tokens/s +1.3-6.1 %), and CPU-Adam reaches 0.322 of the DGX host's DRAM bandwidth (fitted on O001/O002; 0.199 from a
// 2021 DGX-2 before): throughput 8.6 -> 7.7 %, several GPUs 8.9 -> 7.7 %; O001 -29 -> -1, X148 -17 -> -3, X149 -23 -> -2 %.
// 2026-12-04, session 17: the H200 rows H001-H013, measured by gpuplan itself on a lent device; with them the eager
// torch.optim foreach passes, GradScaler under fp16 only, HF's RMSNorm/rotary/loss/gelu_new passes and align1 GEMMs:
// the 111 rows before 7.7 -> 7.7 % (one GPU 7.6 -> 7.9, several 7.7 -> 7.6 %, memory 7.4 -> 5.2 % over 11); all 124
// rows 8.3 %, one GPU 9.6 % over 40, several 7.6 %, memory 7.6 % over 24; H001-H013 28.6 -> 13.3 %.
// 2026-12-05, session 18: training.causal_mask (H010, HF's compiled GPT-2, passes its causal mask to SDPA as a
// tensor: +44.5 -> +18.2 %) and cuDNN's NCHW batch norm at 1.41 element passes per cycle and channel (H011 +38.4 ->
// -1.1 %, H005 +6.4 -> -9.0 %, T001 +6.8 -> -1.0 %, V001 +3.4 -> -3.3 %): throughput 8.3 -> 7.8 %, one GPU 9.6 -> 8.1 %,
// several 7.6 %; H001-H013 13.3 -> 8.6 %. The optimizer step's temporaries (foreach AdamW's sqrt(v) of every
// tensor, or one tensor's under the legacy per-tensor loop that V105-V108's Trainer ran): H009's peak -15.7 -> +0.0 %,
// memory 7.6 -> 6.9 % over 24. torchvision's nn.MultiheadAttention layout copies (ViT's attention_module:
// torchvision): H012 +35.4 -> +17.6 %; throughput 7.8 -> 7.6 %, one GPU 8.1 -> 7.7 %; H001-H013 8.6 -> 7.2 %.
// training.optimizer_implementation (for_loop / foreach / fused; V105-V108 for_loop, H010's compiled model foreach):
// H010 +18.2 -> +13.3 %, one GPU 7.7 -> 7.6 %, H001-H013 7.2 -> 6.8 %.
// 2026-12-05, session 19: the loss-backward phase of the peak (F.cross_entropy's backward allocates nll_loss's zeroed
// gradient and log_softmax's output, fp32, before any parameter gradient exists) and HF's fp32 upcast of the logits
// under pure bf16: H002 -20.9 -> +3.1 %, H003 -8.7 -> -1.3 %, H004 -11.4 -> +1.4 %, H013 -17.2 -> +6.1 %, H008
// -2.9 -> +5.5 %; memory 6.9 -> 5.1 % over 24; one GPU 7.6 -> 7.5 %.
// Peak memory 7.9 % over 9: the
TEST_SUITE("cli.validate") {
  TEST_CASE("validation MAPE stays within its recorded bounds") {
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["throughput_cases"].get<int>() >= 124);
    CHECK(j["throughput_mape"].get<double>() <= 0.077);
    CHECK(j["rows"].size() >= 157);
    CHECK(j["single_gpu_throughput_cases"].get<int>() >= 40);
    CHECK(j["single_gpu_throughput_mape"].get<double>() <= 0.077);
    CHECK(j["multi_gpu_throughput_cases"].get<int>() >= 84);
    // 7.6 -> 7.7 % when the first micro-step of an accumulated step stopped being counted
    // (GA - 1) / 2 times (its wait for the distributed optimizer's parameter all-gather):
    // N002 -7.8 -> +12.5 %, N012 -6.1 -> +10.4 %, which the repeated wait had hidden.
    CHECK(j["multi_gpu_throughput_mape"].get<double>() <= 0.078);
    // 5.1 -> 5.8 % when an optimizer offload took the gradient shards off the GPU (ZeRO-Offload
    // sec. 4.1; Z001, a 13 B model on one V100 32GB, went from OOM at 80.7 GB to fitting):
    // X148 -5.4 -> -19.9 %, X152 -5.1 -> -8.1 % (tests/validation/README.md, "Gradients under
    // optimizer offload").
    CHECK(j["memory_mape"].get<double>() <= 0.059);
    CHECK(j["fits_right"].get<int>() >= 8);
    // Each GPU's own throughput rows (issue 14: at least 8 GPU types, each within 15 %; the
    // same figures as the summary's "throughput MAPE by GPU" line).
    std::map<std::string, std::pair<double, int>> by_gpu;
    for (const auto& row : j["rows"]) {
      const std::string metric = row["metric"].get<std::string>();
      if (metric != "throughput" && metric != "tokens_per_s") continue;
      auto& [sum, cases] = by_gpu[row["gpu"].get<std::string>()];
      sum += std::abs(row["relative_error"].get<double>());
      ++cases;
    }
    CHECK(by_gpu.size() >= 8);
    for (const auto& entry : by_gpu) {
      const std::string& gpu = entry.first;
      CAPTURE(gpu);
      CHECK(entry.second.first / entry.second.second <= 0.15);
    }
  }

  TEST_CASE("the eager HF language-model peaks measured on the H200 each within 7 %") {
    // torch.cuda.max_memory_allocated() of H002-H004, H008, H009, H013: F.cross_entropy's backward transients
    // (loss_backward_transient_bytes_per_sample) and the optimizer step's temporaries set these peaks; without the
    // loss's phase H002 was -20.9 %, H013 -17.2 %. Left outside: H005 (cudnn.benchmark's trial workspaces in the
    // warm-up, -23 %) and H010 (torch.compile's saved tensors, -16 %).
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    int n = 0;
    for (const auto& row : j["rows"]) {
      const std::string id = row["case"].get<std::string>();
      const std::string number = id.substr(0, 4);
      const bool eager_lm = number == "H002" || number == "H003" || number == "H004" || number == "H008" ||
                            number == "H009" || number == "H013";
      if (!eager_lm || row["metric"] != "peak_memory_allocated") continue;
      CAPTURE(id);
      CHECK(std::abs(row["relative_error"].get<double>()) <= 0.07);
      ++n;
    }
    CHECK(n == 6);
  }

  TEST_CASE("gpuplan's own H200 measurements H001-H013 within 7 % MAPE; the LLM and BERT rows each within 12 %") {
    // Real PyTorch steps timed on a lent H200 (cuda_probe/torch_steps.py, 2026-12-04). 28.6 % when first added:
    // torch.optim's foreach AdamW passes (H003 +30.5 -> +20.3 %), HF's eager RMSNorm / rotary / loss passes
    // (H003 -> +8.9 %), the align1 GEMM of GPT-2's 50,257-token head and gelu_new (H002 +135 -> -2.9 %) brought it
    // to 13.3 %; the causal mask passed as a tensor under torch.compile (H010 +44.5 -> +18.2 %) and cuDNN's NCHW
    // batch norm (H011 +38.4 -> -1.1 %) to 8.6 %, torchvision's nn.MultiheadAttention copies (H012 +35.4 -> +17.6 %)
    // to 7.2 %, H010's eager optimizer under a compiled model to 6.8 %. Left: H012 (+18 %), H010 (+13 %), H004 (+11.5 %).
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    double sum = 0.0;
    int n = 0;
    for (const auto& row : j["rows"]) {
      const std::string id = row["case"].get<std::string>();
      const bool rate = row["metric"] == "tokens_per_s" || row["metric"] == "throughput";
      if (id.rfind("H0", 0) != 0 || !rate) continue;
      const double error = std::abs(row["relative_error"].get<double>());
      sum += error;
      ++n;
      const std::string number = id.substr(1, 3);
      const bool llm_or_bert = number != "005" && number != "010" && number != "011" && number != "012" && number != "001";
      CAPTURE(id);
      if (llm_or_bert) CHECK(error <= 0.12);
    }
    CHECK(n == 13);
    CHECK(sum / n <= 0.07);
  }

  TEST_CASE("the NeMo / Megatron-Bridge fp8 rows N001-N015 within 8.5 % MAPE, each within 20 %") {
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    double sum = 0.0;
    int n = 0;
    for (const auto& row : j["rows"]) {
      if (row["metric"] != "tokens_per_s" || row["case"].get<std::string>().rfind("N0", 0) != 0) continue;
      CAPTURE(row["case"].get<std::string>());
      CHECK(std::abs(row["relative_error"].get<double>()) <= 0.20);
      sum += std::abs(row["relative_error"].get<double>());
      ++n;
    }
    CHECK(n == 15);
    // 7.6 % with attention: flash3 and fp8 confined to the blocks' linears (9.6 % before); 8.3 %
    // with Megatron's 16-bit fused layer norms (their traffic halves: N001 +23.0 -> +26.1 %); 7.3 %
    // with Transformer Engine's fp8 cast-transpose kernels (N001 +17.9 %); 10.5 % with causal tile
    // skipping; 7.8 % with the fp8 and Blackwell MAMF fractions; 8.6 % once the distributed
    // optimizer's parameter all-gather is waited for once per step, not (GA - 1) / 2 times
    // (N002 -7.8 -> +12.5 %, N012 -6.1 -> +10.4 %: the TP x PP rows now read fast); 8.4 % with
    // N013 (TP4 PP4 CP2, -5.3 %), the first row of context with pipeline parallelism; 8.2 % with
    // N014 and N015 (Llama 3.1 405B, PP8 x VP8 over 126 layers + embedding + loss: -7.3, +6.6 %).
    CHECK(sum / n <= 0.085);
  }

  TEST_CASE("vTrain's Megatron-DeepSpeed rows D001-D007 within 12.5 % MAPE") {
    // Host-bound at TP 2-8 and micro-batch 1-2 with full recomputation: 29.7 % while the replayed
    // forward was costed at autograd's dispatch, 12.3 % at the forward's (session 15).
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE(r.exit_code == 0);
    double sum = 0.0;
    int n = 0;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& row : j["rows"]) {
      if (row["case"].get<std::string>().rfind("D0", 0) != 0) continue;
      sum += std::abs(row["relative_error"].get<double>());
      ++n;
    }
    CHECK(n == 7);
    CHECK(sum / n <= 0.125);
  }

  TEST_CASE("stas00's CPU-offload rows O001-O002 and X148-X153 each within 6 %") {
    // The host step share of CPU-Adam is fitted on O001/O002 (8K); the 32K-256K rows check it:
    // -17 and -23 % at 32K with the 2021 DGX-2 share.
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE(r.exit_code == 0);
    int n = 0;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& row : j["rows"]) {
      const std::string id = row["case"].get<std::string>();
      const std::string prefix = id.substr(0, 4);
      const bool offload = prefix == "O001" || prefix == "O002" || (prefix >= "X148" && prefix <= "X153");
      if (!offload || row["metric"] != "tokens_per_s") continue;
      CAPTURE(id);
      CHECK(std::abs(row["relative_error"].get<double>()) <= 0.06);
      ++n;
    }
    CHECK(n == 8);
  }

  TEST_CASE("each BERT-large memory row of the published measurements within 10 %") {
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE(r.exit_code == 0);
    int memory_rows = 0;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& row : j["rows"]) {
      if (row["metric"] == "peak_memory" && row["case"].get<std::string>().rfind("V1", 0) == 0) {
        ++memory_rows;
        CAPTURE(row["case"].get<std::string>());
        CHECK(std::abs(row["relative_error"].get<double>()) <= 0.10);
      }
    }
    CHECK(memory_rows == 4);  // V105-V108
  }

  TEST_CASE("calculon-comparison.md's gpuplan column is today's model") {
    // Its gpuplan iteration time of each case is the measured one / (1 + validate's tokens/s
    // error), to the table's two decimals.
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    std::istringstream table(gpuplan::testing::slurp(std::string(GPUPLAN_SOURCE_DIR) +
                                                     "/tests/validation/calculon-comparison.md"));
    int rows = 0;
    for (std::string line; std::getline(table, line);) {
      if (line.rfind("| K0", 0) != 0 && line.rfind("| P0", 0) != 0) continue;
      std::vector<std::string> cells;
      std::istringstream row(line.substr(1));
      for (std::string cell; std::getline(row, cell, '|');) cells.push_back(cell.substr(1, cell.size() - 2));
      REQUIRE(cells.size() >= 6);
      const std::string id = cells[0];
      CAPTURE(id);
      for (const auto& v : j["rows"]) {
        if (v["metric"] != "tokens_per_s" || v["case"].get<std::string>().rfind(id, 0) != 0) continue;
        const double measured_s = std::stod(cells[4]);
        const double gpuplan_s = std::stod(cells[5]);
        CHECK(gpuplan_s == doctest::Approx(measured_s / (1.0 + v["relative_error"].get<double>())).epsilon(0.005));
        ++rows;
      }
    }
    CHECK(rows == 8);
  }

  TEST_CASE("a folder without cases is an input error") {
    const auto r = run_gpuplan("validate /tmp/gpuplan-no-such-folder");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("cannot read folder '/tmp/gpuplan-no-such-folder'") != std::string::npos);
  }
}

#include <set>

#include "cli/app_context.h"
#include "cli/validation.h"

// The catalog's `accuracy` flag says whether gpuplan's error on a GPU is known: it must be
// `measured` exactly for the GPUs some validation case runs on.
TEST_CASE("cli.validate: catalog accuracy is `measured` exactly for the GPUs of the validation cases") {
  const gpuplan::cli::AppContext context = gpuplan::cli::load_context(gpuplan::cli::default_catalog_dir(), {});
  std::set<std::string> measured;
  for (const auto& c : gpuplan::cli::load_validation_cases(std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation", context)) {
    for (const auto& v : c.scenario.variants) measured.insert(v.job.hardware.gpu.name);
  }
  CHECK(measured.size() >= 7);
  for (const auto& gpu : context.catalogs.gpus.all()) {
    CAPTURE(gpu.name);
    CHECK(gpu.prediction_only == (measured.count(gpu.name) == 0));
  }
}

// tests/validation-gaps/README.md: runs gpuplan describes but misses by far for a reason it
// does not model yet, kept out of the headline figure. Their errors as of 2026-12-07, pinned to
// +-5 points so that a change that moves them (towards the measured runs, one hopes) is seen
// and the README's table updated with it.
TEST_CASE("cli.validate: validation gaps (EfficientNet and ResNeXt E001-E016, GPT-OSS 120B MoE M001-M005), as documented") {
  const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation-gaps --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const std::map<std::string, double> documented = {
      {"E001", 0.278}, {"E002", 0.334}, {"E003", 0.260}, {"E004", 0.193}, {"E005", 0.628}, {"E006", 0.578},
      {"E007", 0.753}, {"E008", 0.845}, {"E009", 0.627}, {"E010", 0.408}, {"E011", 0.417}, {"E012", 0.230},
      {"E013", 0.214}, {"E014", 0.076}, {"E015", 0.395}, {"E016", 0.259}, {"M001", 0.582}, {"M002", -1.0},
      {"M003", 0.629},  {"M004", 0.687}, {"M005", 0.516}};
  std::size_t n = 0;
  for (const auto& row : j["rows"]) {
    const std::string id = row["case"].get<std::string>().substr(0, 4);
    CAPTURE(id);
    REQUIRE(documented.count(id) == 1);
    // M002 is predicted out of memory (233.7 GB of 193.3 GB): error -100 %.
    CHECK(std::abs(row["relative_error"].get<double>() - documented.at(id)) <= 0.05);
    ++n;
  }
  CHECK(n == documented.size());
}

// The summary lines give "- (no cases)" for a kind of row the folder has none of, not a 0.0 %
// that reads as a perfect score (from a helper's trial: "peak memory MAPE 0.0 % over 0 cases").
TEST_CASE("cli.validate: the summary says '- (no cases)' for a kind of row the folder lacks") {
  gpuplan::cli::ValidationSummary s;
  gpuplan::cli::ValidationRow row;
  row.case_name = "A";
  row.metric = "throughput";
  row.error = 0.05;
  s.rows.push_back(row);
  s.throughput_mape = 0.05;
  s.throughput_cases = 1;
  s.single_gpu_throughput_mape = 0.05;
  s.single_gpu_throughput_cases = 1;
  s.overall_mape = 0.05;
  s.throughput_mape_by_gpu["h200"] = {0.05, 1};
  const std::string text = gpuplan::cli::render_validation(s, "table");
  CHECK(text.find("\nthroughput MAPE 5.0 % over 1 cases; peak memory MAPE - (no cases); fits/OOM - (no cases); all "
                  "numeric metrics MAPE 5.0 %\nthroughput MAPE on one GPU 5.0 % over 1 cases; on several GPUs - (no "
                  "cases)\nthroughput MAPE by GPU: h200 5.0 % (1)\n") != std::string::npos);
}
