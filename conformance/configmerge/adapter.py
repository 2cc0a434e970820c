"""The config-merge operations of the built-in adapter, over any module implementing the API
contract: `swarmconf.spec.configmerge` and `swarmconf.reference.configmerge` both do, so
`builtin:spec` and `builtin:reference` answer these operations with `ApiAdapter` over each.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.adapter import Adapter
from swarmconf.conformance.configmerge.ops import OPS
from swarmconf.conformance.registry import Handler, Request, Result
from swarmconf.spec.configmerge.encryption import PROFILES
from swarmconf.spec.configmerge.reasons import Reason, UsageError

IMPLEMENTATIONS = {
    "spec": "swarmconf.spec.configmerge",
    "reference": "swarmconf.reference.configmerge",
}


def to_api_value(value: Any) -> Any:
    """Data from bt to the API's types: lists of scalars become sets, dicts recurse.

    A list holding a list or a dict stays a list, which the implementation must refuse.
    """
    if isinstance(value, dict):
        return {key: to_api_value(item) for key, item in value.items()}
    if isinstance(value, list):
        if all(isinstance(item, (int, bytes)) for item in value):
            return set(value)
        return [to_api_value(item) for item in value]
    return value


def bt_hex(value: Any) -> str:
    """API values (sets, lagged entries, set diffs) bt-encoded, as hex: `btcodec` writes sets
    in set order and tuples as lists."""
    return btcodec.encode(value).hex()


def _bytes(request: Request, name: str) -> bytes | None:
    text = request.get(name)
    return None if text is None else bytes.fromhex(text)


def _hex_list(request: Request, name: str) -> list[bytes]:
    return [bytes.fromhex(text) for text in request[name]]


def _data(request: Request, name: str) -> Any:
    return to_api_value(btcodec.decode(bytes.fromhex(request[name])))


def encode_extra(extra: dict[bytes, bytes]) -> str:
    """Unknown top-level keys and their raw bt values, as one bt dict (D9)."""
    items = (btcodec.encode(key) + value for key, value in sorted(extra.items()))
    return (b"d" + b"".join(items) + b"e").hex()


def replace_data(message: Any, data: dict[bytes, Any]) -> None:
    """Edit `message.data` in place into `data` (the message tracks the edit as its diff)."""
    message.data.clear()
    message.data.update(data)


def play(client: Any, steps: list[str]) -> list[str]:
    """The `client` operation's answers: each step (a bt dict) played on `client`, which has the
    API of `swarmconf.spec.configmerge.client.Client`, answered as a bt dict (D28..D32): what
    the step pushed and deleted, and the client's state after it (its current hashes, whether
    it needs a push, its message as it would push it, the hashes its next push deletes)."""
    answers = []
    for text in steps:
        step = btcodec.decode(bytes.fromhex(text))
        action = step.get(b"do") if isinstance(step, dict) else None
        pushed = None
        if action == b"receive":
            client.receive(list(step[b"msgs"]))
        elif action == b"edit":
            client.edit(to_api_value(step[b"data"]))
        elif action == b"push":
            pushed = client.push()
        elif action == b"confirm":
            client.confirm()
        else:
            raise UsageError(Reason.BAD_VALUE_TYPE, f"no client step {action!r}")
        message = client.message
        answer: dict[bytes, Any] = {
            b"current": client.current_hashes(),
            b"deleted": [] if pushed is None else pushed.deleted,
            b"msg": b"" if message is None else bytes(message.serialize(client.sign_key)),
            b"needs_push": int(client.needs_push()),
            b"to_delete": [] if client.read_only else sorted(client.to_delete),
        }
        if pushed is not None:
            answer[b"pushed"], answer[b"hash"] = pushed.message, pushed.hash
        answers.append(btcodec.encode(dict(sorted(answer.items()))).hex())
    return answers


class ApiAdapter(Adapter):
    """The config-merge operations over an implementation of the API contract: each operation
    `name` of `ops.OPS` is answered by the method `op_<name>`."""

    def __init__(self, impl: ModuleType, name: str) -> None:
        self.impl = impl
        handlers: dict[str, Handler] = {op: self.handler(op) for op in OPS}
        super().__init__(name, handlers, PROFILES)

    def handler(self, op: str) -> Handler:
        """The method that answers `op`: `op_<op>`."""
        method = getattr(self, f"op_{op}", None)
        if not callable(method):
            raise TypeError(f"{type(self).__name__} has no method op_{op} for the operation {op}")
        return method  # type: ignore[no-any-return]

    def message(self, text: str) -> bytes:
        """The bytes of a message a request gives as hex."""
        return bytes.fromhex(text)

    def _parse(self, request: Request, *, verify: bool = True) -> Any:
        verify_key = _bytes(request, "verify_key") if verify else None
        message = self.message(request["msg"])
        return self.impl.parse(message, lag=request["lag"], verify_key=verify_key)

    def _serialized(self, message: Any, sign_key: bytes | None) -> Result:
        data = message.serialize(sign_key)
        return {"msg": data.hex(), "hash": message.hash.hex()}

    def op_parse(self, request: Request) -> Result:
        message = self._parse(request)
        lagged = [[entry.seqno, entry.hash, entry.diff] for entry in message.lagged]
        return {
            "seqno": message.seqno,
            "hash": message.hash.hex(),
            "data": bt_hex(message.data),
            "diff": bt_hex(message.diff),
            "lagged": bt_hex(lagged),
            "extra": encode_extra(message.extra),
            "signature": None if message.signature is None else message.signature.hex(),
        }

    def op_hash(self, request: Request) -> Result:
        return {"hash": self._parse(request).hash.hex()}

    def op_new(self, request: Request) -> Result:
        message = self.impl.ConfigMessage.new(request["seqno"], lag=request["lag"])
        replace_data(message, _data(request, "data"))
        result = self._serialized(message, _bytes(request, "sign_key"))
        return {**result, "diff": bt_hex(message.diff)}

    def op_serialize(self, request: Request) -> Result:
        return self._serialized(self._parse(request), _bytes(request, "sign_key"))

    def op_diff(self, request: Request) -> Result:
        base = self.impl.ConfigMessage.new(0)
        replace_data(base, _data(request, "old"))
        message = self.impl.parse(base.serialize()).increment()
        replace_data(message, _data(request, "new"))
        return {"diff": bt_hex(message.diff)}

    def op_increment(self, request: Request) -> Result:
        message = self._parse(request).increment()
        if "data" in request:
            replace_data(message, _data(request, "data"))
        return self._serialized(message, _bytes(request, "sign_key"))

    def op_merge(self, request: Request) -> Result:
        messages = [self.message(text) for text in request["msgs"]]
        verify_key = _bytes(request, "verify_key")
        message = self.impl.merge(
            messages,
            lag=request["lag"],
            verify_key=verify_key,
            sign_key=_bytes(request, "sign_key"),
        )
        obsolete = self.impl.obsolete_after_merge(
            messages, message, lag=request["lag"], verify_key=verify_key
        )
        deleted = {"obsolete": [digest.hex() for digest in obsolete]}
        if not message.merged:
            return {"merged": False, **self._serialized(message, None), **deleted}
        if "data" in request:
            replace_data(message, _data(request, "data"))
        return {"merged": True, **self._serialized(message, _bytes(request, "sign_key")), **deleted}

    def new_client(self, request: Request) -> Any:
        """The client a `client` request starts: of its profile, from its stored `msg`."""
        module = importlib.import_module(f"{self.impl.__name__}.client")
        return module.Client(
            lag=request["lag"],
            profile=request["profile"],
            verify_key=_bytes(request, "verify_key"),
            sign_key=_bytes(request, "sign_key"),
            current=self._parse(request) if "msg" in request else None,
        )

    def op_client(self, request: Request) -> Result:
        return {"answers": play(self.new_client(request), request["steps"])}

    def op_sign(self, request: Request) -> Result:
        return self._serialized(self._parse(request, verify=False), _bytes(request, "sign_key"))

    def op_verify(self, request: Request) -> Result:
        message = self._parse(request)
        return {"seqno": message.seqno, "hash": message.hash.hex()}

    def op_encrypt(self, request: Request) -> Result:
        ciphertext = self.impl.encrypt(
            _bytes(request, "plaintext"),
            _bytes(request, "key"),
            profile=request["profile"],
            domain=_bytes(request, "domain"),
        )
        return {"ciphertext": ciphertext.hex()}

    def op_decrypt(self, request: Request) -> Result:
        plaintext = self.impl.decrypt(
            _bytes(request, "ciphertext"),
            _bytes(request, "key"),
            profile=request["profile"],
            domain=_bytes(request, "domain"),
        )
        return {"plaintext": plaintext.hex()}

    def op_pad(self, request: Request) -> Result:
        return {"padded": self.impl.pad(_bytes(request, "plaintext"), request["overhead"]).hex()}

    def op_unpad(self, request: Request) -> Result:
        return {"plaintext": self.impl.unpad(_bytes(request, "padded")).hex()}

    def op_wrap(self, request: Request) -> Result:
        blobs = self.impl.wrap(
            bytes.fromhex(request["message"]),
            bytes.fromhex(request["key"]),
            bytes.fromhex(request["domain"]),
            level=request.get("level"),
        )
        return {"blobs": [blob.hex() for blob in blobs]}

    def op_unwrap(self, request: Request) -> Result:
        message = self.impl.unwrap(
            _hex_list(request, "blobs"),
            _hex_list(request, "keys"),
            bytes.fromhex(request["domain"]),
        )
        return {"msg": message.hex()}


def api_adapter(impl: str) -> ApiAdapter:
    """`ApiAdapter` over `swarmconf.spec.configmerge` or `swarmconf.reference.configmerge`."""
    return ApiAdapter(importlib.import_module(IMPLEMENTATIONS[impl]), f"swarmconf.{impl}")


def handlers(impl: str) -> Mapping[str, Handler]:
    """The config-merge handler table of the built-in adapter over `impl`."""
    return api_adapter(impl).handlers
