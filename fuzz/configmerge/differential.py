"""Differential campaigns: every operation of every interleaving, through a foreign client.

The compiled reference runs each scenario's interleavings as in any campaign (P1, P4, P5).
Every distinct operation those interleavings used (the starting message's `new`, each edit's
`increment`, each `merge`, and a `parse` and a `serialize` of every message involved) becomes
one adapter request; a task sends its requests in one pipelined batch and, while the adapter
answers, the reference's adapter answers the same requests from the parses and merges the
engine already made. Where the client and the reference differ, the spec answers the request
and judges (`verdict.judge`): a reference the spec contradicts fails R1, a swarmconf bug shown
before anything else. An interleaving fails C1 when the client's answer to one of its
operations differs from the spec's (bytes, hashes, merged or not, reason codes), C2 when the
client crashed, hung, garbled or errored on one, and C3 when an answer could not be judged (the
oracle erred, the emulation of the deployed client cannot explain a difference). Skipped
requests and declared quirks are counted, per quirk, not passed silently.

The swarm deletes what the client says: where its answer to a merge lists other `obsolete`
inputs than the reference's, the interleavings that used that merge are played again deleting
what the client listed (`settle_deletions`), and their P1, P4 and P5 are those of the replay. A
client that deletes the wrong message loses it there, declared quirk (X12) or not: the quirk
makes the answer acceptable, not the loss.
"""

from __future__ import annotations

import functools
import gc
import json
import time
import types
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from swarmconf.conformance.client import Message
from swarmconf.reference import configmerge as reference
from swarmconf.reference.configmerge.data import encode_data
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.message import message_hash

from ..client import DEFAULT_TIMEOUT, PooledClient, client_did, pooled, replay_line
from ..heap import collector_paused
from .cached_spec import CachedLibrary, LibraryOracle
from .campaign import row_of
from .edits import Data
from .engine import Engine, Merged, Published, among
from .impl import Implementation
from .run import Outcome, run_case
from .scenario import Scenario, generate_scenario
from .schedule import Schedule, generate_schedule
from .verdict import (
    AGREED,
    FAILED,
    QUIRK,
    SKIPPED,
    UNJUDGED,
    Verdict,
    asked,
    declared_hang,
    failure_cause,
    judge,
    reason_pairs,
)

OpKey = tuple[Any, ...]
PROPERTIES = {
    "R1": "the reference answers as the spec wherever the client differs (else a swarmconf bug)",
    "C1": "the client's answers equal the spec's: bytes, hashes, merged or not, reason codes",
    "C2": "the client never crashes, hangs, garbles an answer or errors",
    "C3": "every answer is judged: the oracle answers, the emulation explains each difference",
}
STATUS_PROPERTY = {FAILED: "C2", UNJUDGED: "C3"}
"""The property a verdict of each status fails (any other failing status fails C1)."""
MAX_NOTED = 3
"""Violations of one property noted per interleaving (its first operations)."""
DELETION_ROUNDS = 32
"""Replays with the client's deletions: each may reach merges the client has not answered yet,
whose deletions may differ again. Each round needs a merge no earlier round reached, so the
chain ends; through the emulation of the deployed client, one interleaving in 1,000,000 (seed
1, case 1:900:69) needed 9 rounds."""
CLIENT_DELETED = ", the swarm deleting what the client answered"
"""Appended to the P1, P4 and P5 violations of an interleaving replayed with the client's
deletions."""
SHRINK_TIMEOUT = 2.0
"""While shrinking a C2 group's input, a candidate the client does not answer within this (or
the campaign's timeout, if shorter) hangs: a hang's candidates would otherwise each cost the
whole timeout."""
COLLECT_EVERY = 8
"""Tasks between two runs of the cycle collector, paused otherwise: whenever it runs, the next
task's engine, played while the adapter answers, is alive, and it would traverse all of it
(as much as a tenth of a task's CPU time). A released engine leaves only small cycles."""


