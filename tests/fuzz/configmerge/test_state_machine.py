"""A quick convergence check: Hypothesis drives three clients and a swarm directly on the spec.

Rules edit (increment, apply edits, publish and delete the base), sync (merge a subset of the
swarm with the client's own message, publish a new merge and delete its inputs) and settle
(everyone syncs fully until nothing changes, then all hold the same bytes and the swarm's
current messages are that one).
"""

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from swarmconf.fuzz.configmerge.edits import INTS, KEYS, STRINGS, Edit, apply_batch
from swarmconf.spec import configmerge as spec

LAG = 3
CLIENTS = 3

scalars = st.sampled_from(INTS) | st.sampled_from(STRINGS)
paths = st.lists(st.sampled_from(KEYS), min_size=1, max_size=3).map(tuple)
values = st.recursive(
    scalars | st.frozensets(scalars, min_size=1, max_size=3).map(set),
    lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, min_size=1, max_size=2),
    max_leaves=4,
)
edits = st.one_of(
    st.builds(Edit, st.just("assign"), paths, values),
    st.builds(Edit, st.just("remove"), paths),
    st.builds(Edit, st.just("add"), paths, st.none(), st.lists(scalars, min_size=1).map(tuple)),
    st.builds(Edit, st.just("discard"), paths, st.none(), st.lists(scalars, min_size=1).map(tuple)),
    st.builds(Edit, st.just("clear"), paths),
)


def current(messages: list[bytes]) -> list[bytes]:
    """The messages D14 keeps: not too old, not included in another."""
    parsed = [spec.parse(message, lag=LAG) for message in messages]
    top = max(message.seqno for message in parsed)
    included = {(entry.seqno, entry.hash) for message in parsed for entry in message.lagged}
    return [
        data
        for data, message in zip(messages, parsed, strict=True)
        if message.seqno + LAG > top and (message.seqno, message.hash) not in included
    ]


class Swarm(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        base = spec.ConfigMessage.new(0, lag=LAG).serialize()
        self.swarm: dict[bytes, None] = {base: None}
        self.clients = [base] * CLIENTS

    def publish(self, message: bytes, obsolete: set[bytes]) -> None:
        for old in obsolete:
            self.swarm.pop(old, None)
        self.swarm[message] = None

    @rule(client=st.integers(0, CLIENTS - 1), batch=st.lists(edits, max_size=3))
    def edit(self, client: int, batch: list[Edit]) -> None:
        base = self.clients[client]
        message = spec.parse(base, lag=LAG).increment()
        apply_batch(message.data, tuple(batch))
        self.clients[client] = message.serialize()
        self.publish(self.clients[client], {base})

    @rule(client=st.integers(0, CLIENTS - 1), mask=st.integers(0, 255))
    def sync(self, client: int, mask: int) -> None:
        self.merge_view(client, mask)

    def merge_view(self, client: int, mask: int) -> bool:
        seen = [m for i, m in enumerate(self.swarm) if mask >> (i % 8) & 1]
        inputs = {*seen, self.clients[client]}
        result = spec.merge(sorted(inputs), lag=LAG)
        self.clients[client] = result.serialize()
        if result.merged:
            self.publish(self.clients[client], inputs)
        return result.merged

    @rule()
    def settle(self) -> None:
        for _ in range(CLIENTS + 3):
            if not any([self.merge_view(client, 255) for client in range(CLIENTS)]):
                break
        else:
            raise AssertionError("P5: no quiescence")
        assert len(set(self.clients)) == 1, "P1: clients differ"
        assert current(list(self.swarm)) == [self.clients[0]], "P1: the swarm did not collapse"

    @invariant()
    def published_messages_parse(self) -> None:
        for message in self.swarm:
            assert spec.parse(message, lag=LAG).serialize() == message


Swarm.TestCase.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)
TestSwarm = Swarm.TestCase
