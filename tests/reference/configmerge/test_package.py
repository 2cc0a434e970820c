"""The package loads its public names on first use, and they are the names the API contract
gives, whatever was imported before."""

from __future__ import annotations

import subprocess
import sys

import swarmconf.reference.configmerge as reference
import swarmconf.spec.configmerge as spec


def test_the_package_exports_the_specs_api() -> None:
    assert set(reference.__all__) == set(reference._SOURCES)
    assert set(spec.__all__) <= set(reference.__all__)
    for name in reference.__all__:
        assert getattr(reference, name) is not None


def test_merge_stays_the_function_when_its_module_is_imported_first() -> None:
    code = (
        "import swarmconf.reference.configmerge.merge\n"
        "import swarmconf.reference.configmerge as package\n"
        "from swarmconf.reference.configmerge import merge\n"
        "assert callable(merge) and package.merge is merge, merge\n"
        "assert package.merge.__name__ == 'merge'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        reference.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("no AttributeError")