@dataclass
class RecordingEngine(Engine):
    """The engine on a cached library (the reference), noting which distinct operations the
    current interleaving uses; its `oracle` answers adapter requests from the same parses, and
    the spec, asked only where the client differs, judges."""

    cache: CachedLibrary = field(default_factory=CachedLibrary)
    touched: set[OpKey] = field(default_factory=set)
    edited: dict[OpKey, Data] = field(default_factory=dict)
    """Each edit's data after its batch, as the spec computed it."""
    answered: dict[OpKey, Message] = field(default_factory=dict)
    """The oracle's answer to an edit's `increment` request, kept from the edit itself: the
    library incremented the same message, gave it the same data and signed it with the same
    key."""
    hexes: dict[bytes, str] = field(default_factory=dict)
    """Each message's hex, written once however many requests carry it."""
    told: dict[tuple[frozenset[bytes], bool], frozenset[bytes]] = field(default_factory=dict)
    """What the client deletes after a merge, where it differs from the reference."""
    lenient: bool = False
    """The client's answers are judged with any reason code for a refusal (`verdict.judge`)."""
    derived: dict[OpKey, tuple[OpKey, ...]] = field(default_factory=dict)
    """Each operation with the parses and serializes of the messages it reads or writes (see
    `with_messages`), found once per task however many interleavings use it."""

    def hex_of(self, message: bytes) -> str:
        found = self.hexes.get(message)
        if found is None:
            found = self.hexes[message] = message.hex()
            self.oracle.raw[found] = message
        return found

    @functools.cached_property
    def oracle(self) -> LibraryOracle:
        return LibraryOracle(self.cache)

    @functools.cached_property
    def judge(self) -> LibraryOracle:
        """The spec's adapter, on a cache of its own, for the requests the client and the
        oracle answer differently."""
        return LibraryOracle(CachedLibrary(spec))

    def expected(self, key: OpKey, request: Message) -> Message:
        """The oracle's answer to the request for operation `key` (`errored` if it raised)."""
        return self.answered.get(key) or asked(self.oracle.handle, request)

    def stable(self, result: bytes, shuffled: list[bytes], sign_key: bytes | None) -> bool:
        """P2 is the libraries' own property, checked by campaigns without a client."""
        return True

    def check_valid(self, message: bytes, *, merged: bool, client: int | None) -> list[str]:
        """P6 likewise: here the reference is the oracle, and C1 compares the client's bytes."""
        return []

    def edit(self, base: bytes, client: int, batch: int) -> Published:
        self.touched.add(("edit", base, client, batch))
        return super().edit(base, client, batch)

    def apply_edit(
        self, impl: Implementation, base: bytes, client: int, batch: int
    ) -> tuple[bytes, Data, Data]:
        message, before, after = super().apply_edit(impl, base, client, batch)
        key = ("edit", base, client, batch)
        self.edited[key] = after
        if not self.scenario.clients[client].future:  # whose request lacks the unknown key
            published = {"msg": message.hex(), "hash": message_hash(message).hex()}
            self.answered[key] = {"result": published}
        return message, before, after

    def merge(self, inputs: frozenset[bytes], signer: bool) -> Merged:
        self.touched.add(("merge", inputs, signer))
        merged = super().merge(inputs, signer)
        told = self.told.get((inputs, signer))
        return merged if told is None else replace(merged, obsolete=told)

    def published(self, merged: Any, sign_key: bytes | None) -> bytes:
        """Through the cache, which answers the same merge request with these bytes."""
        return self.cache.publish(merged, sign_key)[0]


def recording_engine(scenario: Scenario, library: types.ModuleType = reference) -> RecordingEngine:
    """An engine running `scenario` on `library` (the reference unless a test swaps it)."""
    cache = CachedLibrary(library)
    return RecordingEngine(scenario, cache.implementation(), None, cache=cache)


def with_messages(engine: RecordingEngine, keys: Iterable[OpKey]) -> set[OpKey]:
    """`keys` and the starting message's `new`, plus a parse and a serialize of each message
    the operations read or wrote."""
    result: set[OpKey] = {("new",)}
    derived = engine.derived
    for key in keys:
        found = derived.get(key)
        if found is None:
            found = derived[key] = operations_of(engine, key)
        result.update(found)
    return result


