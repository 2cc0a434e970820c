"""Case catalogues: a suite's cases written as small named functions over a shared builder.

    case = Catalogue[Builder]()

    @case
    def equal_stores(b: Builder) -> None:
        b.transcript("equal-stores", ...)

    def build() -> Suite:
        return case.fill(Builder()).suite

`fill` runs the functions in the order they are declared, so the file's cases (and their
tcIds) follow the source.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

Builder = TypeVar("Builder")


class Catalogue(Generic[Builder]):
    """The case functions of one suite, in declaration order."""

    def __init__(self) -> None:
        self.functions: list[Callable[[Builder], None]] = []

    def __call__(self, function: Callable[[Builder], None]) -> Callable[[Builder], None]:
        """Register `function` (a decorator); it stays callable as written."""
        self.functions.append(function)
        return function

    def fill(self, builder: Builder) -> Builder:
        """Run every case function on `builder`, in order; return the builder."""
        for function in self.functions:
            function(builder)
        return builder
