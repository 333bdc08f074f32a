#!/usr/bin/env python3
"""Measures real PyTorch training steps on this machine's GPU, as validation ground truth.

Each case builds a model from its architecture (random weights, nothing downloaded), runs
warm-up steps, then times `steps` full training steps (forward, loss, backward, optimizer
step, zero_grad) between two torch.cuda.synchronize() calls, and reports:
  step_time_s          wall time per step (seconds; mean over the timed steps)
  samples_per_s        batch / step_time_s
  tokens_per_s         batch x sequence / step_time_s (language models)
  peak_allocated_B     torch.cuda.max_memory_allocated() over the timed and warm-up steps
                       (bytes; tensors only: no CUDA context, no allocator cache)
  peak_reserved_B      torch.cuda.max_memory_reserved() (bytes; the caching allocator's pool)
Data is synthetic (made on the GPU once): no loader, no H2D. Each case states its recipe in
`recipe` so that a gpuplan scenario can be written to the same facts.

Usage: python3 torch_steps.py --out FILE.json [--budget-s 300] [--only NAME,...] [--profile N]
Writes the JSON after every case, so a cut-off run keeps what it measured. A case that
fails records its error and the run goes on. Exit code 0 unless no case ran at all.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import traceback

import torch
import torch.nn.functional as F


class CaseTimeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise CaseTimeout("case ran past its time limit")


def gpu_state():
    """nvidia-smi's clocks, power and temperature now (strings as nvidia-smi prints them)."""
    query = "clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks.max.sm"
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        return dict(zip(query.split(","), [v.strip() for v in out.split(",")]))
    except Exception as exc:  # nvidia-smi missing or hung: say so, measure anyway
        return {"error": str(exc)}


# --profile N: after timing, N more steps run under torch.profiler and their kernels are
# summarised into LAST_PROFILE (kernel count, kernel time and GPU-busy time per step, the
# kernels that take most time). The profiler slows the host, so its steps are not timed.
PROFILE_STEPS = 0
LAST_PROFILE = None


