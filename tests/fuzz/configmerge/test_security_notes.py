"""The campaign report names the security findings among a client's declared quirks."""

from __future__ import annotations

from swarmconf.fuzz.configmerge.report import security_notes


def test_a_client_declaring_x15_gets_the_security_note() -> None:
    (note,) = security_notes({"name": "c", "quirks": ["X2", "X15"]})
    assert note.startswith("Security:") and "X15" in note


def test_no_note_without_the_quirk_or_a_hello() -> None:
    assert security_notes({"name": "c", "quirks": ["X1", "X9"]}) == []
    assert security_notes(None) == []
