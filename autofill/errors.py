"""Errors the CLI turns into exit codes: InputError -> 2 with a one-line message; anything else -> 1."""


class AutofillError(Exception):
    """Base class for errors autofill raises on purpose."""


class InputError(AutofillError):
    """The user's input is wrong (bad file, bad option, missing store). Exit code 2."""


class StoreMismatchError(InputError):
    """A store was built with another embedder than the one asked for."""


class ProviderError(AutofillError):
    """A model provider failed after retries (network, auth, malformed response)."""


class EndpointError(InputError):
    """The model endpoint cannot be used at all (unreachable, key refused, model unknown): the run stops
    on its first call, before any row is answered or any output replaced. Exit code 2."""
