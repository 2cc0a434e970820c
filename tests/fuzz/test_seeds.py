from swarmconf.fuzz.configmerge.seeds import derive_bytes, derive_rng, derive_seed

from .hashseeds import outputs_under_hash_seeds


def test_seeds_do_not_depend_on_the_process_hash_seed() -> None:
    code = "from swarmconf.fuzz.configmerge.seeds import derive_seed; print(derive_seed(7, 'x', 3))"
    outputs = outputs_under_hash_seeds(code, ("1", "2", "random"))
    assert outputs == {str(derive_seed(7, "x", 3))}


def test_seeds_separate_their_parts() -> None:
    assert derive_seed(1, 23) != derive_seed(12, 3)
    assert derive_seed(1, 2, 3) != derive_seed(1, 2, 4)
    assert derive_rng(5, 6).random() == derive_rng(5, 6).random()
    assert len(derive_bytes(32, 1)) == 32
    assert derive_bytes(32, 1) != derive_bytes(32, 2)
