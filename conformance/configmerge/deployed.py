"""An emulation of the deployed client: `swarmconf.reference.configmerge` with every quirk
X1..X20 of decisions.md and the errata, hangs and aborts included (an abort
is the debug build's, assertions on: the errata say per quirk what a release build does).

It serves two ends. Run as an adapter process it is a client that declares its quirks in
`hello`, against which the runner's grading of declared quirks is tested:

    python -m swarmconf.conformance.configmerge.deployed [--loop]

A hang is answered `hung` at once (with `--loop`, a request never answered, which the runner
and the campaigns detect by its timeout); an abort is the process exiting with status 134. In
process, `behaviour(request)` says what the deployed client does with a request and which
quirks make it differ from swarmconf, so the vector generator flags exactly those cases and
writes the deployed behaviour into them.

Where the deployed client refuses an input, the emulation answers swarmconf's reason code for
it (X5: the deployed client's own messages are not comparable), except where its order of
checks names another rule (X10).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

import nacl.bindings

import swarmconf.reference.configmerge as reference
from swarmconf.conformance.adapter import serve
from swarmconf.conformance.configmerge import deployed_bt
from swarmconf.conformance.configmerge.adapter import (
    ApiAdapter,
    _bytes,
    _data,
    bt_hex,
    play,
    replace_data,
)
from swarmconf.conformance.configmerge.deployed_payload import deployed_unwrap, deployed_wrap
from swarmconf.conformance.protocol import HUNG
from swarmconf.conformance.registry import Request, Result
from swarmconf.reference.configmerge import crypto
from swarmconf.reference.configmerge import message as reference_message
from swarmconf.reference.configmerge.merge import _survivors as survivors
from swarmconf.spec.configmerge.client import PROFILES as CLIENT_PROFILES
from swarmconf.spec.configmerge.diff import check_diff
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

QUIRKS = (
    "X1",
    "X2",
    "X3",
    "X4",
    "X6",
    "X7",
    "X8",
    "X9",
    "X10",
    "X11",
    "X12",
    "X13",
    "X14",
    "X15",
    "X16",
    "X17",
    "X18",
    "X19",
    "X20",
)
"""The quirks this emulation has; X5 (message wording) has no behaviour a vector can show."""
LIMITS = ("wide-data-integers", "container-set-elements")
"""What the deployed client's typed API cannot express (declared in `hello`)."""
NAME = "deployed-client-emulation"
VERSION = "libsession-util 8762e9d33f6c (as decisions.md describes it)"
ABORT_STATUS = 134
HANG = "hang"
LATER_REASONS = frozenset(
    reason
    for reason in Reason
    if reason.name.startswith(("LAGGED_", "DIFF_", "SIG_"))
    or reason in (Reason.MSG_KEY_AFTER_SIGNATURE, Reason.MSG_ENDS_BEFORE_DIFF)
)
"""Reasons found at or after `<` in the message: where the deployed client's streaming pass
may meet a loop (X3) or another rule (X10) first."""
WRITER_LIMIT_REASONS = (Reason.KEY_TOO_LONG, Reason.STRING_TOO_LONG)
FRAMES = 50_000
"""Python frames the emulation may use while it answers: the deployed client reads and writes
values nested to any depth (X7), and hostile inputs nest thousands deep."""


class Stop(BaseException):
    """The deployed client stops answering: it loops forever or aborts (not a refusal)."""

    def __init__(self, result: str, quirk: str) -> None:
        super().__init__(f"{result} ({quirk})")
        self.result = result
        self.quirk = quirk


class Unexplained(Exception):
    """The emulation differs from swarmconf on a request and no quirk it models says why."""


@dataclass(frozen=True)
class Behaviour:
    """What the deployed client does with one request where it differs from swarmconf."""

    quirks: tuple[str, ...]
    deployed: dict[str, Any]
    """`{"result": "valid", "expected": {...}}`, `{"result": "invalid", "reason": ...}`,
    `{"result": "hang"}` or `{"result": "abort"}`."""


