"""pfcore.items: the lexicon, the three item generators, item files and their checks.

Public API (see the README, "Items"):
- load_lexicon(path=None) -> Lexicon
- generate_semantic / generate_syntax / generate_affinity(lexicon, constructions=None,
  paper_compatible=False) -> list of SemanticItem / SyntaxItem / AffinityItem
- read_items(path, lexicon=None), read_item_file(path, lexicon=None), write_items(items, path, format)
- check_items(path, lexicon=None) -> list of problems
- default_items(suite, constructions=None): the shipped files in data/items/
"""
from pfcore.items.check import check_items
from pfcore.items.defaults import default_item_path, default_items
from pfcore.items.formats import FORMATS, ItemFile, read_item_file, read_items, write_items
from pfcore.items.generate import generate_affinity, generate_semantic, generate_syntax
from pfcore.items.lexicon import Lexicon, load_lexicon
from pfcore.items.schema import CONSTRUCTIONS, FILLS, MANIPULATIONS, MASK, AffinityItem, SemanticItem, SyntaxItem

__all__ = [
    "CONSTRUCTIONS", "FILLS", "FORMATS", "MANIPULATIONS", "MASK", "AffinityItem", "ItemFile",
    "Lexicon", "SemanticItem", "SyntaxItem", "check_items", "default_item_path", "default_items",
    "generate_affinity", "generate_semantic", "generate_syntax", "load_lexicon", "read_item_file",
    "read_items", "write_items",
]