def operations_of(engine: RecordingEngine, key: OpKey) -> tuple[OpKey, ...]:
    """`key` with a parse and a serialize of each message it reads or writes (nothing for an
    edit of an invalid base: the client was never asked to edit it)."""
    if key[0] == "edit" and key not in engine.edited:
        return ()
    messages = [key[1]] if key[0] == "edit" else list(key[1])
    if key[0] == "edit":
        messages.append(engine.edits[key[1:]].message)
    return (key, *(op for m in messages for op in (("parse", m), ("serialize", m))))


def request_of(engine: RecordingEngine, key: OpKey) -> Message:
    """The adapter request for one distinct operation."""
    scenario = engine.scenario
    keys = {"verify_key": engine.verify_key.hex()} if engine.verify_key else {}
    if key[0] == "new":
        sign = {"sign_key": engine.sign_key.hex()} if engine.sign_key else {}
        data = data_hex(scenario.base_data)
        return {
            "op": "new",
            "seqno": scenario.base_seqno,
            "lag": scenario.lag,
            "data": data,
            **sign,
        }
    if key[0] == "edit":
        _, base, client, _batch = key
        signer = scenario.clients[client].signer
        sign_key = engine.sign_key if signer else engine.forged_key
        sign = {"sign_key": sign_key.hex()} if sign_key else {}
        data = data_hex(engine.edited[key])
        request = {"op": "increment", "msg": engine.hex_of(base), "lag": scenario.lag, "data": data}
        return request | keys | sign
    if key[0] == "merge":
        _, inputs, signer = key
        sign = {"sign_key": engine.sign_key.hex()} if signer and engine.sign_key else {}
        msgs = [engine.hex_of(message) for message in sorted(inputs)]
        return {"op": "merge", "msgs": msgs, "lag": scenario.lag} | keys | sign
    return {"op": key[0], "msg": engine.hex_of(key[1]), "lag": scenario.lag} | keys


def data_hex(data: Data) -> str:
    """A request's `data`: the canonical encoding of valid data, as `&` holds it (D11), written
    by the reference's compiled encoder."""
    return encode_data(data).hex()


def sort_key(key: OpKey) -> OpKey:
    """The order of a task's requests and of an interleaving's notes, the same in every
    process: a merge by its inputs in order (a frozenset's own order varies with the hash seed)."""
    if key[0] == "merge":
        return ("merge", sorted(key[1]), key[2])
    return key


@dataclass
class Checked:
    """The verdicts on a set of operations, and what the client cost."""

    verdicts: dict[OpKey, Verdict]
    requests: int
    seconds_waiting: float
    judging: float = 0.0
    """Seconds spent judging the answers (the spec and the emulation included)."""
    answers: dict[OpKey, Any] = field(default_factory=dict)
    """The client's answers, by operation."""


def send_operations(
    engine: RecordingEngine, keys: set[OpKey], client: PooledClient
) -> Callable[[], Checked]:
    """Send the operations to the client in one batch and ask the oracle the same meanwhile;
    the returned call collects the answers and judges each (see `verdict.judge`)."""
    ordered = sorted(keys, key=sort_key)
    requests = [request_of(engine, key) for key in ordered]
    waited = client.waiting
    pending = client.send(requests, declared_hang(client.quirks))
    expected = [
        engine.expected(key, request) for key, request in zip(ordered, requests, strict=True)
    ]

    def collect() -> Checked:
        answers = pending()
        started = time.perf_counter()
        ask_spec = engine.judge.handle
        verdicts = {
            key: judge(request, want, answer, client.quirks, ask_spec, engine.lenient)
            for key, request, want, answer in zip(ordered, requests, expected, answers, strict=True)
        }
        judging = time.perf_counter() - started
        by_key = dict(zip(ordered, answers, strict=True))
        return Checked(verdicts, len(requests), client.waiting - waited, judging, by_key)

    return collect


def check_operations(engine: RecordingEngine, keys: set[OpKey], client: PooledClient) -> Checked:
    """Send the operations to the client in one batch; judge each answer against the spec's."""
    return send_operations(engine, keys, client)()


