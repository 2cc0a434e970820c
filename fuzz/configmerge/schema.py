"""The Spark schema of a result row (`campaign.Row`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rows import schema_of
from .campaign import Row

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


def row_schema() -> StructType:
    return schema_of(Row)
