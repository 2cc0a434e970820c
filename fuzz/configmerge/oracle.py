"""The P4 oracle: which updates must survive, worked out from the edits, not from merge code.

Data is viewed as *atoms*: a scalar at a path, or one element of a set at a path. An update
*writes* the atoms whose state differs between the data its client edited and the data it
published (assigned or removed scalars, added or removed set elements; a removed dict removes
everything inside it). An update *interferes* with an atom at path P when it writes at a proper
prefix of P, at a path below P, or at P itself with another kind (scalar vs set): such writes
replace the value P lives in. Atoms where another known update changed the kind of a value on
their path, or wiped a container around them, are left unchecked (see `contested`). An update
*wipes* the containers (dicts, sets) it emptied or removed: D15 replays its diff there against
data that no longer holds the container, which removes the whole path, including what
concurrent updates added inside it, unless a later update wrote inside the container again (the
atom is then left unchecked).

Knowledge is tracked per message by the simulation: an increment knows what its base knew plus
its own update; a merge knows what its remaining inputs (after the "within N" and "included"
rules, D14) knew. An update is *safe* in a message when no merge on the way could have lost it:
either every remaining input knew it safely, or a remaining input that knew it safely still
carried it (as itself or in its lagged list), so the merge replays it (D15).

P4: for every atom, take the highest-ranked (seqno, hash) update known to the final message that
writes, wipes or interferes with it. If that update writes or wipes the atom and is safe, the
final data must show its write (absent, for a wipe). If it is not safe and the data differs,
the update was lost beyond the lag window: expected, counted, not a violation. Updates the
final message does not know at all were dropped as too old (D14) and are counted as well.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .edits import Data, Path, Scalar

Atom = tuple[str, Path, Scalar | None]
"""("s", path, None) for a scalar, ("e", path, element) for a set element."""


class Sentinel:
    """A marker that stays itself through pickling (a state shipped to a Spark worker carries
    updates whose writes hold `ABSENT`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        return self.name


ABSENT = Sentinel("ABSENT")


def atoms_of(data: Data, prefix: Path = ()) -> dict[Atom, object]:
    """Every atom of `data`: scalars map to their value, set elements to True."""
    result: dict[Atom, object] = {}
    for key, value in data.items():
        path = (*prefix, key)
        if isinstance(value, dict):
            result.update(atoms_of(value, path))
        elif isinstance(value, set):
            for element in value:
                result[("e", path, element)] = True
        else:
            result[("s", path, None)] = value
    return result


def same_value(a: object, b: object) -> bool:
    """Equality that keeps ints and byte strings apart."""
    return type(a) is type(b) and a == b


def writes_of(before: Data, after: Data) -> dict[Atom, object]:
    """The atoms an edit changed: their new value, or ABSENT when removed."""
    old = atoms_of(before)
    new = atoms_of(after)
    writes: dict[Atom, object] = {}
    for atom, value in new.items():
        if atom not in old or not same_value(old[atom], value):
            writes[atom] = value
    for atom in old:
        if atom not in new:
            writes[atom] = ABSENT
    return writes


def containers_of(data: Data, prefix: Path = ()) -> set[Path]:
    """Paths of every nested dict and set in `data`."""
    paths: set[Path] = set()
    for key, value in data.items():
        path = (*prefix, key)
        if isinstance(value, dict):
            paths.add(path)
            paths.update(containers_of(value, path))
        elif isinstance(value, set):
            paths.add(path)
    return paths


def present(data: Data, path: Path) -> bool:
    node: object = data
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def wiped_of(before: Data, after: Data) -> frozenset[Path]:
    """Containers an edit emptied or removed: its diff names them, and its data no longer has
    them, so replaying it removes the whole path, whatever others added there (D15)."""
    return frozenset(path for path in containers_of(before) if not present(after, path))


UNKNOWN = Sentinel("UNKNOWN")
UNASKED = Sentinel("UNASKED")
OTHER_KIND = {"s": "e", "e": "s"}


@dataclass(frozen=True)
class Update:
    """One published edit as the oracle sees it."""

    bit: int
    rank: tuple[int, bytes]
    writes: dict[Atom, object]
    wiped: frozenset[Path] = frozenset()
    uncertain: bool = False
    """Whether what it wiped may show or not, depending on the merges on the way (an edit
    of a resolution listing every key in `=`, whose `=` cannot say what was removed, X17)."""

    @functools.cached_property
    def touched(self) -> frozenset[tuple[str, Path]]:
        """The (kind, path) pairs this update writes at."""
        return frozenset((atom[0], atom[1]) for atom in self.writes)

    @functools.cached_property
    def paths(self) -> frozenset[Path]:
        return frozenset(path for _, path in self.touched)

    @functools.cached_property
    def above(self) -> frozenset[Path]:
        """Proper prefixes of the paths this update writes at."""
        return frozenset(path[:i] for path in self.paths for i in range(1, len(path)))

    def interferes(self, atom: Atom) -> bool:
        """Whether this update's writes replace the value `atom` lives in: a write at a proper
        prefix of its path, below its path, or at its path with the other kind."""
        kind, path, _ = atom
        return (
            path in self.above
            or (OTHER_KIND[kind], path) in self.touched
            or any(path[:i] in self.paths for i in range(1, len(path)))
        )

    def wiped_around(self, path: Path) -> Path | None:
        """The shortest container this update wiped that holds `path` (or is it), if any."""
        if self.wiped:
            for i in range(1, len(path) + 1):
                if path[:i] in self.wiped:
                    return path[:i]
        return None

    @functools.cached_property
    def effects(self) -> dict[Atom, object | None]:
        """`effect` by atom, as far as asked (a world keeps its updates for every interleaving)."""
        return {}

    @functools.cached_property
    def contests(self) -> dict[Atom, bool]:
        """`contesting` by atom, as far as asked."""
        return {}

    def effect(self, atom: Atom) -> object | None:
        """What this update leaves at `atom`: a value, ABSENT, UNKNOWN, the path of a container
        it wiped around the atom, or None (no effect)."""
        if atom in self.effects:
            return self.effects[atom]
        effect: object | None
        if atom in self.writes:
            effect = self.writes[atom]
        else:
            effect = self.wiped_around(atom[1])
            if effect is None and self.interferes(atom):
                effect = UNKNOWN
        self.effects[atom] = effect
        return effect

    def contesting(self, atom: Atom) -> bool:
        """Whether this update replaces the value `atom` lives in or wiped a container around
        it (see `contested`)."""
        found = self.contests.get(atom)
        if found is None:
            found = self.contests[atom] = (
                self.interferes(atom) or self.wiped_around(atom[1]) is not None
            )
        return found

    def recreates(self, path: Path) -> bool:
        """Whether this update writes a value somewhere inside `path`."""
        return any(
            atom[1][: len(path)] == path and value is not ABSENT
            for atom, value in self.writes.items()
        )


@dataclass(frozen=True)
class Verdict:
    checked: int
    violations: tuple[str, ...]
    lost: frozenset[int]
    """Bits of known updates whose winning writes were lost beyond the window."""


def check_survival(final: Data, updates: list[Update], safe: int) -> Verdict:
    """P4 over the updates the final message knows; `safe` is the bitmask of safe ones."""
    actual = atoms_of(final)
    ranked = sorted(updates, key=lambda update: update.rank, reverse=True)
    checked = 0
    violations: list[str] = []
    lost: set[int] = set()
    for atom in {atom for update in updates for atom in update.writes}:
        position, top, expected = top_effect(atom, ranked)
        if isinstance(expected, tuple):
            # A wipe removes the atom unless a higher-ranked update wrote inside the container
            # again (then it depends on whether that update saw the wipe), or the wipe itself
            # may not show (an uncertain update): unknown here
            wiped = top.uncertain or any(u.recreates(expected) for u in ranked[:position])
            expected = UNKNOWN if wiped else ABSENT
        if expected is UNKNOWN or contested(atom, top, updates):
            continue
        found = actual.get(atom, ABSENT)
        holds = same_value(found, expected) if expected is not ABSENT else found is ABSENT
        if top.bit & safe:
            checked += 1
            if not holds:
                violations.append(
                    f"P4 {describe(atom)}: expected {show(expected)}, found {show(found)} "
                    f"(update seqno {top.rank[0]})"
                )
        elif not holds:
            lost.add(top.bit)
    return Verdict(checked, tuple(sorted(violations)), frozenset(lost))


def top_effect(atom: Atom, ranked: list[Update]) -> tuple[int, Update, object]:
    """The highest-ranked update with an effect at `atom` (one that writes it must be known),
    its position and that effect."""
    for position, u in enumerate(ranked):
        # The answers cached by `effect`, looked up here (asked for every atom of every verdict)
        effect = u.effects.get(atom, UNASKED)
        if effect is UNASKED:
            effect = u.effect(atom)
        if effect is not None:
            return position, u, effect
    raise ValueError(f"no known update writes {describe(atom)}")


def contested(atom: Atom, top: Update, updates: list[Update]) -> bool:
    """Whether another known update, of any rank, changed the kind of a value on the atom's
    path or wiped a container around it. Replay takes assigned values from the data of the
    message an entry was taken from, and after such a change that data may hold no dict where
    the entry's diff has one; the entry then removes the whole path (D15), wherever it ranks.
    The atom is left unchecked."""
    for u in updates:
        # The answers cached by `contesting`, looked up here (asked of every known update)
        found = u.contests.get(atom)
        if found is None:
            found = u.contesting(atom)
        if found and u is not top:
            return True
    return False


def describe(atom: Atom) -> str:
    kind, path, element = atom
    name = ".".join(key.decode("latin-1") for key in path)
    return name if kind == "s" else f"{name}[{element!r}]"


def show(value: object) -> str:
    return "absent" if value is ABSENT else repr(value)
