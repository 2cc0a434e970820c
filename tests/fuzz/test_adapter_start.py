"""A Python adapter process starts on what its answers need: a campaign restarts the aborting
adapter at every hang, and each start's imports take CPU from the campaign's workers."""

import subprocess
import sys

from swarmconf.fuzz.configmerge.hostile import Input, parse_request

UNNEEDED = {
    "importlib.abc",
    "importlib.metadata",
    "importlib.resources",
    "subprocess",
    "traceback",
    "swarmconf.conformance.client",
    "swarmconf.conformance.runner",
    "swarmconf.conformance.vectors",
    "swarmconf.conformance.configmerge.deployed_client",
}
"""Modules nothing answering `hello` and `parse` uses: the vector files' machinery, the
runner's, the interleavings' state machine, the formatting of an adapter's bug."""


def test_the_aborting_adapter_answers_parse_without_unneeded_modules() -> None:
    request = parse_request(Input(b"d1:#i1e1:&de1:<le1:=dee", 5, None, ""))
    code = (
        "import sys\n"
        "from swarmconf.fuzz.configmerge.aborting_adapter import AbortingAdapter\n"
        "adapter = AbortingAdapter(undeclared=frozenset({'X3'}))\n"
        "adapter.handle({'op': 'hello'})\n"
        f"assert 'result' in adapter.handle({request!r})\n"
        "print(' '.join(sys.modules))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(shown.stdout.split())
    assert "swarmconf.conformance.configmerge.deployed" in loaded
    assert not loaded & UNNEEDED, sorted(loaded & UNNEEDED)
