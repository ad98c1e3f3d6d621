"""The embedded model's architecture, Llama, in plain torch: the operations of transformers'
LlamaForCausalLM with its default (sdpa) attention, in the same order, so that the logits are equal
to the bit (tests compare them), built without importing transformers, whose import (3 to 4 s on a
2-core machine) a class server's start would otherwise wait for. Only what pfcore's causal scorer
calls is here: a forward pass with no mask, a 2-D padding mask, or a 4-D additive mask with position
ids; the body and the output layer apart; the config fields the scorer reads."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn import functional

from pfcore.errors import ModelLoadError

ARCHITECTURE = "LlamaForCausalLM"


class NotPlainLlama(ModelLoadError):
    """A config this module would not compute as transformers does: the model loads through transformers."""


@dataclass(frozen=True)
class LlamaConfig:
    """The fields of a Llama config.json this module needs (and the scorer reads: vocab_size,
    max_position_embeddings, model_type)."""

    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    rms_norm_eps: float
    rope_theta: float
    max_position_embeddings: int
    tie_word_embeddings: bool
    model_type: str = "llama"

    @classmethod
    def read(cls, folder: Path) -> LlamaConfig:
        """The config of a converted folder; ModelLoadError when it is not a plain Llama this module
        computes exactly as transformers does (another rope, activation, bias or head split)."""
        raw: dict[str, Any] = json.loads((folder / "config.json").read_text())
        plain = {"architectures": [ARCHITECTURE], "hidden_act": "silu", "rope_scaling": None, "attention_bias": False,
                 "mlp_bias": False, "pretraining_tp": 1}
        differs = sorted(key for key, value in plain.items() if raw.get(key, value) != value)
        if differs:
            raise NotPlainLlama(f"{folder} is not a plain Llama model (its {', '.join(differs)} differ)")
        heads = int(raw["num_attention_heads"])
        return cls(vocab_size=int(raw["vocab_size"]), hidden_size=int(raw["hidden_size"]),
                   intermediate_size=int(raw["intermediate_size"]), num_hidden_layers=int(raw["num_hidden_layers"]),
                   num_attention_heads=heads, num_key_value_heads=int(raw.get("num_key_value_heads") or heads),
                   head_dim=int(raw.get("head_dim") or int(raw["hidden_size"]) // heads),
                   rms_norm_eps=float(raw.get("rms_norm_eps", 1e-6)), rope_theta=float(raw.get("rope_theta", 10000.0)),
                   max_position_embeddings=int(raw.get("max_position_embeddings", 2048)),
                   tie_word_embeddings=bool(raw.get("tie_word_embeddings", False)))


@dataclass(frozen=True)
class BodyOutput:
    """What the body returns (named as transformers names it)."""

    last_hidden_state: torch.Tensor


@dataclass(frozen=True)
class LMOutput:
    """What the language model returns (named as transformers names it)."""

    logits: torch.Tensor


def _unset(*shape: int) -> nn.Parameter:
    """A weight of this shape, not initialised: the safetensors replace it (an initialisation would cost
    time, and on torch's meta device it imports torch._dynamo, some 3 s)."""
    return nn.Parameter(torch.empty(*shape, device="cpu"), requires_grad=False)


class Linear(nn.Module):
    """A linear layer without bias (torch's, computed the same way)."""

    def __init__(self, size_in: int, size_out: int) -> None:
        super().__init__()
        self.weight = _unset(size_out, size_in)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x times the weight's transpose."""
        return functional.linear(x, self.weight)


class Embedding(nn.Module):
    """The token embeddings (torch's lookup)."""

    def __init__(self, count: int, size: int) -> None:
        super().__init__()
        self.weight = _unset(count, size)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Each id's row."""
        return functional.embedding(ids, self.weight)


class RMSNorm(nn.Module):
    """Root-mean-square norm, computed in float32."""

    def __init__(self, size: int, eps: float) -> None:
        super().__init__()
        self.weight = _unset(size)
        self.eps = eps

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        """Normalise the last dimension, then scale."""
        dtype = hidden.dtype
        hidden = hidden.to(torch.float32)
        variance = hidden.pow(2).mean(-1, keepdim=True)
        hidden = hidden * torch.rsqrt(variance + self.eps)
        return self.weight * hidden.to(dtype)


def rope_frequencies(config: LlamaConfig) -> torch.Tensor:
    """The default rotary embedding's inverse frequencies."""
    steps = torch.arange(0, config.head_dim, 2, dtype=torch.int64).to(dtype=torch.float)
    return 1.0 / (config.rope_theta ** (steps / config.head_dim))


def rotary(inv_freq: torch.Tensor, hidden: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of each position's angles, in float32, then in the hidden states' dtype."""
    expanded = inv_freq[None, :, None].float().expand(positions.shape[0], -1, 1).to(hidden.device)
    freqs = (expanded.float() @ positions[:, None, :].float()).transpose(1, 2)
    angles = torch.cat((freqs, freqs), dim=-1)
    return angles.cos().to(dtype=hidden.dtype), angles.sin().to(dtype=hidden.dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """The second half of the last dimension, negated, before the first."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def repeat_kv(states: torch.Tensor, times: int) -> torch.Tensor:
    """Each key/value head repeated for the query heads that share it (grouped-query attention)."""
    batch, heads, length, size = states.shape
    if times == 1:
        return states
    expanded = states[:, :, None, :, :].expand(batch, heads, times, length, size)
    return expanded.reshape(batch, heads * times, length, size)


@dataclass(frozen=True)
class AttentionMask:
    """The mask every layer's attention takes: a tensor (None: causal by sdpa's own flag)."""

    mask: torch.Tensor | None
    is_causal: bool


def build_mask(given: torch.Tensor | None, positions: torch.Tensor, length: int) -> AttentionMask:
    """The mask transformers' sdpa path builds: a 4-D mask as given; a 2-D padding mask with no padding
    becomes sdpa's causal flag; otherwise a boolean 4-D mask, causal and padded (a 2-D mask) or
    causal within each run of consecutive positions (no mask)."""
    if given is not None and given.ndim == 4:
        return AttentionMask(given[:, :, :, :length], False)
    query = torch.arange(length, device=positions.device)
    causal = query[None, None, None, :] <= query[None, None, :, None]
    if given is not None:
        padding = given.to(dtype=torch.bool)
        if bool(padding.all()):
            return AttentionMask(None, length > 1)
        return AttentionMask(causal & padding[:, None, None, :length], False)
    runs = (torch.diff(positions, prepend=positions[:, :1] - 1, dim=-1) != 1).cumsum(-1)
    return AttentionMask(causal & (runs[:, None, :, None] == runs[:, None, None, :]), False)


class Attention(nn.Module):
    """Grouped-query self-attention with rotary positions."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.head_dim, self.groups = config.head_dim, config.num_attention_heads // config.num_key_value_heads
        self.q_proj = Linear(config.hidden_size, config.num_attention_heads * config.head_dim)
        self.k_proj = Linear(config.hidden_size, config.num_key_value_heads * config.head_dim)
        self.v_proj = Linear(config.hidden_size, config.num_key_value_heads * config.head_dim)
        self.o_proj = Linear(config.num_attention_heads * config.head_dim, config.hidden_size)

    def forward(self, hidden: torch.Tensor, angles: tuple[torch.Tensor, torch.Tensor],
                mask: AttentionMask) -> torch.Tensor:
        """Attend each position to those the mask allows."""
        shape = (*hidden.shape[:-1], -1, self.head_dim)
        query = self.q_proj(hidden).view(shape).transpose(1, 2)
        key = self.k_proj(hidden).view(shape).transpose(1, 2)
        value = self.v_proj(hidden).view(shape).transpose(1, 2)
        cos, sin = (a.unsqueeze(1) for a in angles)
        query, key = (query * cos) + (rotate_half(query) * sin), (key * cos) + (rotate_half(key) * sin)
        if mask.mask is None:
            out = functional.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                                          scale=self.head_dim ** -0.5, is_causal=mask.is_causal,
                                                          enable_gqa=True)
        else:
            out = functional.scaled_dot_product_attention(
                query, repeat_kv(key, self.groups), repeat_kv(value, self.groups), attn_mask=mask.mask,
                dropout_p=0.0, scale=self.head_dim ** -0.5, is_causal=False)
        out = out.transpose(1, 2).contiguous()
        return self.o_proj(out.reshape(*hidden.shape[:-1], -1).contiguous())


class MLP(nn.Module):
    """The gated (SwiGLU) feed-forward block."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.gate_proj = Linear(config.hidden_size, config.intermediate_size)
        self.up_proj = Linear(config.hidden_size, config.intermediate_size)
        self.down_proj = Linear(config.intermediate_size, config.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """silu(gate) * up, projected down."""
        return self.down_proj(functional.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    """Pre-norm attention, then pre-norm feed-forward, each added to its input."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.self_attn = Attention(config)
        self.mlp = MLP(config)
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, hidden: torch.Tensor, angles: tuple[torch.Tensor, torch.Tensor],
                mask: AttentionMask) -> torch.Tensor:
        """One layer."""
        hidden = hidden + self.self_attn(self.input_layernorm(hidden), angles, mask)
        return hidden + self.mlp(self.post_attention_layernorm(hidden))


class LlamaBody(nn.Module):
    """Embeddings, the decoder layers and the final norm: the last hidden states."""

    inv_freq: torch.Tensor

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.embed_tokens = Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.register_buffer("inv_freq", rope_frequencies(config), persistent=False)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                position_ids: torch.Tensor | None = None, use_cache: bool = False) -> BodyOutput:
        """The last hidden states of a batch (no key-value cache: `use_cache` must be false)."""
        if use_cache:
            raise ValueError("this model keeps no key-value cache")
        hidden = self.embed_tokens(input_ids)
        if position_ids is None:
            position_ids = torch.arange(hidden.shape[1], device=hidden.device).unsqueeze(0)
        mask = build_mask(attention_mask, position_ids, hidden.shape[1])
        angles = rotary(self.inv_freq, hidden, position_ids)
        for layer in self.layers:
            hidden = layer(hidden, angles, mask)
        return BodyOutput(self.norm(hidden))


class LlamaLM(nn.Module):
    """A Llama causal language model: the body and its output layer (tied to the embeddings when
    the config says so), with the attributes pfcore's scorer reads of a transformers model."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.config = config
        self.model = LlamaBody(config)
        self.lm_head = Linear(config.hidden_size, config.vocab_size)

    @property
    def base_model(self) -> LlamaBody:
        """The body (the model without its output layer)."""
        return self.model

    def get_output_embeddings(self) -> Linear:
        """The output layer."""
        return self.lm_head

    @property
    def device(self) -> torch.device:
        """Where the weights are."""
        return self.lm_head.weight.device

    @property
    def dtype(self) -> torch.dtype:
        """The weights' dtype."""
        return self.lm_head.weight.dtype

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                position_ids: torch.Tensor | None = None, use_cache: bool = False) -> LMOutput:
        """Logits at every position."""
        return LMOutput(self.lm_head(self.model(input_ids, attention_mask, position_ids, use_cache).last_hidden_state))


def load_llama(folder: Path) -> LlamaLM:
    """The model of a converted folder (config.json, model.safetensors): built with no weights
    initialised, the safetensors assigned as they are (memory-mapped), the output layer tied when the
    config says."""
    from safetensors.torch import load_file

    config = LlamaConfig.read(folder)
    model = LlamaLM(config)
    found = model.load_state_dict(load_file(folder / "model.safetensors"), strict=False, assign=True)
    tied = {"lm_head.weight"} if config.tie_word_embeddings else set()
    if found.unexpected_keys or set(found.missing_keys) != tied:
        raise ModelLoadError(f"{folder}/model.safetensors does not hold this model's weights "
                             f"(missing {sorted(set(found.missing_keys) - tied)}, unexpected "
                             f"{sorted(found.unexpected_keys)}); delete the folder to convert it again")
    if config.tie_word_embeddings:
        model.lm_head.weight = model.model.embed_tokens.weight
    return model.eval()
