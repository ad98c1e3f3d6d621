"""Errors that carry a message meant for the user (shown without a traceback)."""


class PfcoreError(Exception):
    """Base class: the message says what went wrong and what to do."""


class ModelLoadError(PfcoreError):
    """A model could not be found or loaded."""


class InputError(PfcoreError):
    """Text or a file given by the user cannot be used as it is."""
