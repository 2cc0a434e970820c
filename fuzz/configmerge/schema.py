"""The Spark schema of a result row (`campaign.Row`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, get_type_hints

from .campaign import Row

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


def row_schema() -> StructType:
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
    hints = get_type_hints(Row)
    return StructType([StructField(name, types[hints[name]], False) for name in Row._fields])
