"""Size limits that the design's transport depends on (notes 1.2, 6.4)."""

from swarmconf.fuzz.kvgossip.node import CHANGE_EVENT, REVOCATION_EVENT
from swarmconf.fuzz.kvgossip.serf import EVENT_ENCODED_LIMIT, EVENT_OVERHEAD
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant, revoke_grant
from swarmconf.spec.kvgossip.keys import MAX_PATTERN_BYTES

UINT64_MAX = (1 << 64) - 1


def test_largest_revocation_fits_one_serf_user_event() -> None:
    pattern = "/" + "p" * (MAX_PATTERN_BYTES - 1)
    grant = issue_grant(
        ROOT.seed, ALICE.pk, pattern, subgrant=True, issued_at=UINT64_MAX - 2, expires_at=UINT64_MAX
    )
    revocation = revoke_grant(ROOT.seed, grant, UINT64_MAX - 1, ROOT.pk)
    size = len(revocation.encode())
    assert size <= EVENT_ENCODED_LIMIT - EVENT_OVERHEAD - len(REVOCATION_EVENT)
    assert 400 < size < 440  # the notes estimate about 430 B


def test_largest_change_notification_fits_one_serf_user_event() -> None:
    payload = encode(["n" * 16, "/" + "k" * 255, UINT64_MAX, b"\x00" * 32])
    assert len(payload) <= EVENT_ENCODED_LIMIT - EVENT_OVERHEAD - len(CHANGE_EVENT)
