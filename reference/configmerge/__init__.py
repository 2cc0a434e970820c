"""swarmconf.reference.configmerge: the fast config-merge library.

The same API as `swarmconf.spec.configmerge` (see the API contract), built for speed: a strict
decoder (compiled when the `bencode2` wheel is there), data kept in bt form until `data` is read,
copy-on-write replay, one encoding per serialization, received bytes written back when nothing
was dropped. `merge_parsed` merges messages already parsed, for callers that see them many times.

Its names are loaded on first use (PEP 562): importing one module of the package, such as the
command line's argument tree, does not load the library.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swarmconf.spec.configmerge.reasons import (
        ConfigError,
        DecryptError,
        PayloadError,
        PayloadReason,
        Reason,
        UsageError,
    )

    from .crypto import decrypt, encrypt, pad, padded_size, unpad
    from .merge import merge, merge_parsed
    from .message import ConfigMessage, LaggedEntry, parse
    from .payload import (
        Received,
        Skipped,
        obsolete_after_edit,
        obsolete_after_merge,
        receive,
        unwrap,
        wrap,
    )

_REASONS = "swarmconf.spec.configmerge.reasons"
_SOURCES: dict[str, str] = {
    **dict.fromkeys(
        ("ConfigError", "DecryptError", "PayloadError", "PayloadReason", "Reason", "UsageError"),
        _REASONS,
    ),
    **dict.fromkeys(("decrypt", "encrypt", "pad", "padded_size", "unpad"), ".crypto"),
    **dict.fromkeys(("merge", "merge_parsed"), ".merge"),
    **dict.fromkeys(("ConfigMessage", "LaggedEntry", "parse"), ".message"),
    **dict.fromkeys(
        (
            "Received",
            "Skipped",
            "obsolete_after_edit",
            "obsolete_after_merge",
            "receive",
            "unwrap",
            "wrap",
        ),
        ".payload",
    ),
}
"""Each public name and the module it comes from."""
__all__ = [
    "ConfigError",
    "ConfigMessage",
    "DecryptError",
    "LaggedEntry",
    "PayloadError",
    "PayloadReason",
    "Reason",
    "Received",
    "Skipped",
    "UsageError",
    "decrypt",
    "encrypt",
    "merge",
    "merge_parsed",
    "obsolete_after_edit",
    "obsolete_after_merge",
    "pad",
    "padded_size",
    "parse",
    "receive",
    "unpad",
    "unwrap",
    "wrap",
]


def __getattr__(name: str) -> object:
    if name not in _SOURCES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_SOURCES[name], __name__), name)
    ModuleType.__setattr__(sys.modules[__name__], name, value)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCES})


class _Package(ModuleType):
    """The import system binds each submodule to its package by name. `merge` is both: the
    package's `merge` stays the function, as `from .merge import merge` left it when this
    package loaded everything at once."""

    def __setattr__(self, name: str, value: object) -> None:
        if not (name in _SOURCES and isinstance(value, ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