def client_deletions(
    engine: RecordingEngine, checked: Checked
) -> dict[tuple[frozenset[bytes], bool], frozenset[bytes]]:
    """The merges after which the client deletes other inputs than the reference, with what
    it deletes (its `obsolete`; an answer without a readable one deletes as the reference). An
    answer equal to the reference's (agreed, the reference not wrong) deletes as it does."""
    told = {}
    for key, answer in checked.answers.items():
        verdict = checked.verdicts[key]
        if key[0] != "merge" or (verdict.status == AGREED and not verdict.oracle_wrong):
            continue
        result = answer.get("result") if isinstance(answer, dict) else None
        if not isinstance(result, dict) or not isinstance(result.get("obsolete"), list):
            continue
        try:
            hashes = [bytes.fromhex(text) for text in result["obsolete"]]
        except (TypeError, ValueError):
            continue
        deleted = among(sorted(key[1]), hashes)
        if deleted != engine.merges[key[1:]].obsolete:
            told[key[1:]] = deleted
    return told


def settle_deletions(
    engine: RecordingEngine,
    results: list[tuple[int, Outcome, set[OpKey]]],
    schedule_of: Callable[[int], Schedule],
    checked: Checked,
    client: PooledClient,
) -> Checked:
    """Replay each interleaving that used a merge after which the client deletes otherwise than
    the reference, deleting what the client says, until the replays reach no merge whose
    deletions differ anew (at most DELETION_ROUNDS); the operations the replays reach first are
    sent to the client too. `results` take the replays' outcomes, and each interleaving the
    operations of both runs; the returned `Checked` holds every verdict."""
    told = client_deletions(engine, checked)
    latest = {index: touched for index, _, touched in results}
    position = {index: number for number, (index, _, _) in enumerate(results)}
    for _ in range(DELETION_ROUNDS):
        if not told:
            return checked
        engine.told.update(told)
        keys = {("merge", *key) for key in told}
        affected = [index for index, touched in latest.items() if keys & touched]
        replayed = interleavings(engine, [(index, schedule_of(index)) for index in affected])
        for index, outcome, touched in replayed:
            outcome.violations[:] = [deleted_by_client(text) for text in outcome.violations]
            number = position[index]
            results[number] = (index, outcome, results[number][2] | touched)
            latest[index] = touched
        new = set().union(*(touched for _, _, touched in replayed)) - checked.verdicts.keys()
        more = check_operations(engine, new, client) if new else Checked({}, 0, 0.0)
        checked = Checked(
            checked.verdicts | more.verdicts,
            checked.requests + more.requests,
            checked.seconds_waiting + more.seconds_waiting,
            checked.judging + more.judging,
            checked.answers | more.answers,
        )
        told = client_deletions(engine, more)
    for index, touched in latest.items():
        if {("merge", *key) for key in told} & touched:
            results[position[index]][1].violations.append(
                f"C3 the client's deletions still differ after {DELETION_ROUNDS} replays"
            )
    return checked


def deleted_by_client(violation: str) -> str:
    """A violation of a replay with the client's deletions, saying so when the swarm's."""
    return violation + CLIENT_DELETED if violation[:2] in ("P1", "P4", "P5") else violation


def flagged_keys(verdicts: dict[OpKey, Verdict]) -> set[OpKey]:
    """The operations whose verdict an interleaving using them reports (R1, C1, C2, C3)."""
    return {
        key
        for key, verdict in verdicts.items()
        if verdict.oracle_wrong or verdict.status not in (AGREED, SKIPPED, QUIRK)
    }


def client_violations(
    touched: set[OpKey], verdicts: dict[OpKey, Verdict], flagged: set[OpKey] | None = None
) -> list[str]:
    """R1, C1, C2 and C3 violations of one interleaving, from the verdicts on the operations it
    used (a swarmconf bug first); `flagged` is `flagged_keys(verdicts)`, found once per task."""
    noted: dict[str, list[str]] = {name: [] for name in PROPERTIES}
    if flagged is None:
        flagged = flagged_keys(verdicts)
    for key in sorted(touched & flagged, key=sort_key):
        verdict = verdicts[key]
        found = []
        if verdict.oracle_wrong:
            found.append(("R1", verdict.oracle_wrong))
        if verdict.status not in (AGREED, SKIPPED, QUIRK):
            found.append((STATUS_PROPERTY.get(verdict.status, "C1"), verdict.detail))
        for name, detail in found:
            if len(noted[name]) < MAX_NOTED:
                noted[name].append(f"{name} {detail}")
    return [violation for name in PROPERTIES for violation in noted[name]]


