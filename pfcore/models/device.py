"""Where a model computes and how exactly: TF32 off wherever pfcore scores (its float32 numbers must
be float32's on every device), and a causal model's layers placed across the GPUs when it is given
"cuda" (all of them) through accelerate's layer map."""
from __future__ import annotations


def exact_float32() -> None:
    """Turn TF32 off for CUDA matrix products and cuDNN, explicitly: on a GPU that has it, TF32 moves a
    float32 model's sums by up to 2.1 nats (measured on one H200, 2026-12-04), which changes decisions."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


SHARE = 0.85  # of each device's free memory that layers may take (the rest: the scoring's own buffers)


SPREAD = ("AutoModelForCausalLM",)  # the auto classes whose scorer follows its outputs across devices


def layer_map_kwargs(device: str, auto_class: str = SPREAD[0]) -> dict[str, object]:
    """from_pretrained keywords that place a causal model's layers across the GPUs through accelerate,
    when the device is "cuda" (all of them, as `--device auto` gives it) and torch sees one: layers
    fill GPU 0, then GPU 1 and so on ("sequential"), each within SHARE of its free memory, and beyond
    them the CPU's; a model that fits GPU 0 stays whole on it. {} for any other device ("cpu",
    "cuda:N") or kind of model (a masked model loads whole on one device)."""
    if device != "cuda" or auto_class not in SPREAD:
        return {}
    import psutil
    import torch

    if not torch.cuda.is_available():
        return {}

    budget: dict[int | str, int] = {i: int(SHARE * torch.cuda.mem_get_info(i)[0])
                                    for i in range(torch.cuda.device_count())}
    budget["cpu"] = int(SHARE * psutil.virtual_memory().available)
    return {"device_map": "sequential", "max_memory": budget}


def placed_on(model: object) -> set[str]:
    """The devices a model's layers were placed on by a layer map (empty when none was used)."""
    layer_map = getattr(model, "hf_device_map", None) or {}
    return {str(d) for d in layer_map.values()}
