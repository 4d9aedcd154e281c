"""The specifications wforacle models: one entry each.

See docs/architecture.md, "Adding a specification".

The oracle reads only this table and the records in it
(properties/specification.py); a specification plugs in by adding its
record here.  The first entry is the default where a command needs one.
"""

from __future__ import annotations

from wforacle.properties.harness.specification import HARNESS
from wforacle.properties.specification import Specification
from wforacle.properties.w6w.specification import W6W
from wforacle.properties.workfile.specification import WORKFILE

SPECIFICATIONS: dict[str, Specification] = {spec.name: spec for spec in (W6W, HARNESS, WORKFILE)}