def failed_by_cause(
    engine: RecordingEngine, checked: Checked, keys: Iterable[OpKey]
) -> dict[str, list[tuple[OpKey, Message]]]:
    """The operations among `keys` that failed C2 (crash, hang, garbage, error), with their
    requests, by cause (`verdict.failure_cause`: the operation, what the client did, what the
    spec answers), in the order of `sort_key`; requests left unsent have none."""
    causes: dict[str, list[tuple[OpKey, Message]]] = {}
    for key in sorted(keys, key=sort_key):
        verdict = checked.verdicts.get(key)
        failed = verdict is not None and STATUS_PROPERTY.get(verdict.status) == "C2"
        if not failed or not client_did(checked.answers[key]):
            continue
        request = request_of(engine, key)
        cause = failure_cause(request, engine.expected(key, request), checked.answers[key])
        causes.setdefault(cause, []).append((key, request))
    return causes


def cause_counts(played: Played, checked: Checked) -> dict[str, dict[str, Any]]:
    """A task's C2 failures by cause (see `failed_by_cause`): how many operations failed and
    how many interleavings used one, and the first of them (its case, and the operation's
    request with the line that replays it through the task's client)."""
    task = played.task
    failed = {
        key: (cause, request)
        for cause, found in failed_by_cause(played.engine, checked, checked.verdicts).items()
        for key, request in found
    }
    counts: dict[str, dict[str, Any]] = {}
    for index, _, touched in played.results:
        hit = sorted(touched & failed.keys(), key=sort_key)
        for key in hit:
            cause, request = failed[key]
            if cause not in counts:
                example = {
                    "case": f"{task.campaign_seed}:{task.scenario}:{index}",
                    "request": request,
                    "replay": replay_line(request, task.command),
                }
                counts[cause] = {"count": 0, "interleavings": 0, "example": example}
        for cause in {failed[key][0] for key in hit}:
            counts[cause]["interleavings"] += 1
    for cause, _ in failed.values():
        if cause in counts:
            counts[cause]["count"] += 1
    return counts


def tally(verdicts: Iterable[Verdict]) -> dict[str, int]:
    counts = dict.fromkeys(("requests", SKIPPED, QUIRK, FAILED), 0)
    for verdict in verdicts:
        counts["requests"] += 1
        if verdict.status in counts:
            counts[verdict.status] += 1
    return counts


def quirk_counts(verdicts: Iterable[Verdict]) -> Counter[str]:
    """Answers acceptable as a declared quirk, by quirk (one answer may rest on several)."""
    return Counter(quirk for verdict in verdicts for quirk in verdict.quirks)


class ClientTask(NamedTuple):
    """Schedules [first, first + schedules) of one scenario, checked through `command`."""

    campaign_seed: int
    scenario: int
    first: int
    schedules: int
    command: str
    timeout: float = DEFAULT_TIMEOUT
    lenient: bool = False
    """A refusal with another reason code than the spec's is agreement (counted by pair)."""


CLIENT_FIELDS = ("client_requests", "client_skipped", "client_quirks", "client_failures")
"""Per task, counted on its first row: distinct requests sent, skipped, judged by a declared
quirk, failed (crash, hang, garbage, error); then the seconds spent waiting for answers, the
answers acceptable as a declared quirk by quirk (JSON, `quirk_counts`), the refusals judged
leniently by pair of reasons (JSON, `verdict.reason_pairs`) and the failures by cause (JSON,
`cause_counts`)."""


def interleavings(
    engine: RecordingEngine, schedules: Iterable[tuple[int, Schedule]]
) -> list[tuple[int, Outcome, set[OpKey]]]:
    """Run each schedule on the spec, with the operations it used."""
    results = []
    for index, schedule in schedules:
        engine.touched = set()
        outcome = run_case(engine, schedule)
        results.append((index, outcome, with_messages(engine, engine.touched)))
    return results


@dataclass
class Played:
    """A task's interleavings on the spec, the operations they used, and the seconds taken."""

    task: ClientTask
    scenario: Scenario
    engine: RecordingEngine
    results: list[tuple[int, Outcome, set[OpKey]]]
    seconds: float

    def schedule_of(self, index: int) -> Schedule:
        task = self.task
        return generate_schedule(self.scenario, task.campaign_seed, task.scenario, index)


