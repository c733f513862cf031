"""Sizing, time and cost arithmetic behind `trainstack estimate` and `compare` (issue 5).

Three seams, one module each: memory (components/memory.py, used by the instance-type
selection too), time (trainstack/cost/sizing_time.py) and cost (trainstack/cost/sizing_cost.py). This
module is the one-call `estimate()` and re-exports all three, so `from trainstack import sizing`
keeps working.

Pure functions: no Pulumi, no file reads. GPU figures and prices come in as arguments (the
catalog supplies them; see components/catalog/gpu_models.py), so every number here can be checked
by hand. Units: bytes, FLOPs, hours, and whatever currency the prices are in.

Sources for the formulas (cited again where used):
  [ZeRO]   Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion
           Parameter Models", sec. 3.1 and Fig. 1: mixed-precision Adam keeps 2 B fp16 weights,
           2 B fp16 gradients and K = 12 B of fp32 state (master weights, momentum, variance)
           per parameter; stage 1 partitions the optimizer state over the Nd data-parallel
           GPUs, stage 2 also the gradients, stage 3 also the weights.
  [LoRA]   Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models", sec. 4.
  [QLoRA]  Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs", sec. 3
           (NF4, blocksize 64; double quantization: 0.127 bits/param of constants).
  [Act]    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
           Models", sec. 4, eq. (1) and Table 2 (tensor parallel size t = 1); with fused
           attention (PyTorch SDPA, the default) the 5as/h term is not stored (components/
           memory.py ATTENTION_KINDS cites the PyTorch scaled_dot_product_attention docs).
  [Kaplan] Kaplan et al. 2020, "Scaling Laws for Neural Language Models", sec. 2.1:
           training compute C = 6 N T; non-embedding N = 12 n_layer d_model^2.
  [PaLM]   Chowdhery et al. 2022, appendix B: MFU counts model FLOPs only (so activation
           recomputation lowers the achieved MFU, it does not add FLOPs here).
  [LLaMA]  Touvron et al. 2023, "LLaMA: Open and Efficient Foundation Language Models",
           Table 2; Llama 2 70B: meta-llama/Llama-2-70b-hf config.json.
  [Seed]   the users' article on choosing a cloud for LLM fine-tuning (Chinese; it is not in
           the repository), sec. 3.1 and 3.3: utilisation about 0.4, idle/debug overhead.
"""
from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any, Optional

from trainstack.cost.estimate_records import GpuFit, SizingEstimate, WorkloadEcho
from trainstack.cost.sizing_cost import *  # noqa: F401,F403
from trainstack.cost.sizing_cost import _price  # noqa: F401
from trainstack.cost.sizing_time import *  # noqa: F401,F403
from trainstack.cost.sizing_time import default_scaling_efficiency, training_flops, training_hours
from trainstack_components.memory import *  # noqa: F401,F403
from trainstack_components.memory import (  # noqa: F401  (private helpers callers use)
    _ACTIVATION_SCALE,
    _STATE_BYTES,
    DEFAULT_HEADROOM,
    DEFAULT_MFU,
    PRECISIONS,
    SizingError,
    Workload,
    _in_range,
    _normalise_recompute,
    _positive_int,
    check_headroom,
    check_mfu,
    check_scaling_efficiency,
    estimate_memory,
    fits,
    min_gpus_that_fit,
    no_fit_reason,
)

# --------------------------------------------------------------------------- one-call estimate

def estimate(workload: Workload, tokens: Optional[float], *, gpu: Any = None,
             gpu_models: Optional[dict] = None, peak_tflops: Optional[float] = None,
             mfu: float = DEFAULT_MFU, flops_factor: Optional[float] = None,
             scaling_efficiency: Optional[float] = None, gpus_per_node: int = 8,
             fabric: str = "rdma", headroom: float = DEFAULT_HEADROOM) -> SizingEstimate:
    """Memory per GPU, the fit, FLOPs and hours (what `trainstack estimate` prints, less the
    price and cost).

    `gpu` is a GPU model (trainstack_components.catalog.gpu_models.GpuModel or anything with .name,
    .memory_bytes and .peak_tflops(precision)) or its catalog name; `gpu_models` is the table
    used for the per-model fit check (loaded from the catalog when omitted).
    """
    if gpu_models is None or isinstance(gpu, str):
        from trainstack_components.catalog import (
            gpu_models as gpu_catalog,  # lazy: keeps this module free of file reads
        )
        gpu_models = gpu_catalog.load_gpu_models() if gpu_models is None else gpu_models
        if isinstance(gpu, str):
            gpu = gpu_catalog.get_gpu_model(gpu, gpu_models)
    w = workload
    check_headroom(headroom)
    _positive_int("gpus_per_node", gpus_per_node, 1024)
    mem = estimate_memory(w)
    # Without tokens the question is memory only: FLOPs and hours stay empty.
    flops = None if tokens is None else training_flops(w.n_params, tokens, w.method, flops_factor)
    nodes = math.ceil(w.gpus / gpus_per_node)
    eff = (default_scaling_efficiency(nodes, fabric) if scaling_efficiency is None
           else check_scaling_efficiency(scaling_efficiency))
    check_mfu(mfu)

    result = SizingEstimate(
        workload=WorkloadEcho(
            # as given (an int stays an int in the JSON); __post_init__ filled in a preset's
            params=w.params if w.params is not None else w.n_params, method=w.method,
            precision=w.precision, zero_stage=w.zero_stage,
            gpus=w.gpus, seq_len=w.seq_len, micro_batch=w.micro_batch, recompute=w.recompute,
            lora_rank=w.lora_rank if w.method != "full" else None, attention=w.attention,
            adapter_params=w.adapter_params, shape=asdict(w.shape), tokens=tokens),
        per_gpu_bytes=mem.as_dict(), headroom=headroom, mfu=mfu, nodes=nodes,
        gpus_per_node=gpus_per_node, fabric=fabric, scaling_efficiency=eff,
        training_flops=flops,
        flops_factor=None if flops is None or tokens is None else flops / (w.n_params * tokens))
    for name, model in gpu_models.items():
        result.fits_by_gpu[name] = GpuFit(memory_gb=model.memory_gb,
                                          fits=fits(mem, model.memory_bytes, headroom),
                                          min_gpus=min_gpus_that_fit(w, model.memory_bytes,
                                                                     headroom))
    if gpu is not None:
        result.gpu = gpu.name
        result.gpu_memory_bytes = gpu.memory_bytes
        result.fits = fits(mem, gpu.memory_bytes, headroom)
        result.min_gpus = min_gpus_that_fit(w, gpu.memory_bytes, headroom)
        if result.min_gpus is None:
            result.min_gpus_note = no_fit_reason(w, gpu.memory_bytes, headroom)
    if peak_tflops is not None:
        result.peak_tflops, result.peak_source = peak_tflops, "override"
    elif gpu is not None and gpu.peak_tflops(w.precision) is not None:
        result.peak_tflops, result.peak_source = gpu.peak_tflops(w.precision), "datasheet"
    if flops is None:
        result.hours_note = "no tokens given (--tokens): memory only, no FLOPs or hours."
    elif result.peak_tflops is None:
        result.hours_note = (f"no dense {w.precision} peak for "
                             f"{gpu.name if gpu is not None else 'an unnamed GPU'}; "
                             f"pass --gpu with a datasheet figure or --peak-tflops.")
    else:
        result.hours = training_hours(flops, w.gpus, result.peak_tflops, mfu, eff)
    return result
