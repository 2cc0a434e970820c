"""The behaviours a world's clients may have: each a record, registered once.

A behaviour says what a client is (`description`), which profile's conflict push it makes
(D30: P6 expects `=` empty under `spec`, every data key under `libsession`), how its clients
are made from a stored message, the behaviour P3 checks it against step by step (`twin`), and
the quirks of the deployed client whose findings it declares (graded acceptable, not failed).
The world asks a behaviour only these things; a new behaviour is one record here.

The modifiers (`MODIFIERS`) are drawn by a scenario for any client whatever its behaviour: a
client without the signing key of a signed scenario (read-only, D32), one that writes a key a
later version knows (D9), one that goes offline and comes back.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from swarmconf.reference.configmerge import client as reference_client
from swarmconf.reference.configmerge import parse as reference_parse
from swarmconf.spec.configmerge import client as spec_client
from swarmconf.spec.configmerge import parse as spec_parse
from swarmconf.spec.configmerge.reasons import ConfigError

from .mutants import active

Factory = Callable[[int, bytes | None, bytes | None, bytes], Any]
"""Makes a client from lag, signing key, verification key and the stored message it holds."""


@dataclass(frozen=True)
class Setting:
    """What a campaign gives every factory: the adapter of `client` clients, a mutant."""

    command: str | None = None
    timeout: float = 10.0
    mutant: str | None = None
    twins: bool = True
    """Run each behaviour's twin beside it (P3)."""


@dataclass(frozen=True)
class Behaviour:
    name: str
    description: str
    profile: str
    """The conflict push its clients make (D30): `spec` (rule 8) or `libsession`."""
    make: Callable[[Setting], Factory]
    twin: Callable[[Setting], Factory | None] | None = None
    """The clients P3 runs beside its own, step by step (None: it is checked by no twin)."""
    declares: Callable[[Setting], frozenset[str]] = lambda setting: frozenset()
    """The deployed client's quirks it shares: findings they explain are acceptable."""
    needs_command: bool = False
    """Its clients are played through an adapter (`--client`): its twin judges what the
    adapter answers (C1: what it pushes and deletes, its current hash, whether it needs a
    push), not a client object's state."""


class Refused(NamedTuple):
    kind: type[ConfigError]
    reason: Any
    detail: str


class Parses:
    """A parser's answers, once per blob: a merge reads its inputs and never changes them,
    so the clients of one world share them; a refusal is kept and raised again."""

    def __init__(self, parse: Callable[[bytes, int, bytes | None], Any]) -> None:
        self.parse = parse
        self.found: dict[tuple[bytes, int, bytes | None], Any] = {}
        self.polls: dict[tuple[tuple[bytes, ...], int, bytes | None], list[Any]] = {}

    def __call__(self, raw: bytes, lag: int, verify: bytes | None) -> Any:
        key = (raw, lag, verify)
        found = self.found.get(key)
        if found is None:
            try:
                found = self.found[key] = self.parse(raw, lag, verify)
            except ConfigError as error:
                found = self.found[key] = Refused(type(error), error.reason, error.detail)
        if isinstance(found, Refused):
            # A new error each time: one kept and raised again would hold its tracebacks
            raise found.kind(found.reason, found.detail)
        return found

    def valid(self, messages: list[bytes], lag: int, verify: bytes | None) -> list[Any]:
        """The messages that parse, in order; the others are ignored (D14). Once per poll:
        a new list each time, which the caller may extend."""
        key = (tuple(messages), lag, verify)
        found = self.polls.get(key)
        if found is None:
            found = []
            for raw in messages:
                try:
                    found.append(self(raw, lag, verify))
                except ConfigError:
                    continue
            self.polls[key] = found
        return list(found)


class Merges:
    """A library's merges and deletions, once per inputs: by the identities of the parsed
    inputs (kept alive with the result, so that an identity stays its own) and the signing
    key; merges never change their inputs, and a client never changes a merge result in place
    (the world edits a copy)."""

    def __init__(self) -> None:
        self.merges: dict[tuple[Any, ...], tuple[list[Any], Any]] = {}
        self.obsolete: dict[tuple[Any, ...], tuple[list[Any], list[bytes]]] = {}

    def merge(self, valid: list[Any], sign_key: bytes | None, merge: Callable[[], Any]) -> Any:
        key = (*map(id, valid), sign_key)
        found = self.merges.get(key)
        if found is None or any(a is not b for a, b in zip(found[0], valid, strict=True)):
            found = self.merges[key] = (list(valid), merge())
        return found[1]

    def deleted(
        self,
        messages: list[bytes],
        result: Any,
        valid: list[Any],
        compute: Callable[[], list[bytes]],
    ) -> list[bytes]:
        key = (*messages, id(result), *map(id, valid))
        found = self.obsolete.get(key)
        held = [result, *valid]
        if found is None or any(a is not b for a, b in zip(found[0], held, strict=True)):
            found = self.obsolete[key] = (held, compute())
        return found[1]


