"""A library (the spec or the reference) with every distinct parse done once, for the hostile
campaign's parsers and the library's adapter alike.

A hostile task asks its library the same messages many times: as it parses each input and again
as the oracle answers the client's request for it. `CachedLibrary` keeps each parse (or the
refusal) by (bytes, lag, verify key), and each merge by its inputs' bytes in order and its
options, merging through the library's merge of already parsed messages, which gives its
`merge` byte for byte. Parsed and merged messages are never edited in place (an increment or a
merge makes a new message), so sharing them is safe. Both libraries share the API contract and
its checks of the lag and keys (D14, D17), which the cache makes once per merge.

`LibraryOracle` is the library's adapter over the cache. It serializes a parsed message once per
signing key (a merge that keeps one input answers with that input's bytes, which the `serialize`
request of the same message answers again), and takes a new, incremented or merged message's
hash from the bytes it just serialized rather than serializing it a second time (D1).
"""

from __future__ import annotations

import types
from typing import Any

from swarmconf.conformance.configmerge.adapter import ApiAdapter
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.message import check_lag, message_hash
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, require
from swarmconf.spec.configmerge.signing import check_verify_key, signing_key

Parsed = Any
"""A message of the cached library (the spec's or the reference's `ConfigMessage`)."""
MergeKey = tuple[tuple[bytes, ...], int, bytes | None, bytes | None]
Published = tuple[bytes, bytes]
"""A message's serialized bytes and its hash."""


class CachedLibrary:
    def __init__(self, library: types.ModuleType = spec) -> None:
        self.library = library
        self.parsed: dict[tuple[bytes, int, bytes | None], Parsed | ConfigError] = {}
        self.merged: dict[MergeKey, Parsed | ConfigError] = {}
        self.merge_parsed = library.merge_parsed
        self.published: dict[tuple[int, bytes | None], tuple[Parsed, Published]] = {}

    def parse(self, data: bytes, *, lag: int = 5, verify_key: bytes | None = None) -> Parsed:
        key = (data, lag, verify_key)
        if key not in self.parsed:
            try:
                self.parsed[key] = self.library.parse(data, lag=lag, verify_key=verify_key)
            except ConfigError as error:
                self.parsed[key] = unlinked(error)
        found = self.parsed[key]
        if isinstance(found, ConfigError):
            raise refusal(found)
        return found

    def merge(
        self,
        messages: list[bytes],
        *,
        lag: int = 5,
        verify_key: bytes | None = None,
        sign_key: bytes | None = None,
    ) -> Parsed:
        """The library's `merge`, each input parsed once, each merge computed once (D14, D15,
        D17)."""
        key = (tuple(messages), lag, verify_key, sign_key)
        if key not in self.merged:
            try:
                self.merged[key] = self.compute_merge(messages, lag, verify_key, sign_key)
            except ConfigError as error:
                self.merged[key] = unlinked(error)
        found = self.merged[key]
        if isinstance(found, ConfigError):
            raise refusal(found)
        return found

    def compute_merge(
        self, messages: list[bytes], lag: int, verify_key: bytes | None, sign_key: bytes | None
    ) -> Parsed:
        check_lag(lag)
        if verify_key is not None:
            check_verify_key(verify_key)
        if sign_key is not None:
            signing_key(sign_key)
        valid = self.valid(messages, lag, verify_key)
        require(valid != [], Reason.NO_VALID_MESSAGE, f"none of {len(messages)} inputs")
        return self.merge_parsed(valid, lag=lag, verify_key=verify_key, sign_key=sign_key)

    def valid(self, messages: list[bytes], lag: int, verify_key: bytes | None) -> list[Parsed]:
        """The inputs that parse, in order, through the cache."""
        valid = []
        for data in messages:
            try:
                valid.append(self.parse(data, lag=lag, verify_key=verify_key))
            except ConfigError:
                continue
        return valid

    def obsolete_after_merge(
        self,
        messages: list[bytes],
        result: Parsed,
        *,
        lag: int = 5,
        verify_key: bytes | None = None,
        valid: list[Parsed] | None = None,
    ) -> list[bytes]:
        """The library's delete rule (D27) over the inputs as the cache parsed them: an
        adapter's merge answer names what its push deletes without parsing its inputs again."""
        if valid is None:
            valid = self.valid(messages, lag, verify_key)
        deleted: list[bytes] = self.library.obsolete_after_merge(
            messages, result, lag=lag, verify_key=verify_key, valid=valid
        )
        return deleted

    def publish(self, message: Parsed, sign_key: bytes | None) -> Published:
        """`message.serialize(sign_key)` and `message.hash`.

        Parsed and merged messages from the cache never change, so their bytes are kept per key
        (with the message, whose identity is the key): the oracle's answers to the same merge
        request serialize it once. Any other editable message (new or incremented) is
        serialized each time; it is signed with the key it was last serialized with, so its
        hash is that of the bytes just serialized (D1).
        """
        if message.editable and not message.merged:
            data = message.serialize(sign_key)
            return data, message_hash(data)
        key = (id(message), sign_key)
        if key not in self.published:
            data = message.serialize(sign_key)
            published = data, message.hash if not message.editable else message_hash(data)
            self.published[key] = (message, published)
        return self.published[key][1]

    def forget(self) -> None:
        """Drop every parse, merge and publication kept. An adapter over the cache is a cycle
        (its handler table holds its own methods) that only the collector frees, with
        everything it reaches: forgotten, that is no more than the adapter."""
        self.parsed.clear()
        self.merged.clear()
        self.published.clear()

    def module(self) -> types.ModuleType:
        """The API contract as a module, for `conformance.configmerge.adapter.ApiAdapter`."""
        module = types.ModuleType(self.library.__name__)
        module.__dict__.update({name: getattr(self.library, name) for name in self.library.__all__})
        module.parse = self.parse  # type: ignore[attr-defined]
        module.merge = self.merge  # type: ignore[attr-defined]
        module.obsolete_after_merge = self.obsolete_after_merge  # type: ignore[attr-defined]
        return module


def unlinked(error: ConfigError) -> ConfigError:
    """`error` without its traceback, to be kept in a cache: the traceback holds the frame that
    caught it, whose `self` is the cache, a cycle only the collector would free (and it would
    traverse every parse the cache holds)."""
    return error.with_traceback(None)


def refusal(error: ConfigError) -> ConfigError:
    """A new refusal like the cached `error`: raising `error` itself would link it to the
    raising frame (the cache's) and to every frame that catches it."""
    return type(error)(error.reason, error.detail)


class LibraryOracle(ApiAdapter):
    """The library's adapter over a `CachedLibrary`, each message published through its cache;
    a message whose hex the campaign wrote (`raw`) is not decoded again."""

    def __init__(self, cache: CachedLibrary) -> None:
        super().__init__(cache.module(), cache.library.__name__.rsplit(".", 1)[0])
        self.cache = cache
        self.raw: dict[str, bytes] = {}

    def message(self, text: str) -> bytes:
        found = self.raw.get(text)
        return bytes.fromhex(text) if found is None else found

    def _serialized(self, message: Parsed, sign_key: bytes | None) -> dict[str, str]:
        data, hash_ = self.cache.publish(message, sign_key)
        return {"msg": data.hex(), "hash": hash_.hex()}
