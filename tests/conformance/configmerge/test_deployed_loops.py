"""Where the deployed parser loops (X3): an integer diff value met before any refusal, whatever
follows it; the emulation hangs on exactly those inputs, in a parse and in a merge."""

from __future__ import annotations

import pytest

from swarmconf.conformance.configmerge.deployed import DeployedAdapter
from swarmconf.conformance.configmerge.deployed_bt import loops

HEAD = b"d1:#i10e1:&de"
HASH = bytes(32)
FOUND_BY_THE_CAMPAIGN = bytes.fromhex(
    "64313a23693565313a2664313a61323a00ff313a62693765313a636939323233333732303336383534373735383037"
    "6565313a3c6c6c69336533323a6305d077bd4d9929a9167c3d6394c2b85fa2ff63cbeb691b995340f3ab9a2f1464"
    "313a61303a313a62303a313a63303a65656c69346533323ab11dbd8c35bd228dfc1f1cc9e7a8f3dcbce5a807c594"
    "1a4f39874dcecdf9e60364313a6464313a62303a65656565313a3d64313a6164313a61693165656564313a646439"
    "3a62303a2d656565"
)
"""A hostile input the deployed client hangs on, where the spec says `BT_KEY_NOT_STRING`."""
DEEP_LAGGED = HEAD + b"1:<lli9e32:" + HASH + b"d1:a" * 99 + b"d1:ai1e" + b"e" * 100 + b"ee1:=dee"
"""An integer 100 dicts deep in a lagged diff, where the spec says `BT_TOO_DEEP`."""


@pytest.mark.parametrize(
    "message",
    [
        FOUND_BY_THE_CAMPAIGN,
        DEEP_LAGGED,
        HEAD + b"1:=d1:ai1ee",  # the message ends inside the loop
        HEAD + b"1:=d1:ai-9223372036854775808eee",
        HEAD + b"1:=d1:ai18446744073709551615eee",
        HEAD + b"1:=d1:a0:1:bd1:ci0eeee",
        b"d1:#i10e1:$i18446744073709551615e1:&de1:=d1:ai1eee",
    ],
)
def test_it_loops(message: bytes) -> None:
    assert loops(message, 5)


@pytest.mark.parametrize(
    "message",
    [
        HEAD + b"1:=d1:ai18446744073709551616eee",  # past uint64: refused while skipped
        HEAD + b"1:=d1:ai-9223372036854775809eee",
        HEAD + b"1:=d1:ai1e1:b?ee",  # the whole diff is checked before its entries
        HEAD + b"1:=d1:b0:1:ai1eee",  # keys out of order, refused first
        HEAD + b"1:<lli5e32:" + HASH + b"d1:ai1eeee1:=dee",  # dropped by the lag
        b"d1:#i10e1:$i-9223372036854775809e1:&de1:=d1:ai1eee",  # an unknown key out of range
        b"d1:#i10e1:&d1:ad" + b"ee" + b"1:=d1:ai1eee",  # data: an empty dict
        b"d1:#i10e1:&de1:=de",  # no loop, refused
        HEAD + b"1:=d1:alli1eeleee" + b"e",  # an integer in a set diff
    ],
)
def test_it_does_not_loop(message: bytes) -> None:
    assert not loops(message, 5)


def test_the_lag_decides_whether_a_lagged_diff_is_read() -> None:
    message = HEAD + b"1:<lli7e32:" + HASH + b"d1:ai1eeee1:=dee"
    assert [loops(message, lag) for lag in (2, 3, 4)] == [False, False, True]


@pytest.mark.parametrize("message", [FOUND_BY_THE_CAMPAIGN, DEEP_LAGGED])
def test_the_emulation_hangs_in_a_parse_and_a_merge(message: bytes) -> None:
    adapter = DeployedAdapter()
    parse = adapter.emulate({"op": "parse", "msg": message.hex(), "lag": 5})
    valid = (HEAD + b"1:=dee").hex()
    merge = adapter.emulate({"op": "merge", "msgs": [valid, message.hex()], "lag": 5})
    for emulated in (parse, merge):
        assert emulated.stop is not None and (emulated.stop.result, emulated.stop.quirk) == (
            "hang",
            "X3",
        )
