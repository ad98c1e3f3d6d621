"""Builders for tiny, randomly initialised language models used by the tests (no network)."""
from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    BertTokenizerFast,
    GPT2Config,
    GPT2LMHeadModel,
    GPT2TokenizerFast,
    LlamaConfig,
    LlamaForCausalLM,
    LlamaTokenizerFast,
    PreTrainedTokenizerFast,
    RobertaConfig,
    RobertaForMaskedLM,
    RobertaTokenizerFast,
)

CORPUS = [
    "You couldn't lift a tiny rock, let alone a huge one.",
    "We can't sing an ugly song, much less a beautiful one.",
    "They weren't able to see a dim lamp, not to mention a bright one.",
    "I couldn't write a bad poem, never mind a good one.",
    "Lifting a tiny rock is easier than lifting a huge rock.",
    "Singing a beautiful song is harder than singing an ugly song.",
    "He doesn't like shrimp, let alone squid, or crab, and fish.",
    "The cat sat on the mat. The dogs were barking at the mailman.",
    "A small cheap car and an expensive big house were for sale.",
    "Picking up a light box is easier than picking up a heavy box.",
    "Who did you see? She has eaten the cake that we made yesterday.",
]


def _corpus(repeat: int = 20) -> list[str]:
    """The training corpus, repeated so that merges reach the common words."""
    return CORPUS * repeat


def build_gpt2(out: Path, n_layer: int = 2, seed: int = 0) -> Path:
    """Save a 2-layer GPT-2 with a byte-level BPE tokenizer trained on CORPUS to `out`."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_corpus(), trainer)
    hf_tok = GPT2TokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>",
                               eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(hf_tok), n_positions=256, n_embd=32, n_layer=n_layer,
                        n_head=2, bos_token_id=hf_tok.bos_token_id, eos_token_id=hf_tok.eos_token_id)
    model = GPT2LMHeadModel(config).eval()
    model.save_pretrained(out)
    hf_tok.save_pretrained(out)
    return out


def build_llama(out: Path, seed: int = 0) -> Path:
    """Save a 2-layer Llama shaped like the converted default model (tied output layer, grouped-query
    attention, byte-level BPE tokenizer with BOS and EOS but no BOS added) to `out`."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(_corpus(), trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<unk>", "<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    hf_tok = LlamaTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                pad_token="</s>", add_bos_token=False, add_eos_token=False, legacy=True)
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(hf_tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         tie_word_embeddings=True, bos_token_id=hf_tok.bos_token_id,
                         eos_token_id=hf_tok.eos_token_id, pad_token_id=hf_tok.pad_token_id)
    LlamaForCausalLM(config).eval().save_pretrained(out)
    hf_tok.save_pretrained(out)
    return out


def by_auto_classes(folder: Path) -> tuple[torch.nn.Module, PreTrainedTokenizerFast]:
    """A causal model folder's model and tokenizer as transformers' Auto* classes load them (float32,
    safetensors): what minicons takes, and what pfcore's own loading of the embedded model is held to."""
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, use_safetensors=True).eval()
    return model, AutoTokenizer.from_pretrained(folder)


def _wordpiece_vocab(special: list[str]) -> dict[str, int]:
    """A fixed WordPiece vocabulary: specials, every character (plain and ##), every corpus word.
    Built, not trained, so that every test session gets the same ids."""
    pre = pre_tokenizers.BertPreTokenizer()
    norm = normalizers.BertNormalizer(lowercase=True)
    words = sorted({w for text in CORPUS for w, _ in pre.pre_tokenize_str(norm.normalize_str(text))})
    chars = sorted({c for w in words for c in w})
    tokens = special + chars + [f"##{c}" for c in chars] + [w for w in words if len(w) > 1]
    return {t: i for i, t in enumerate(dict.fromkeys(tokens))}


def build_bert(out: Path, seed: int = 0) -> Path:
    """Save a 2-layer BERT masked LM with a WordPiece tokenizer over CORPUS's words to `out`."""
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(vocab=_wordpiece_vocab(special), unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.add_special_tokens(special)
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    hf_tok = BertTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", sep_token="[SEP]",
                               pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]")
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(hf_tok), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=256,
                        pad_token_id=hf_tok.pad_token_id)
    BertForMaskedLM(config).eval().save_pretrained(out)
    hf_tok.save_pretrained(out)
    return out


def build_roberta(out: Path, seed: int = 0) -> Path:
    """Save a 2-layer RoBERTa masked LM with a byte-level BPE tokenizer trained on CORPUS to `out`."""
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(_corpus(), trainers.BpeTrainer(
        vocab_size=400, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")))
    hf_tok = RobertaTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                  sep_token="</s>", cls_token="<s>", unk_token="<unk>",
                                  pad_token="<pad>", mask_token="<mask>")
    torch.manual_seed(seed)
    config = RobertaConfig(vocab_size=len(hf_tok), hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=2, intermediate_size=64, max_position_embeddings=260,
                           pad_token_id=hf_tok.pad_token_id, bos_token_id=hf_tok.bos_token_id,
                           eos_token_id=hf_tok.eos_token_id, type_vocab_size=1)
    RobertaForMaskedLM(config).eval().save_pretrained(out)
    hf_tok.save_pretrained(out)
    return out


def build_checkpoint_series(out: Path, steps: tuple[int, ...] = (0, 8, 32)) -> Path:
    """Train the tiny GPT-2 on CORPUS and save it at several steps as out/step<N> (a real series)."""
    base = build_gpt2(out / "_base")
    tok = GPT2TokenizerFast.from_pretrained(base)
    model = GPT2LMHeadModel.from_pretrained(base)
    ids = [torch.tensor(tok(s)["input_ids"]) for s in CORPUS]
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(max(steps) + 1):
        if step in steps:
            model.eval()
            model.save_pretrained(out / f"step{step}")
            tok.save_pretrained(out / f"step{step}")
            model.train()
        seq = ids[step % len(ids)].unsqueeze(0)
        loss = model(input_ids=seq, labels=seq).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return out
