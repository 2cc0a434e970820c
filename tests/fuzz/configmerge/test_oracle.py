from swarmconf.fuzz.configmerge.oracle import ABSENT, Update, check_survival, wiped_of, writes_of

A = ("s", (b"a",), None)
X = ("s", (b"d", b"x"), None)


def test_writes_record_assignments_removals_and_set_elements() -> None:
    before = {b"a": 1, b"s": {1, 2}, b"d": {b"x": 1}}
    after = {b"a": 2, b"s": {2, 3}}
    assert writes_of(before, after) == {
        A: 2,
        ("e", (b"s",), 1): ABSENT,
        ("e", (b"s",), 3): True,
        X: ABSENT,
    }
    assert wiped_of(before, after) == {(b"d",)}


def test_an_int_and_a_byte_string_are_different_writes() -> None:
    assert writes_of({b"a": 1}, {b"a": b"\x01"}) == {A: b"\x01"}


def test_the_highest_ranked_safe_write_must_survive() -> None:
    low = Update(2, (5, b"\x01"), {A: 1})
    high = Update(4, (5, b"\x02"), {A: 2})
    good = check_survival({b"a": 2}, [low, high], safe=0b110)
    assert good.violations == () and good.checked == 1
    bad = check_survival({b"a": 1}, [low, high], safe=0b110)
    assert len(bad.violations) == 1 and bad.violations[0].startswith("P4 a:")


def test_an_unsafe_winner_that_is_lost_is_counted_not_reported() -> None:
    low = Update(2, (5, b"\x01"), {A: 1})
    high = Update(4, (6, b"\x00"), {A: 2})
    verdict = check_survival({b"a": 1}, [low, high], safe=0b010)
    assert verdict.violations == ()
    assert verdict.lost == {4}


def test_a_higher_write_at_a_prefix_leaves_the_atom_unchecked() -> None:
    low = Update(2, (5, b"\x01"), {X: 1})
    high = Update(4, (6, b"\x00"), {("s", (b"d",), None): 7})
    verdict = check_survival({b"d": 7}, [low, high], safe=0b110)
    assert verdict.violations == ()
    assert verdict.checked == 0  # the two disagree on the kind of d: neither atom is checked


def test_a_lower_ranked_change_of_kind_on_the_path_leaves_the_atom_unchecked() -> None:
    # A lower update turned d into a set: the data a later entry is replayed from may hold no
    # dict at d, and that entry then removes d whole (D15), so d.x is not checked
    writes = Update(4, (5, b"\x01"), {X: 1})
    changes_kind = Update(2, (4, b"\x00"), {("e", (b"d",), 1): True})
    verdict = check_survival({}, [writes, changes_kind], safe=0b110)
    assert verdict.violations == () and verdict.checked == 0
    alone = check_survival({}, [writes], safe=0b100)
    assert alone.violations == ("P4 d.x: expected 1, found absent (update seqno 5)",)


def test_a_wipe_removes_what_lower_updates_added_inside() -> None:
    adds = Update(2, (5, b"\x01"), {X: 1})
    wipes = Update(4, (6, b"\x00"), {("s", (b"d", b"y"), None): ABSENT}, frozenset({(b"d",)}))
    assert check_survival({}, [adds, wipes], safe=0b110).violations == ()
    kept = check_survival({b"d": {b"x": 1}}, [adds, wipes], safe=0b110)
    assert kept.violations == ("P4 d.x: expected absent, found 1 (update seqno 6)",)


def test_a_later_write_inside_a_wiped_container_makes_the_wipe_unknown() -> None:
    adds = Update(2, (5, b"\x01"), {X: 1})
    wipes = Update(4, (6, b"\x00"), {("s", (b"d", b"y"), None): ABSENT}, frozenset({(b"d",)}))
    refills = Update(8, (7, b"\x00"), {("s", (b"d", b"z"), None): 3})
    verdict = check_survival({b"d": {b"x": 1, b"z": 3}}, [adds, wipes, refills], safe=0b1110)
    assert verdict.violations == ()


def test_a_lower_ranked_wipe_around_the_atom_leaves_it_unchecked() -> None:
    # An entry replayed after the atom's writer may take its data from a message where that
    # lower wipe removed the container, and then remove the container whole (D15)
    writes = Update(4, (7, b"\x01"), {X: 1})
    wipes = Update(2, (6, b"\x00"), {("s", (b"d", b"y"), None): ABSENT}, frozenset({(b"d",)}))
    verdict = check_survival({}, [writes, wipes], safe=0b110)
    assert verdict.violations == () and verdict.checked == 1  # only d.y, the wipe's own write


def test_nested_wiped_containers_judge_by_the_outermost() -> None:
    # The wipe removed d and d.y: a later write at d.z, outside d.y but inside d, makes the
    # element at d.y unknown, whichever order the wiped paths are held in
    adds = Update(2, (5, b"\x01"), {("e", (b"d", b"y"), 1): True})
    wiped = frozenset({(b"d",), (b"d", b"y")})
    wipes = Update(4, (6, b"\x00"), {("s", (b"d", b"w"), None): ABSENT}, wiped)
    refills = Update(8, (7, b"\x00"), {("s", (b"d", b"z"), None): 3})
    assert wipes.wiped_around((b"d", b"y")) == (b"d",)
    final = {b"d": {b"y": {1}, b"z": 3}}
    verdict = check_survival(final, [adds, wipes, refills], safe=0b1110)
    assert verdict.violations == () and verdict.checked == 1  # d.w only: the wipe contests d.z


def test_an_update_answers_each_atom_the_same_when_asked_again() -> None:
    wipes = Update(4, (6, b"\x00"), {("s", (b"d", b"y"), None): ABSENT}, frozenset({(b"d",)}))
    prefix = Update(2, (5, b"\x00"), {("s", (b"d",), None): 7})
    for update in (wipes, prefix):
        first = [(update.effect(atom), update.contesting(atom)) for atom in (A, X)]
        assert first == [(update.effect(atom), update.contesting(atom)) for atom in (A, X)]
    assert wipes.effect(X) == (b"d",) and wipes.effect(A) is None and wipes.contesting(X)
    assert prefix.effect(X) is not None and not prefix.contesting(A)