class Serializations:
    """A client library's serializations of the messages its clients hold, once per message
    and signing key (kept alive with their bytes, so that an identity stays its own): a step
    replaces a client's message rather than change it (the world edits a copy)."""

    def __init__(self) -> None:
        self.found: dict[tuple[int, bytes | None], tuple[Any, bytes]] = {}

    def __call__(self, message: Any, sign_key: bytes | None) -> bytes:
        key = (id(message), sign_key)
        found = self.found.get(key)
        if found is None or found[0] is not message:
            found = self.found[key] = (message, bytes(message.serialize(sign_key)))
        return found[1]


class ReferenceClient(reference_client.Client):
    """The reference's client, its parses, merges and deletions shared through a world's
    `Parses` and `Merges`."""

    parses: Parses
    merges: Merges

    def _parsed(self, messages: list[bytes]) -> list[Any]:
        return self.parses.valid(messages, self.lag, self.verify_key)

    def _parse_own(self, raw: bytes) -> Any:
        return self.parses(raw, self.lag, self.verify_key)

    def _merge(self, valid: list[Any]) -> Any:
        return self.merges.merge(
            valid, self.sign_key, lambda: super(ReferenceClient, self)._merge(valid)
        )

    def _obsolete(self, messages: list[bytes], result: Any, valid: list[Any]) -> list[bytes]:
        return self.merges.deleted(
            messages,
            result,
            valid,
            lambda: super(ReferenceClient, self)._obsolete(messages, result, valid),
        )


def copied(client: Any) -> Any:
    """A client object of its own: its sets copied, its messages shared (see `World.copy`)."""
    kind: type = type(client)
    made: Any
    if plainly_copied(kind):
        made = object.__new__(kind)
        made.__dict__.update(client.__dict__)
    else:
        made = copy.copy(client)
    for name in ("to_delete", "old_hashes", "fired"):
        if name in vars(made):
            setattr(made, name, set(getattr(made, name)))
    return made


@cache
def plainly_copied(kind: type) -> bool:
    """Whether `copy.copy` of a `kind` object makes a new object of its attributes and no
    more (no copy or pickling hooks of its own, no slots): then that is done directly."""
    hooks = ("__new__", "__copy__", "__reduce_ex__", "__reduce__", "__getstate__", "__setstate__")
    plain = all(getattr(kind, name, None) is getattr(object, name, None) for name in hooks)
    slots = any("__slots__" in vars(base) for base in kind.__mro__[:-1])
    return plain and not slots and "__dict__" in dir(kind)


class Mutated:
    """A client whose every step runs with a mutant of the spec in place (`mutants`)."""

    def __init__(self, inner: Any, mutant: str) -> None:
        self.inner = inner
        """The client (`world.holder` reaches it)."""
        self.mutant = mutant

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __copy__(self) -> Mutated:
        return Mutated(copied(self.inner), self.mutant)

    def receive(self, messages: list[bytes]) -> None:
        with active(self.mutant):
            self.inner.receive(messages)

    def edit(self, data: Any) -> None:
        with active(self.mutant):
            self.inner.edit(data)

    def push(self) -> Any:
        with active(self.mutant):
            return self.inner.push()

    def confirm(self) -> None:
        self.inner.confirm()


class SpecClient(spec_client.Client):
    """The spec's client, its parses, merges, deletions and serializations shared through a
    world's `Parses`, `Merges` and `Serializations` (a parse and a merge never change the
    messages they read)."""

    parses: Parses
    merges: Merges
    serializations: Serializations

    def parse_polled(self, messages: list[bytes]) -> list[Any]:
        return self.parses.valid(messages, self.lag, self.verify_key)

    def parse_own(self, data: bytes) -> Any:
        return self.parses(data, self.lag, self.verify_key)

    def merged(self, valid: list[Any]) -> Any:
        inner = super().merged
        return self.merges.merge(valid, self.sign_key, lambda: inner(valid))

    def obsolete(self, messages: list[bytes], result: Any, valid: list[Any]) -> list[bytes]:
        inner = super().obsolete
        return self.merges.deleted(messages, result, valid, lambda: inner(messages, result, valid))

    def serialized(self, message: Any) -> bytes:
        return self.serializations(message, self.sign_key)