def play(task: ClientTask, library: types.ModuleType = reference) -> Played:
    started = time.perf_counter()
    scenario = generate_scenario(task.campaign_seed, task.scenario)
    engine = recording_engine(scenario, library)
    engine.lenient = task.lenient
    schedules = (
        (index, generate_schedule(scenario, task.campaign_seed, task.scenario, index))
        for index in range(task.first, task.first + task.schedules)
    )
    with collector_paused():
        results = interleavings(engine, schedules)
    return Played(task, scenario, engine, results, time.perf_counter() - started)


def release(engine: RecordingEngine) -> None:
    """Drop what a played task's engine keeps once its rows are out. Its oracle and judge are
    adapters, cycles (a handler table holds the adapter's own methods) that only the collector
    frees: emptied, they reach nothing more for it to traverse."""
    engine.cache.forget()
    for name in ("oracle", "judge"):
        adapter = engine.__dict__.pop(name, None)
        if adapter is not None:
            adapter.cache.forget()
            adapter.raw.clear()


def run_client_tasks(
    tasks: Iterable[ClientTask],
    client: PooledClient | None = None,
    library: types.ModuleType = reference,
) -> Iterator[tuple[Any, ...]]:
    """Each task's rows (`Row`'s fields, then `CLIENT_FIELDS`, `client_seconds`,
    `client_quirk_counts`, `client_reason_pairs` and `client_failure_causes`), through this
    worker's pooled adapter unless `client` is given, the interleavings played on `library`
    (the reference, or a test's broken one). One batch is in flight at a time, and while the
    adapter answers it, the oracle answers the same requests and then the next task's
    interleavings are played, so the campaign's own work hides behind the adapter's."""
    queue = iter(tasks)
    task = next(queue, None)
    with collector_paused():
        played = play(task, library) if task is not None else None
        done = 0
        while played is not None:
            started = time.perf_counter()
            task = played.task
            link = client or pooled(task.command, task.timeout)
            keys = set().union(*(touched for _, _, touched in played.results))
            collect = send_operations(played.engine, keys, link)
            spent = time.perf_counter() - started
            following = next(queue, None)
            upcoming = play(following, library) if following is not None else None
            started = time.perf_counter()
            checked = collect()
            checked = settle_deletions(
                played.engine, played.results, played.schedule_of, checked, link
            )
            spent += time.perf_counter() - started
            yield from rows_of(played, checked, played.seconds + spent)
            release(played.engine)
            played = upcoming
            done += 1
            if done % COLLECT_EVERY == 0:
                gc.collect()


def run_client_task(
    task: ClientTask, client: PooledClient | None = None, library: types.ModuleType = reference
) -> list[tuple[Any, ...]]:
    """One scenario's rows (see `run_client_tasks`)."""
    return list(run_client_tasks([task], client, library))


def rows_of(played: Played, checked: Checked, seconds: float) -> Iterator[tuple[Any, ...]]:
    task, scenario = played.task, played.scenario
    counts = tally(checked.verdicts.values())
    quirks = json.dumps(dict(sorted(quirk_counts(checked.verdicts.values()).items())))
    reasons = json.dumps(dict(sorted(reason_pairs(checked.verdicts.values()).items())))
    per_schedule = seconds / max(1, task.schedules)
    flagged = flagged_keys(checked.verdicts)
    causes = json.dumps(cause_counts(played, checked) if counts[FAILED] else {})
    for number, (index, outcome, touched) in enumerate(played.results):
        outcome.violations.extend(client_violations(touched, checked.verdicts, flagged))
        extra = [counts[name] for name in ("requests", SKIPPED, QUIRK, FAILED)]
        first = number == 0
        yield (
            *row_of(task.campaign_seed, task.scenario, scenario, index, outcome, per_schedule),
            *(extra if first else [0] * len(extra)),
            checked.seconds_waiting if first else 0.0,
            quirks if first else "{}",
            reasons if first else "{}",
            causes if first else "{}",
        )


