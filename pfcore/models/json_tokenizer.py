"""A fast tokenizer read from a folder's tokenizer.json by the `tokenizers` library alone, answering
the part of transformers' fast-tokenizer API that pfcore's causal scorer calls (encode with offsets,
decode, special ids) as transformers answers it: the same backend, the same files, the same
clean-up of decoded text. It spares the app's start the import of transformers (tests compare the
two on every token and on the shipped items)."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

SPECIAL = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
NO_LIMIT = int(1e30)  # transformers' model_max_length when the config gives none
CLEAN_UPS = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
             (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))  # transformers' clean_up_tokenization


def _content(token: Any) -> str | None:
    """A special token's text, written as a string or as an added-token mapping."""
    return token.get("content") if isinstance(token, dict) else token


class JsonTokenizer:
    """tokenizer.json with its tokenizer_config.json and special_tokens_map.json: the special tokens
    (bos, eos, pad, unk) and their ids, as transformers reads them."""

    is_fast = True

    def __init__(self, folder: Path) -> None:
        self.backend = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.backend.no_padding()
        self.backend.no_truncation()
        settings = _json(folder / "special_tokens_map.json") | _json(folder / "tokenizer_config.json")
        special = {name: _content(settings.get(name)) for name in SPECIAL}
        self.bos_token, self.eos_token = special["bos_token"], special["eos_token"]
        self.pad_token, self.unk_token = special["pad_token"], special["unk_token"]
        self.bos_token_id, self.eos_token_id = self._id(self.bos_token), self._id(self.eos_token)
        self.pad_token_id, self.unk_token_id = self._id(self.pad_token), self._id(self.unk_token)
        extra = [_content(t) for t in settings.get("additional_special_tokens") or []]
        self.all_special_ids = [self.backend.token_to_id(t) for t in
                                dict.fromkeys(t for t in [*special.values(), *extra] if t)]
        self.model_max_length = int(settings.get("model_max_length") or NO_LIMIT)
        self.clean_up_tokenization_spaces = bool(settings.get("clean_up_tokenization_spaces", False))

    def _id(self, token: str | None) -> int | None:
        """A special token's id (None when the tokenizer has no such token)."""
        return None if token is None else self.backend.token_to_id(token)

    def __len__(self) -> int:
        """The vocabulary with its added tokens."""
        return int(self.backend.get_vocab_size(with_added_tokens=True))

    def __call__(self, text: str | Sequence[str], *, add_special_tokens: bool = True,
                 return_offsets_mapping: bool = False) -> dict[str, list[Any]]:
        """Token ids (and character offsets) of one text, or of each of several."""
        many = not isinstance(text, str)
        encode = self.backend.encode_batch if return_offsets_mapping else self.backend.encode_batch_fast  # no offsets
        encodings = encode(list(text) if many else [text], add_special_tokens=add_special_tokens)
        found: dict[str, list[Any]] = {"input_ids": [e.ids for e in encodings],
                                       "attention_mask": [e.attention_mask for e in encodings]}
        if return_offsets_mapping:
            found["offset_mapping"] = [e.offsets for e in encodings]
        return found if many else {key: value[0] for key, value in found.items()}

    def decode(self, ids: Sequence[int], *, skip_special_tokens: bool = False,
               clean_up_tokenization_spaces: bool | None = None) -> str:
        """The text of token ids, cleaned up as the config says (unless told otherwise)."""
        return self.batch_decode([ids], skip_special_tokens=skip_special_tokens,
                                 clean_up_tokenization_spaces=clean_up_tokenization_spaces)[0]

    def batch_decode(self, sequences: Sequence[Sequence[int]], *, skip_special_tokens: bool = False,
                     clean_up_tokenization_spaces: bool | None = None) -> list[str]:
        """The text of each sequence of token ids (one by one: the backend's batch call is slower here)."""
        texts = [self.backend.decode(list(ids), skip_special_tokens=skip_special_tokens) for ids in sequences]
        clean = clean_up_tokenization_spaces
        clean = self.clean_up_tokenization_spaces if clean is None else clean
        return [_cleaned(text) for text in texts] if clean else texts


def _cleaned(text: str) -> str:
    """transformers' clean-up of decoded text: no space before punctuation and English clitics."""
    for before, after in CLEAN_UPS:
        text = text.replace(before, after)
    return text


def _json(path: Path) -> dict[str, Any]:
    """A JSON object from a file, or {} when the file is missing."""
    return json.loads(path.read_text()) if path.is_file() else {}
