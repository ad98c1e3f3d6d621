"""Where a model computes and how exactly: TF32 off wherever pfcore scores (its float32 numbers must
be float32's on every device)."""
from __future__ import annotations


def exact_float32() -> None:
    """Turn TF32 off for CUDA matrix products and cuDNN, explicitly: on a GPU that has it, TF32 moves a
    float32 model's sums by up to 2.1 nats (measured on one H200, 2026-12-04), which changes decisions."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
