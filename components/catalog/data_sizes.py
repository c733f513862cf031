"""One data-size model for the bucket: what `check` (the spend-limit policy) and `compare` price.

bucket GB = dataset + starting weights + the final checkpoint written back
  dataset          train_tokens x 4 B (about 4 bytes of raw text per BPE token; an upper bound,
                   since train_tokens counts repeated epochs)
  starting weights params x 2 B (a 16-bit checkpoint)
  final checkpoint params x 2 B for full training; a LoRA/QLoRA run writes back only its
                   adapter (well under 1% of the weights), which is not counted here

The components put the figure on every resource as the `trainstack:data-mb` tag, so the policy
pack (which sees resources, not the spec) prices the same bucket as `compare`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

BYTES_PER_TOKEN = 4
BYTES_PER_WEIGHT = 2
DATA_MB_TAG = "trainstack:data-mb"  # whole MB: GCP label values allow no decimal point


@dataclass(frozen=True)
class DataSizes:
    dataset_gb: float
    model_gb: float
    checkpoint_gb: float

    @property
    def bucket_gb(self) -> float:
        return self.dataset_gb + self.model_gb + self.checkpoint_gb

    def note(self) -> str:
        parts = [f"dataset (train_tokens x {BYTES_PER_TOKEN} B = {self.dataset_gb:,.2f} GB)",
                 f"starting weights (params x {BYTES_PER_WEIGHT} B = {self.model_gb:,.2f} GB)"]
        parts.append(f"final checkpoint ({self.checkpoint_gb:,.2f} GB)" if self.checkpoint_gb
                     else "final checkpoint (adapter only, not counted)")
        return " + ".join(parts)


def data_sizes(params: float, train_tokens: Optional[float], method: str) -> DataSizes:
    tokens = train_tokens or 0.0
    model = params * BYTES_PER_WEIGHT / 1e9
    return DataSizes(tokens * BYTES_PER_TOKEN / 1e9, model, model if method == "full" else 0.0)


def data_mb_tag(params: Optional[float], train_tokens: Optional[float], method: str) -> Optional[str]:
    """The tag value (whole MB, rounded up), or None without a workload."""
    if not params:
        return None
    return str(max(1, math.ceil(data_sizes(params, train_tokens, method).bucket_gb * 1000)))