def kernel_summary(trace_path, steps, top=25):
    """Summarises a Chrome trace of `steps` steps: per-step kernel count, summed kernel
    time (s), GPU-busy time (union of kernel intervals, s) and the `top` kernels by time."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel" and "dur" in e]
    launches = sum(1 for e in events if e.get("cat") == "cuda_runtime"
                   and "Launch" in e.get("name", ""))
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in kernels)
    busy, end = 0.0, None
    for a, b in spans:
        if end is None or a > end:
            busy += b - a
            end = b
        elif b > end:
            busy += b - end
            end = b
    by_name = {}
    for e in kernels:
        c = by_name.setdefault(e["name"][:120], [0, 0.0])
        c[0] += 1
        c[1] += e["dur"]
    ranked = sorted(by_name.items(), key=lambda kv: -kv[1][1])[:top]
    first = spans[0][0] if spans else 0.0
    last = max((b for _, b in spans), default=0.0)
    return {
        "profiled_steps": steps,
        "kernels_per_step": len(kernels) / steps,
        "launch_calls_per_step": launches / steps,
        "kernel_time_per_step_s": sum(e["dur"] for e in kernels) * 1e-6 / steps,
        "gpu_busy_per_step_s": busy * 1e-6 / steps,
        "first_to_last_kernel_per_step_s": (last - first) * 1e-6 / steps,
        "top_kernels": [{"name": n, "count_per_step": c / steps, "time_per_step_s": t * 1e-6 / steps}
                        for n, (c, t) in ranked],
    }


def time_steps(step, warmup, steps):
    """Runs `warmup` untimed then `steps` timed calls of step(); returns seconds per step.
    With PROFILE_STEPS > 0, then profiles that many more steps into LAST_PROFILE."""
    global LAST_PROFILE
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / steps
    if PROFILE_STEPS > 0:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(PROFILE_STEPS):
                step()
            torch.cuda.synchronize()
        path = "/tmp/torch_steps_trace.json"
        prof.export_chrome_trace(path)
        LAST_PROFILE = kernel_summary(path, PROFILE_STEPS)
        os.remove(path)
    return seconds


def run_vision(arch, batch, precision, channels_last, warmup=5, steps=20):
    import torchvision
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    model = getattr(torchvision.models, arch)().cuda()
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    model = model.to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    amp = precision in ("fp16_amp", "bf16_amp")
    dtype = torch.float16 if precision == "fp16_amp" else torch.bfloat16
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16_amp")

    def step():
        with torch.autocast("cuda", dtype=dtype, enabled=amp):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)

    t = time_steps(step, warmup, steps)
    return {"step_time_s": t, "samples_per_s": batch / t}


def run_bert_squad(batch, seq, attn, warmup=5, steps=20):
    from transformers import BertConfig, BertForQuestionAnswering
    torch.backends.cuda.matmul.allow_tf32 = False
    cfg = BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                     intermediate_size=4096, vocab_size=30522, max_position_embeddings=512,
                     attn_implementation=attn)
    model = BertForQuestionAnswering(cfg).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-5)
    scaler = torch.amp.GradScaler("cuda")
    ids = torch.randint(0, 30522, (batch, seq), device="cuda")
    start = torch.randint(0, seq, (batch,), device="cuda")
    end = torch.randint(0, seq, (batch,), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(input_ids=ids, start_positions=start, end_positions=end).loss
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)

    t = time_steps(step, warmup, steps)
    return {"step_time_s": t, "samples_per_s": batch / t, "tokens_per_s": batch * seq / t}


def run_gpt2(batch, seq, compiled, warmup=5, steps=20):
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=12, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024,
                     attn_implementation="sdpa")
    model = GPT2LMHeadModel(cfg).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1)
    fwd = torch.compile(model) if compiled else model
    ids = torch.randint(0, 50257, (batch, seq), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = fwd(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    t = time_steps(step, warmup + (3 if compiled else 0), steps)
    return {"step_time_s": t, "samples_per_s": batch / t, "tokens_per_s": batch * seq / t}


LLAMA = {
    "llama3.2-1b": dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32,
                        num_key_value_heads=8, intermediate_size=8192, vocab_size=128256,
                        tie_word_embeddings=True),
    "llama3-8b": dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=8, intermediate_size=14336, vocab_size=128256,
                      tie_word_embeddings=False),
}


def run_llama(name, batch, seq, mode, checkpointing, lora_rank=16, warmup=3, steps=10):
    """mode: bf16_amp (fp32 weights, autocast), bf16 (pure bf16 weights and AdamW state),
    lora (bf16 frozen base, peft LoRA on all linear layers, autocast)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(max_position_embeddings=max(seq, 8192), attn_implementation="sdpa",
                      use_cache=False, **LLAMA[name])
    init_dtype = torch.float32 if mode == "bf16_amp" else torch.bfloat16
    previous = torch.get_default_dtype()
    torch.set_default_dtype(init_dtype)
    try:
        with torch.device("cuda"):
            model = LlamaForCausalLM(cfg)
    finally:
        torch.set_default_dtype(previous)
    model.train()
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if mode == "lora":
        from peft import LoraConfig, get_peft_model
        if checkpointing:
            model.enable_input_require_grads()
        model = get_peft_model(model, LoraConfig(
            r=lora_rank, lora_alpha=2 * lora_rank, lora_dropout=0.0, task_type="CAUSAL_LM",
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))
    params = [p for p in model.parameters() if p.requires_grad]
    trainable = sum(p.numel() for p in params)
    adapter_dtype = str(params[0].dtype)
    opt = torch.optim.AdamW(params, lr=1e-4)
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
    amp = mode in ("bf16_amp", "lora")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    t = time_steps(step, warmup, steps)
    return {"step_time_s": t, "samples_per_s": batch / t, "tokens_per_s": batch * seq / t,
            "trainable_params": trainable, "trainable_dtype": adapter_dtype}


