"""The README's three-node walkthrough, run as written (on free ports) with real Serf agents."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from swarmconf.reference.kvgossip.serf_agent import free_port

README = Path(__file__).resolve().parents[3] / "README.md"
DEFAULT_PORTS = ("7946", "7947", "7948", "7373", "7374", "7375")


def walkthrough() -> str:
    text = README.read_text()
    marker = text.index("<!-- kv-walkthrough")
    block = re.search(r"```sh\n(.*?)```", text[marker:], re.S)
    assert block is not None
    script = block.group(1)
    for port in DEFAULT_PORTS:
        assert port in script
        script = script.replace(port, str(free_port()))
    return script


def test_readme_walkthrough(tmp_path: Path) -> None:
    (tmp_path / "walk.sh").write_text(walkthrough())
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    shell = subprocess.Popen(
        ["bash", "-e", "walk.sh"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = shell.communicate(timeout=120)
    finally:
        if shell.poll() is None:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait()
    assert shell.returncode == 0, err
    lines = out.splitlines()
    assert "hello" in lines and "blue" in lines and "refused" in lines
    assert "UNAUTHORIZED" in err
    assert lines[-1].startswith("/demo/greeting\t") and lines[-1].endswith("\tset\thello")
    assert not any(line.startswith("/demo/color") for line in lines)
