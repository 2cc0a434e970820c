"""A typed row (a NamedTuple of int, bool, float and str fields) as a Spark schema."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_type_hints

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


def schema_of(row: type[tuple[Any, ...]]) -> StructType:
    """The schema of rows of class `row`: its fields in order, none nullable."""
    from pyspark.sql.types import (
        BooleanType,
        DataType,
        DoubleType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    types: dict[type, DataType] = {
        int: LongType(),
        bool: BooleanType(),
        float: DoubleType(),
        str: StringType(),
    }
    hints = get_type_hints(row)
    fields: tuple[str, ...] = row._fields  # type: ignore[attr-defined]
    return StructType([StructField(name, types[hints[name]], False) for name in fields])
