"""pfcore: generate Paired-Focus test items and score them with language models."""

__version__ = "0.3.0"