def spec_factory(profile: str) -> Callable[[Setting], Factory]:
    """Spec clients of `profile`, sharing their parses; under a mutant, each step runs with
    it in place (and parses of its own: a mutant may change what parses)."""

    def make(setting: Setting) -> Factory:
        parses = Parses(lambda raw, lag, verify: spec_parse(raw, lag=lag, verify_key=verify))
        merges = Merges()
        serializations = Serializations()

        def made(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
            client = SpecClient(
                lag=lag,
                profile=profile,
                verify_key=verify,
                sign_key=sign,
                current=parses(raw, lag, verify),
            )
            client.parses = parses
            client.merges = merges
            client.serializations = serializations
            return client if setting.mutant is None else Mutated(client, setting.mutant)

        return made

    return make


def intact_spec(profile: str) -> Callable[[Setting], Factory]:
    """Spec clients of `profile` without the campaign's mutant (a twin)."""
    make = spec_factory(profile)
    return lambda setting: make(Setting())


def reference_factory(profile: str) -> Callable[[Setting], Factory]:
    """Reference clients of `profile`, sharing their parses."""

    def make(setting: Setting) -> Factory:
        parses = Parses(lambda raw, lag, verify: reference_parse(raw, lag=lag, verify_key=verify))
        merges = Merges()

        def made(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
            client = ReferenceClient(
                lag=lag,
                profile=profile,
                verify_key=verify,
                sign_key=sign,
                current=parses(raw, lag, verify),
            )
            client.parses = parses
            client.merges = merges
            return client

        return made

    return make


@cache
def deployed_adapter() -> Any:
    from swarmconf.conformance.configmerge.deployed import DeployedAdapter

    return DeployedAdapter()


def deployed_factory(setting: Setting) -> Factory:
    """The emulation's state machine of the deployed client, sharing its parses."""
    from swarmconf.conformance.configmerge.deployed_client import DeployedClient

    parses = Parses(deployed_adapter().parse_message)

    def made(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
        def parse(blob: bytes) -> Any:
            return parses(blob, lag, verify)

        return DeployedClient(
            lag=lag,
            profile="libsession",
            parse=parse,
            verify_key=verify,
            sign_key=sign,
            current=parse(raw),
        )

    return made


def adapter_profile(setting: Setting) -> str:
    """The profile an adapter's clients are played with: `libsession` when its `hello` lists
    it, else `spec`."""
    from ..client import pooled

    assert setting.command is not None
    profiles = pooled(setting.command, setting.timeout).hello.get("profiles") or ["spec"]
    return "libsession" if "libsession" in profiles else "spec"


def adapter_factory(setting: Setting) -> Factory:
    """Clients played through the adapter `setting.command` (`swarm_client`), each what its
    answers say."""
    from .swarm_client import AdapterClient

    assert setting.command is not None
    command, timeout = setting.command, setting.timeout
    profile = adapter_profile(setting)
    quirks = adapter_quirks(setting)

    def made(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
        request: dict[str, Any] = {"op": "client", "lag": lag, "profile": profile, "msg": raw.hex()}
        if sign is not None:
            request["sign_key"] = sign.hex()
        if verify is not None:
            request["verify_key"] = verify.hex()
        return AdapterClient(command, timeout, request, quirks)

    return made


def adapter_quirks(setting: Setting) -> frozenset[str]:
    from ..client import pooled

    assert setting.command is not None
    return frozenset(pooled(setting.command, setting.timeout).quirks)


BEHAVIOURS: dict[str, Behaviour] = {}
"""Every behaviour, by the name `--swarm` and a mix take."""


def register(behaviour: Behaviour) -> Behaviour:
    if behaviour.name in BEHAVIOURS:
        raise ValueError(f"behaviour {behaviour.name!r} is registered twice")
    BEHAVIOURS[behaviour.name] = behaviour
    return behaviour


register(
    Behaviour(
        "spec",
        "swarmconf's spec client, profile spec (rule 8: a resolution's `=` is empty); under "
        "--mutant, the spec with that rule broken, checked against the intact spec (P3)",
        "spec",
        spec_factory("spec"),
        twin=lambda setting: intact_spec("spec")(setting) if setting.mutant else None,
    )
)
register(
    Behaviour(
        "reference",
        "swarmconf's reference client, profile spec, checked step by step against the spec's",
        "spec",
        reference_factory("spec"),
        twin=intact_spec("spec"),
    )
)
register(
    Behaviour(
        "libsession",
        "swarmconf's reference client, profile libsession (every data key in `=`, D30, as the "
        "deployed client pushes: X17), checked step by step against the spec's client of "
        "that profile",
        "libsession",
        reference_factory("libsession"),
        twin=intact_spec("libsession"),
        declares=lambda setting: frozenset({"X17"}),
    )
)
register(
    Behaviour(
        "deployed",
        "the emulation of the deployed client's state machine (X12, X17)",
        "libsession",
        deployed_factory,
        declares=lambda setting: frozenset({"X12", "X17"}),
    )
)
register(
    Behaviour(
        "client",
        "a client played through the adapter --client names (its `client` operation), judged "
        "on its own answers",
        "libsession",
        adapter_factory,
        twin=lambda setting: intact_spec(adapter_profile(setting))(setting),
        declares=adapter_quirks,
        needs_command=True,
    )
)


def behaviour(name: str) -> Behaviour:
    """The behaviour called `name` (ValueError naming the known ones)."""
    found = BEHAVIOURS.get(name)
    if found is None:
        raise ValueError(f"no behaviour {name!r}; known: {', '.join(BEHAVIOURS)}")
    return found


def descriptions() -> dict[str, str]:
    """Each behaviour's name and what it is (`--swarm`'s help, the report)."""
    return {name: found.description for name, found in BEHAVIOURS.items()}


@dataclass(frozen=True)
class Modifier:
    name: str
    description: str


MODIFIERS: Mapping[str, Modifier] = {
    modifier.name: modifier
    for modifier in (
        Modifier(
            "read-only",
            "a client of a signed scenario without the signing key: it polls and merges, "
            "never edits, pushes or deletes (D32)",
        ),
        Modifier(
            "future",
            "a later version's client: every message it edits carries a top-level key this "
            "version does not know (D9), which increments keep and merges drop",
        ),
        Modifier(
            "offline",
            "a client that goes offline (it neither polls nor pushes; it may edit) and comes "
            "back, before the swarm settles",
        ),
    )
}
"""What a scenario's clients may have besides their behaviour, drawn from the seed."""


@dataclass(frozen=True)
class Mix:
    """Behaviours that should settle together, given to a scenario's clients in turn."""

    name: str
    behaviours: tuple[str, ...]
    description: str
    weight: int = 1
    settles: bool = True
    """False: the mix races for ever (P5) by design; never drawn, run as a campaign of its
    own whose report explains the race."""


MIXES: dict[str, Mix] = {
    mix.name: mix
    for mix in (
        Mix("spec+reference", ("spec", "reference"), "the spec's and the reference's clients"),
        Mix("reference", ("reference",), "reference clients alone, profile spec"),
        Mix("spec", ("spec",), "spec clients alone"),
        Mix("libsession", ("libsession",), "reference clients alone, profile libsession"),
        Mix(
            "libsession+deployed",
            ("libsession", "deployed"),
            "swarmconf's libsession-profile client beside the deployed client's emulation",
        ),
        Mix("deployed", ("deployed",), "the deployed client's emulation alone"),
        Mix(
            "spec+deployed",
            ("spec", "deployed"),
            "a spec-profile client beside the deployed client: two resolutions of one "
            "conflict with different bytes race for ever (X17, P5)",
            settles=False,
        ),
    )
}
"""The mixes of behaviours a campaign draws from, by name (the report counts interleavings
per mix under these)."""


def drawn_mixes() -> tuple[Mix, ...]:
    """The mixes the default campaign draws from: those that should settle."""
    return tuple(mix for mix in MIXES.values() if mix.settles)


def check_names(names: tuple[str, ...], setting: Setting) -> None:
    """Every name a behaviour, and an adapter for `client` (ValueError otherwise)."""
    for name in names:
        if behaviour(name).needs_command and setting.command is None:
            raise ValueError(f"behaviour {name!r} needs an adapter command (--client)")


@dataclass
class Behaviours:
    """The behaviours of one world, their factories made once."""

    setting: Setting
    factories: dict[str, Factory] = field(default_factory=dict)
    twins: dict[str, Factory | None] = field(default_factory=dict)

    def factory(self, name: str) -> Factory:
        found = self.factories.get(name)
        if found is None:
            found = self.factories[name] = behaviour(name).make(self.setting)
        return found

    def twin(self, name: str) -> Factory | None:
        if not self.setting.twins:
            return None
        if name not in self.twins:
            make = behaviour(name).twin
            self.twins[name] = None if make is None else make(self.setting)
        return self.twins[name]

    def declares(self, name: str, quirk: str) -> bool:
        return quirk in self.declared(name)

    def declared(self, name: str) -> Collection[str]:
        """The quirks behaviour `name` declares (an adapter's: its `hello`'s)."""
        return behaviour(name).declares(self.setting)