# name -> (function, kwargs, recipe in words, time limit s). Ordered by how much each
# case tells the model; the budget cuts from the end.
CASES = [
    ("resnet50_fp16amp_nhwc_b256", run_vision,
     dict(arch="resnet50", batch=256, precision="fp16_amp", channels_last=True),
     "torchvision resnet50, synthetic 224 px on the GPU, fp16 autocast + GradScaler, channels_last, "
     "SGD momentum 0.9, cross-entropy, cudnn.benchmark, eager", 120),
    ("gpt2_124m_bf16amp_b16", run_gpt2, dict(batch=16, seq=1024, compiled=False),
     "HF GPT2LMHeadModel 124M (dropout 0.1), sdpa attention, bf16 autocast (fp32 weights), "
     "torch AdamW (foreach), HF loss on all tokens, eager", 120),
    ("llama3.2-1b_bf16amp_b4_s2048", run_llama,
     dict(name="llama3.2-1b", batch=4, seq=2048, mode="bf16_amp", checkpointing=False),
     "HF LlamaForCausalLM Llama-3.2-1B shape, sdpa, bf16 autocast over fp32 weights, torch AdamW, "
     "no checkpointing, HF loss (fp32 logits), eager", 150),
    ("llama3-8b_lora16_b2_s2048_ckpt", run_llama,
     dict(name="llama3-8b", batch=2, seq=2048, mode="lora", checkpointing=True),
     "HF LlamaForCausalLM Llama-3-8B shape, bf16 frozen base, peft LoRA r16 alpha 32 on q,k,v,o,gate,up,down, "
     "bf16 autocast, gradient checkpointing (non-reentrant) every layer, torch AdamW on adapters, sdpa, eager", 180),
    ("resnet50_tf32_nchw_b256", run_vision,
     dict(arch="resnet50", batch=256, precision="tf32", channels_last=False),
     "torchvision resnet50, synthetic 224 px, fp32 weights with TF32 matmul/conv, NCHW, SGD momentum 0.9, eager", 120),
    ("bert_large_squad_fp16amp_b32_s384_eager", run_bert_squad, dict(batch=32, seq=384, attn="eager"),
     "HF BertForQuestionAnswering (bert-large shape, dropout 0.1), seq 384, fp16 autocast + GradScaler, "
     "torch AdamW, eager attention (no SDPA), eager", 120),
    ("bert_large_squad_fp16amp_b32_s384_sdpa", run_bert_squad, dict(batch=32, seq=384, attn="sdpa"),
     "as the eager-attention case with HF's sdpa attention", 120),
    ("llama3.2-1b_bf16amp_b4_s2048_ckpt", run_llama,
     dict(name="llama3.2-1b", batch=4, seq=2048, mode="bf16_amp", checkpointing=True),
     "as llama3.2-1b_bf16amp_b4_s2048 with gradient checkpointing (non-reentrant) every layer", 150),
    ("llama3-8b_bf16_b1_s4096_ckpt", run_llama,
     dict(name="llama3-8b", batch=1, seq=4096, mode="bf16", checkpointing=True),
     "HF Llama-3-8B shape, pure bf16 weights and gradients, torch AdamW (state in bf16, the "
     "parameters' dtype), gradient checkpointing every layer, sdpa, eager", 200),
    ("resnet50_fp16amp_nchw_b256", run_vision,
     dict(arch="resnet50", batch=256, precision="fp16_amp", channels_last=False),
     "as resnet50_fp16amp_nhwc_b256 in NCHW (no channels_last)", 120),
    ("vit_b_16_fp16amp_b128", run_vision,
     dict(arch="vit_b_16", batch=128, precision="fp16_amp", channels_last=False),
     "torchvision vit_b_16 (dropout 0), synthetic 224 px, fp16 autocast + GradScaler, SGD momentum 0.9, "
     "cross-entropy, eager", 120),
    ("llama3.2-1b_bf16_b4_s2048", run_llama,
     dict(name="llama3.2-1b", batch=4, seq=2048, mode="bf16", checkpointing=False),
     "as llama3.2-1b_bf16amp_b4_s2048 with pure bf16 weights, gradients and AdamW state (no autocast)", 150),
    ("gpt2_124m_bf16amp_b16_compiled", run_gpt2, dict(batch=16, seq=1024, compiled=True),
     "as gpt2_124m_bf16amp_b16 with torch.compile(model) (default mode)", 240),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=300.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--profile", type=int, default=0, help="steps to profile after timing (0: none)")
    args = ap.parse_args()
    global PROFILE_STEPS, LAST_PROFILE
    PROFILE_STEPS = args.profile
    only = set(filter(None, args.only.split(",")))
    props = torch.cuda.get_device_properties(0)
    result = {
        "format": "gpuplan-torch-steps/v1",
        "provenance": {
            "gpu": torch.cuda.get_device_name(0), "sms": props.multi_processor_count,
            "memory_B": props.total_memory, "torch": torch.__version__,
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "cases": [],
    }
    try:
        import transformers
        result["provenance"]["transformers"] = transformers.__version__
        import peft
        result["provenance"]["peft"] = peft.__version__
    except Exception:
        pass
    deadline = time.monotonic() + args.budget_s
    signal.signal(signal.SIGALRM, _alarm)
    ran = 0
    for name, fn, kwargs, recipe, limit_s in CASES:
        if only and name not in only:
            continue
        left = deadline - time.monotonic()
        if left < 20:
            result["cases"].append({"name": name, "skipped": "out of budget"})
            continue
        entry = {"name": name, "recipe": recipe, "args": kwargs}
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        begin = time.monotonic()
        signal.alarm(int(min(limit_s, left)))
        LAST_PROFILE = None
        try:
            entry.update(fn(**kwargs))
            if LAST_PROFILE is not None:
                entry["profile"] = LAST_PROFILE
            entry["peak_allocated_B"] = torch.cuda.max_memory_allocated()
            entry["peak_reserved_B"] = torch.cuda.max_memory_reserved()
            ran += 1
        except torch.cuda.OutOfMemoryError as exc:
            entry["oom"] = str(exc).splitlines()[0]
        except BaseException as exc:  # a failing case is recorded; the others still run
            entry["error"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            entry["traceback"] = traceback.format_exc()[-2000:]
        finally:
            signal.alarm(0)
        entry["gpu_state_after"] = gpu_state()
        entry["wall_s"] = time.monotonic() - begin
        print(json.dumps({k: v for k, v in entry.items() if k not in ("traceback", "profile")}), flush=True)
        result["cases"].append(entry)
        # Free the case's model before the next one.
        import gc
        gc.collect()
        torch.cuda.empty_cache()
        with open(args.out + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(args.out + ".tmp", args.out)
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())
