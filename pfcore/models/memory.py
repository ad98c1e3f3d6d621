"""Keep freed tensor memory inside the process (Linux, glibc). By default glibc hands every
allocation over 32 MiB to a fresh mmap that the kernel zero-fills on first touch and unmaps on
free; a forward pass over 6,144 tokens makes such buffers in every layer. PyTorch's CPU tuning
guide suggests a caching allocator (jemalloc, tcmalloc) for the same reason; this gets the
effect without preloading one. Numbers are unchanged. The cap matters: at 1 GiB, freed blocks of
many sizes fragmented the heap until a full suite ran out of memory (24 GB); at 256 MiB the
process stayed at 1.5 GB."""
from __future__ import annotations

import ctypes
import functools
import sys
from typing import Any

M_TRIM_THRESHOLD = -1  # mallopt parameter ids from glibc's malloc.h
M_MMAP_THRESHOLD = -3
HEAP_BYTES = 256 << 20  # allocations up to 256 MiB come from the heap; up to 512 MiB free is kept


@functools.cache
def keep_freed_memory() -> bool:
    """Ask glibc to serve large allocations from its heap and keep freed memory for reuse
    (once per process); False where that is not possible (not Linux, or another C library)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, HEAP_BYTES)) and \
        bool(libc.mallopt(M_TRIM_THRESHOLD, 2 * HEAP_BYTES))


HEADROOM = 1.5  # a second model is loaded beside the first only when 1.5 times its weights are free


def weights_bytes(model: Any) -> int:
    """The bytes a loaded model's parameters and buffers take."""
    tensors = [*model.parameters(), *model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def free_bytes(device: str) -> int:
    """Memory free now where a model would load: the GPU's (torch's count) for a CUDA device, the
    machine's available memory for the CPU."""
    if device.startswith("cuda"):
        import torch

        return int(torch.cuda.mem_get_info(torch.device(device))[0])
    import psutil

    return int(psutil.virtual_memory().available)


def room_beside(model: Any, device: str) -> bool:
    """Whether another model of the same size fits beside this one now (with HEADROOM to spare for
    the scoring's own buffers): the memory budget a trajectory checks before it loads its next
    checkpoint while scoring this one."""
    return free_bytes(device) >= HEADROOM * weights_bytes(model)
