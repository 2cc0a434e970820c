"""Private by default: the data directory 0700; the store, key files and sockets 0600.

The node creates what it owns with these modes whatever the umask, and refuses to start on a
data directory or key file that others may read or write (`PERMISSIONS_TOO_OPEN`), naming the
path, its mode and the `chmod` that fixes it: a local user must not read values, keys or the
cluster secret, nor talk to the control socket.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .reasons import NodeReason

DIR_MODE = 0o700
FILE_MODE = 0o600
_OTHERS = stat.S_IRWXG | stat.S_IRWXO


class PermissionsError(Exception):
    """A path is open to other users; `.reason` is `PERMISSIONS_TOO_OPEN`."""

    def __init__(self, path: Path, mode: int, wanted: int) -> None:
        self.reason = NodeReason.PERMISSIONS_TOO_OPEN
        self.detail = f"{path} has mode {mode:04o}; run: chmod {wanted:04o} {path}"
        super().__init__(f"{self.reason}: {self.detail}")


def _check(path: Path, wanted: int) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & _OTHERS:
        raise PermissionsError(path, mode, wanted)


def check_private_file(path: Path) -> None:
    """Refuse a file (key, store, socket) that group or others may access."""
    if path.exists():
        _check(path, FILE_MODE)


def private_dir(path: Path) -> None:
    """Create the data directory 0700, or check that an existing one is no looser."""
    try:
        path.mkdir(mode=DIR_MODE, parents=True)
    except FileExistsError:
        _check(path, DIR_MODE)
    else:
        os.chmod(path, DIR_MODE)  # mkdir's mode is masked by the umask


def private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if absent, then check its mode."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        check_private_file(path)
    else:
        os.fchmod(fd, FILE_MODE)
        os.close(fd)