@dataclass(frozen=True)
class Emulated:
    """The emulation's answer to one request, or how it stops, and the quirks that fired."""

    answer: Result | None
    stop: Stop | None
    fired: frozenset[str]

    def against(self, swarmconf_answer: Result) -> Behaviour | None:
        """What the deployed client does where it differs from `swarmconf_answer`, else None;
        `Unexplained` where no quirk that fired explains a difference."""
        if self.stop is not None:
            return Behaviour((self.stop.quirk,), {"result": self.stop.result})
        answer = self.answer
        assert answer is not None
        if "result" in answer and answer == swarmconf_answer:
            return None
        if "reason" in answer and answer.get("reason") == swarmconf_answer.get("reason"):
            return None
        if not self.fired:
            raise Unexplained(f"no quirk explains {answer} against {swarmconf_answer}")
        quirks = tuple(sorted(self.fired, key=lambda quirk: int(quirk[1:])))
        if "result" in answer:
            return Behaviour(quirks, {"result": "valid", "expected": answer["result"]})
        return Behaviour(quirks, {"result": "invalid", "reason": answer["reason"]})


def blake2b(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


def mismatched_secret(sign_key: bytes) -> bool:
    """A 64-byte signing key whose public half is not the seed's (used as given: X8)."""
    if len(sign_key) != 64:
        return False
    public, _secret = nacl.bindings.crypto_sign_seed_keypair(sign_key[:32])
    return bytes(public) != sign_key[32:]


def signer_public(sign_key: bytes) -> bytes:
    """The public key a signing key verifies with (X20): a 64-byte key's second half, as
    given (X8), or a seed's."""
    if len(sign_key) == 64:
        return sign_key[32:]
    public, _secret = nacl.bindings.crypto_sign_seed_keypair(sign_key)
    return bytes(public)


def strict_reason(raw: bytes, lag: int, verify_key: bytes | None) -> ConfigError:
    """swarmconf's refusal of an input the deployed client refuses too (X5)."""
    try:
        reference.parse(raw, lag=max(lag, 1), verify_key=verify_key)
    except ConfigError as error:
        return error
    raise Unexplained("the deployed client refuses an input swarmconf accepts")


def unreplayable(value: Any) -> bool:
    """A set diff with a single non-scalar element: parsed, but not replayable (X2)."""
    if not (isinstance(value, list) and len(value) == 2):
        return False
    if not all(isinstance(part, list) for part in value):
        return False
    elements = [element for part in value for element in part]
    return len(elements) == 1 and isinstance(elements[0], list | dict)


def diff_verdict(diff: dict[bytes, Any]) -> str | None:
    """The deployed client reading a diff in order: an integer value loops forever (X3);
    another broken entry is refused; an unreplayable set diff passes (X2)."""
    for key, value in diff.items():
        if isinstance(value, int):
            return HANG
        if isinstance(value, dict):
            verdict = diff_verdict(value)
            if verdict is not None:
                return verdict
        if isinstance(value, list) and unreplayable(value):
            continue
        try:
            check_diff({key: value})
        except ConfigError as error:
            return str(error.reason)
    return None


def stream_verdict(top: dict[bytes, Any], lag: int) -> str | None:
    """`<` and `=` as the deployed client's streaming pass meets them (X3, X10): for a lagged
    entry the seqno before the hash length, the row order before the diff's content."""
    seqno = top[b"#"]
    lagged = top.get(b"<", [])
    previous: tuple[int, bytes] | None = None
    for item in lagged if isinstance(lagged, list) else []:
        if not (isinstance(item, list) and item and isinstance(item[0], int)):
            return str(Reason.LAGGED_BAD_ENTRY)
        if item[0] <= seqno - lag:
            continue
        if item[0] >= seqno:
            return str(Reason.LAGGED_SEQNO_TOO_HIGH)
        if len(item) != 3 or not isinstance(item[1], bytes) or not isinstance(item[2], dict):
            return str(Reason.LAGGED_BAD_ENTRY)
        if len(item[1]) != 32:
            return str(Reason.LAGGED_BAD_HASH)
        if previous is not None and (item[0], item[1]) <= previous:
            return str(Reason.LAGGED_UNSORTED)
        previous = (item[0], item[1])
        verdict = diff_verdict(item[2])
        if verdict is not None:
            return verdict
    diff = top.get(b"=", {})
    return diff_verdict(diff) if isinstance(diff, dict) else None


def wide_set_diff(value: Any) -> bool:
    """A set diff holding an integer beyond int64, which only the deployed parse takes (X14)."""
    if not (isinstance(value, list) and len(value) == 2):
        return False
    if not all(isinstance(part, list) for part in value):
        return False
    return any(isinstance(item, int) and item > deployed_bt.INT64_MAX for p in value for item in p)


def kept_as_read(value: Any) -> bool:
    """A set diff the deployed parse keeps as it reads it and swarmconf refuses (X2, X14)."""
    return unreplayable(value) or wide_set_diff(value)


def without_kept(value: Any) -> Any:
    """A copy of a diff with every set diff kept as read emptied."""
    if not isinstance(value, dict):
        return value
    return {
        key: [[], []] if kept_as_read(item) else without_kept(item) for key, item in value.items()
    }


def has_unreplayable(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    return any(unreplayable(item) or has_unreplayable(item) for item in value.values())


def has_kept(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    return any(kept_as_read(item) or has_kept(item) for item in value.values())


def wide_set_element(value: Any, in_set_diff: bool = False) -> bool:
    """An integer beyond int64 inside a set diff (X14), which a merge cannot replay (X2)."""
    if isinstance(value, int):
        return in_set_diff and value > deployed_bt.INT64_MAX
    if isinstance(value, dict):
        return any(wide_set_element(item, False) for item in value.values())
    if isinstance(value, list):
        return any(wide_set_element(item, True) for item in value)
    return False


def unreplayable_message(message: Any) -> bool:
    """A parsed message whose diffs a merge cannot replay: an unreplayable set diff or an
    integer beyond int64 in a set diff (X2); the deployed merge aborts when it must replay."""
    diffs = [message.diff, *(entry.diff for entry in message.lagged)]
    return any(has_unreplayable(diff) or wide_set_element(diff) for diff in diffs)


def message_diffs(top: dict[bytes, Any]) -> list[Any]:
    """The `=` of a decoded message and the diffs of its lagged entries."""
    lagged = top.get(b"<", [])
    entries = lagged if isinstance(lagged, list) else []
    lagged_diffs = [item[2] for item in entries if isinstance(item, list) and len(item) == 3]
    return [top.get(b"="), *lagged_diffs]


def d27_obsolete(valid: list[Any], result: Any, lag: int) -> list[bytes]:
    """What D27 deletes after a merge of the inputs that parse (as the deployed client parses
    them): all of them but the result, or only those the ignore rules drop when the result is
    one of them."""
    absorbed = {message.hash for message in valid}
    if not result.merged:
        absorbed -= {message.hash for message in survivors(valid, lag)}
    absorbed.discard(result.hash)
    return sorted(absorbed)


class DeployedAdapter(ApiAdapter):
    """The protocol's operations as the deployed client performs them: every config-merge
    operation the reference answers (`op_<name>`), overridden where a quirk makes it differ."""

    def __init__(self) -> None:
        super().__init__(reference, NAME)
        self.fired: set[str] = set()

    # ---- in process: the vector generator's view ------------------------------------------

    def behaviour(self, request: Request, swarmconf_answer: Result) -> Behaviour | None:
        """What the deployed client does where it differs from `swarmconf_answer`, else None."""
        return self.emulate(request).against(swarmconf_answer)

    def emulate(self, request: Request) -> Emulated:
        """The deployed client's answer to `request` (or its hang or abort), and the quirks it
        met on the way."""
        self.fired = set()
        try:
            answer = self.handle(request)
        except Stop as stop:
            return Emulated(None, stop.with_traceback(None), frozenset((stop.quirk,)))
        return Emulated(answer, None, frozenset(self.fired))

    def handle(self, request: Request) -> Result:
        if request.get("op") == "hello":
            return {
                **super().handle(request),
                "version": VERSION,
                "profiles": ["libsession"],
                "quirks": list(QUIRKS),
                "limits": list(LIMITS),
            }
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, FRAMES))
        try:
            return super().handle(request)
        finally:
            sys.setrecursionlimit(limit)

    # ---- parsing ---------------------------------------------------------------------------

    def _parse(self, request: Request, *, verify: bool = True) -> Any:
        raw = bytes.fromhex(request["msg"])
        verify_key = (
            bytes.fromhex(request["verify_key"]) if verify and "verify_key" in request else None
        )
        return self.parse_message(raw, request["lag"], verify_key)

    def parse_message(self, raw: bytes, lag: int, verify_key: bytes | None) -> Any:
        """A message as the deployed client parses it (X1, X2, X3, X4, X7, X10, X14). It never
        checks the lag (only merges assert on it: X4), so with a lag below 1 whatever it finds in
        the key or the message is its answer, where swarmconf refuses the lag first."""
        if lag < 1:
            self.fired.add("X4")
        if verify_key is not None:
            crypto.check_verify_key(verify_key)
        try:
            return self._decode_and_build(raw, lag, verify_key)
        except ConfigError:
            if deployed_bt.loops(raw, lag):
                raise Stop("hang", "X3") from None
            raise

    def _decode_and_build(self, raw: bytes, lag: int, verify_key: bytes | None) -> Any:
        """The message as the deployed client parses it, or its refusal, where it does not
        loop (`deployed_bt.loops` decides that)."""
        try:
            decoded = deployed_bt.decode_message(raw)
        except deployed_bt.LenientDecodeError as error:
            raise (error.strict or strict_reason(raw, lag, verify_key)) from None
        top = decoded.value
        try:
            message = self._build(raw, top, lag, verify_key)
        except ConfigError as error:
            if not (error.reason in LATER_REASONS and isinstance(top, dict)):
                raise strict_reason(raw, lag, verify_key) from None
            verdict = stream_verdict(top, lag)
            strict = strict_reason(raw, lag, verify_key)
            if decoded.canonical and verdict not in (None, HANG) and verdict != strict.reason:
                self.fired.add("X10")
                raise ConfigError(Reason(verdict), "the deployed order of checks") from None
            raise strict from None
        if not decoded.canonical:
            self.fired.add("X1")
        if decoded.unchecked:
            self.fired.add("X14")
        if decoded.deep:
            self.fired.add("X7")
        return message

    def _build(self, raw: bytes, top: Any, lag: int, verify_key: bytes | None) -> Any:
        """The reference's checks on the decoded message, with no nesting limit; a message
        holding an unreplayable set diff (X2) or an integer beyond int64 in a set diff (X14) is
        parsed with it."""
        if not (isinstance(top, dict) and any(has_kept(d) for d in message_diffs(top))):
            return self._build_any_depth(raw, top, lag, verify_key)
        lagged = [item for item in top.get(b"<", []) if isinstance(item, list) and len(item) == 3]
        originals = {(item[0], item[1]): item[2] for item in lagged}
        cleaned = dict(top)
        if b"=" in top:
            cleaned[b"="] = without_kept(top[b"="])
        if b"<" in top:
            cleaned[b"<"] = [[*item[:2], without_kept(item[2])] for item in lagged]
        message = self._build_any_depth(raw, cleaned, lag, verify_key)
        message._diff = top.get(b"=", {})
        message.lagged = [
            reference.LaggedEntry(e.seqno, e.hash, originals[(e.seqno, e.hash)])
            for e in message.lagged
        ]
        if any(has_unreplayable(d) for d in message_diffs(top)):
            self.fired.add("X2")
        return message

    def _build_any_depth(self, raw: bytes, top: Any, lag: int, verify_key: bytes | None) -> Any:
        """The reference's checks, but a `=` deeper than its nesting limit is kept (X7)."""
        try:
            return reference_message._build(raw, top, lag, verify_key, bounds=False, alike=None)
        except ConfigError as error:
            if error.reason != Reason.BT_TOO_DEEP or not isinstance(top.get(b"="), dict):
                raise
        message = reference_message._build(
            raw, {**top, b"=": {}}, lag, verify_key, bounds=False, alike=None
        )
        message._diff = top[b"="]
        message._raw = None  # written again from its parts
        self.fired.add("X7")
        return message

    # ---- writing ---------------------------------------------------------------------------

    def _serialized(self, message: Any, sign_key: bytes | None) -> Result:
        if sign_key is not None and mismatched_secret(sign_key):
            message._sign_secret = sign_key  # used as given (X8)
            sign_key = None
            self.fired.add("X8")
        if not message.editable:
            return {"msg": message.serialize(sign_key).hex(), "hash": message.hash.hex()}
        try:
            data = message.serialize(sign_key)
        except UsageError as error:
            if error.reason not in WRITER_LIMIT_REASONS:
                raise
            self.fired.add("X7")  # no writer limits
            secret = crypto.signing_secret(sign_key) if sign_key else message._sign_secret
            state, diff = message._state(limits=False)
            data = message._sign(message._body(state, diff), secret)
        return {"msg": data.hex(), "hash": blake2b(data).hex()}

    def op_new(self, request: Request) -> Result:
        if request["lag"] >= 1:
            return super().op_new(request)
        self.fired.add("X4")  # only merges assert on the lag
        message = reference.ConfigMessage.new(request["seqno"])
        message.lag = request["lag"]
        return self._new_with(message, request)

    def _new_with(self, message: Any, request: Request) -> Result:
        replace_data(message, _data(request, "data"))
        result = self._serialized(message, _bytes(request, "sign_key"))
        return {**result, "diff": bt_hex(message.diff)}

    def op_serialize(self, request: Request) -> Result:
        if "verify_key" in request and "sign_key" in request:
            self.fired.add("X8")  # the verified signature is kept
            return self._serialized(self._parse(request), None)
        return super().op_serialize(request)

    def op_increment(self, request: Request) -> Result:
        parsed = self._parse(request)
        if parsed.seqno != deployed_bt.INT64_MAX:
            return super().op_increment(request)
        self.fired.add("X6")  # wraps to -2^63, the window keeps nothing
        message = reference.ConfigMessage(
            deployed_bt.INT64_MIN, parsed._bt, [], lag=parsed.lag, extra=dict(parsed.extra)
        )
        if "data" in request:
            replace_data(message, _data(request, "data"))
        return self._serialized(message, _bytes(request, "sign_key"))

    def op_unpad(self, request: Request) -> Result:
        padded = bytes.fromhex(request["padded"])
        if any(padded):
            return super().op_unpad(request)
        self.fired.add("X9")  # padding is stripped only when some byte is non-zero
        return {"plaintext": padded.hex()}

    def op_merge(self, request: Request) -> Result:
        lag = request["lag"]
        if lag < 1:
            raise Stop("abort", "X4")  # the multi-message constructor asserts
        verify_key, sign_key = _bytes(request, "verify_key"), _bytes(request, "sign_key")
        if verify_key is not None:
            crypto.check_verify_key(verify_key)
        if sign_key is not None and not mismatched_secret(sign_key):
            crypto.signing_secret(sign_key)
        raws = [bytes.fromhex(text) for text in request["msgs"]]
        if any(not raw.startswith(b"d") for raw in raws):
            self.fired.add("X2")  # one input fails them all
            raise ConfigError(Reason.NO_VALID_MESSAGE, "an input is not a dict")
        valid = []
        for raw in raws:
            if raw == b"de":
                raise Stop("abort", "X2")
            try:
                valid.append(self.parse_message(raw, lag, verify_key))
            except ConfigError:
                continue
        if not valid:
            raise ConfigError(Reason.NO_VALID_MESSAGE, f"none of {len(raws)}")
        if any(message.seqno > deployed_bt.INT64_MAX - lag for message in valid):
            raise Stop("abort", "X6")  # seqno + lag overflows
        result = reference.merge_parsed(
            valid,
            lag=lag,
            verify_key=verify_key,
            sign_key=None if sign_key is None else sign_key[:32],
        )
        if result.merged and any(unreplayable_message(message) for message in valid):
            raise Stop("abort", "X2")  # a merge replays what it cannot
        deleted = {"obsolete": self.obsolete(raws, valid, result, request)}
        if not result.merged:
            return {"merged": False, **self._serialized(result, None), **deleted}
        if "data" in request:
            replace_data(result, _data(request, "data"))
        return {"merged": True, **self._serialized(result, sign_key), **deleted}

    def obsolete(self, raws: list[bytes], valid: list[Any], result: Any, request: Request) -> Any:
        """What the deployed client deletes (X12): the hash at every position of an input that
        parses, but, when the result is one of the inputs, at the result's position among
        those, counted among all inputs. A repeated input's hash is deleted even when it is
        the result's (config.cpp:606-607 marks the later copy redundant, base.cpp:219-224)."""
        parsed = {message.hash for message in valid}
        kept = -1 if result.merged else [message.hash for message in valid].index(result.hash)
        hashes = [blake2b(raw) for raw in raws]
        deleted = {digest for index, digest in enumerate(hashes) if index != kept} & parsed
        deleted_list = sorted(deleted)
        if deleted_list != d27_obsolete(valid, result, request["lag"]):
            self.fired.add("X12")
        return [digest.hex() for digest in deleted_list]

    def op_client(self, request: Request) -> Result:
        """The deployed client's state machine (`deployed_client`; X12, X17..X20), debug build,
        its arguments refused with swarmconf's reasons (X5): a profile the protocol does not
        have, a key of the wrong length (a 64-byte signing key is used as given: X8), a
        verification key beside a signing key that is not its public half (X20)."""
        lag, verify_key = request["lag"], _bytes(request, "verify_key")
        if request["profile"] not in CLIENT_PROFILES:
            raise UsageError(Reason.BAD_PROFILE, f"no client profile {request['profile']!r}")
        if verify_key is not None:
            crypto.check_verify_key(verify_key)
        sign_key = _bytes(request, "sign_key")
        if sign_key is not None and not mismatched_secret(sign_key):
            crypto.signing_secret(sign_key)
        verifier = verify_key if sign_key is None else signer_public(sign_key)
        if verify_key is not None and verifier != verify_key:
            if request["profile"] == "spec":
                self.fired.add("X20")
            raise UsageError(Reason.BAD_KEY, "secret key and pubkey do not match")
        # Imported here: a process answering other operations starts without the state machine
        from swarmconf.conformance.configmerge.deployed_client import Abort, DeployedClient

        client = DeployedClient(
            lag=lag,
            profile=request["profile"],
            parse=lambda raw: self.parse_message(raw, lag, verifier),
            verify_key=verifier,
            sign_key=sign_key,
            current=self._parse(request) if "msg" in request else None,
            debug=True,
            catches=False,
            read=None if verify_key else lambda raw: self.parse_message(raw, lag, None),
        )
        try:
            return {"answers": play(client, request["steps"])}
        except Abort as abort:
            raise Stop("abort", abort.quirk) from None
        finally:
            self.fired |= client.fired

    # ---- the payload layer -------------------------------------------------------------------

    def op_wrap(self, request: Request) -> Result:
        """The pinned push: the level unchecked (X16), no parts (X11)."""
        blobs = deployed_wrap(
            bytes.fromhex(request["message"]),
            bytes.fromhex(request["key"]),
            bytes.fromhex(request["domain"]),
            request.get("level"),
            self.fired,
        )
        return {"blobs": [blob.hex() for blob in blobs]}

    def op_unwrap(self, request: Request) -> Result:
        """The pinned receive path: all-zero plaintexts kept (X9), parts skipped (X11), `z`
        payloads inflated without a bound (X15)."""
        message = deployed_unwrap(
            [bytes.fromhex(text) for text in request["blobs"]],
            [bytes.fromhex(text) for text in request["keys"]],
            bytes.fromhex(request["domain"]),
            self.fired,
        )
        return {"msg": message.hex()}


class DeployedProcess(DeployedAdapter):
    """The emulation as a process: an abort is an exit; a loop is answered `hung` at once (the
    emulation knows it loops: PROTOCOL.md), or with `loop` never answered, as the deployed
    client does."""

    def __init__(self, loop: bool = False) -> None:
        super().__init__()
        self.loop = loop

    def handle(self, request: Request) -> Result:
        try:
            return super().handle(request)
        except Stop as stop:
            if stop.result == "abort":
                os._exit(ABORT_STATUS)
            if not self.loop:
                return {HUNG: f"the deployed client loops forever ({stop.quirk})"}
            threading.Event().wait()
            raise


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The deployed client's emulation, as an adapter.")
    parser.add_argument(
        "--loop", action="store_true", help="never answer where it loops, instead of `hung`"
    )
    serve(DeployedProcess(parser.parse_args(argv).loop))


if __name__ == "__main__":
    main()