def plan_client(
    campaign_seed: int,
    interleavings: int,
    per_scenario: int,
    command: str,
    timeout: float,
    lenient: bool = False,
) -> list[ClientTask]:
    tasks = []
    for scenario, first in enumerate(range(0, interleavings, per_scenario)):
        count = min(per_scenario, interleavings - first)
        tasks.append(ClientTask(campaign_seed, scenario, 0, count, command, timeout, lenient))
    return tasks


def client_schema() -> Any:
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    from .schema import row_schema

    extra = [StructField(name, LongType(), False) for name in CLIENT_FIELDS]
    seconds = StructField("client_seconds", DoubleType(), False)
    quirks = StructField("client_quirk_counts", StringType(), False)
    reasons = StructField("client_reason_pairs", StringType(), False)
    causes = StructField("client_failure_causes", StringType(), False)
    return StructType([*row_schema().fields, *extra, seconds, quirks, reasons, causes])


@dataclass
class Replay:
    """One interleaving replayed through a client: its outcome (client violations included),
    its engine, the verdicts on its operations and the operations it used."""

    outcome: Outcome
    engine: RecordingEngine
    checked: Checked
    touched: set[OpKey]

    def causes(self) -> dict[str, list[tuple[OpKey, Message]]]:
        """Its operations that failed C2, with their requests, by cause."""
        return failed_by_cause(self.engine, self.checked, self.touched)


def replayed_with_client(scenario: Scenario, schedule: Schedule, client: PooledClient) -> Replay:
    """One interleaving on a fresh engine, its operations through `client`."""
    engine = recording_engine(scenario)
    results = interleavings(engine, [(0, schedule)])
    checked = check_operations(engine, results[0][2], client)
    checked = settle_deletions(engine, results, lambda _: schedule, checked, client)
    [(_, outcome, touched)] = results
    outcome.violations.extend(client_violations(touched, checked.verdicts))
    return Replay(outcome, engine, checked, touched)


def replay_with_client(
    scenario: Scenario, schedule: Schedule, client: PooledClient
) -> tuple[Outcome, dict[str, int]]:
    """One interleaving on a fresh engine, its operations through `client`: its outcome and the
    client's counts."""
    replay = replayed_with_client(scenario, schedule, client)
    return replay.outcome, tally(replay.checked.verdicts.values())


def replays_through(command: str, timeout: float) -> Callable[[tuple[Scenario, Schedule]], Replay]:
    """A case replayed through `command`, each replay on a freshly started adapter."""
    from ..client import start

    def replay(case: tuple[Scenario, Schedule]) -> Replay:
        client = start(command, timeout)
        try:
            return replayed_with_client(*case, client)
        finally:
            client.close()

    return replay


def shrink_through_client(
    case: tuple[Scenario, Schedule],
    command: str,
    timeout: float,
    rounds: int = 2,
    cause: str | None = None,
    seconds: float | None = None,
) -> tuple[Scenario, Schedule]:
    """A smaller case failing the same client property (C1 or C2) first, or else the same
    first property; or, given a C2 `cause`, still failing with that cause (each candidate's
    hang then cut at `SHRINK_TIMEOUT`). Each candidate is replayed on a freshly started
    adapter; after `seconds` (if given), the smallest case found so far."""
    from .shrink import drop_base_keys, drop_clients, drop_edits, drop_events

    deadline = None if seconds is None else time.monotonic() + seconds
    if cause is None:
        replay = replays_through(command, timeout)
        original = replay(case).outcome.properties
        if not original:
            raise ValueError("the case does not fail")
        target = next((name for name in original if name in PROPERTIES), original[0])

        def failing(candidate: tuple[Scenario, Schedule]) -> bool:
            return target in replay(candidate).outcome.properties

    else:
        replay = replays_through(command, min(timeout, SHRINK_TIMEOUT))

        def failing(candidate: tuple[Scenario, Schedule]) -> bool:
            return cause in replay(candidate).causes()

    def fails(candidate: tuple[Scenario, Schedule]) -> bool:
        if deadline is not None and time.monotonic() > deadline:
            return False
        try:
            return failing(candidate)
        except ValueError:
            return False

    for _ in range(rounds):
        before = case
        for step in (drop_clients, drop_events, drop_edits, drop_base_keys):
            case = step(case, fails)
        if case == before:
            break
    return case
