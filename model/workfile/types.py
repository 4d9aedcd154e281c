"""The types a Workfile document establishes statically, and a callee's joined result shape.

The chapter's type system is in sections not included; what the model knows
is what a document states (A-148): a literal's own type, a template with
text around its markers (a string), a whole marker of a typed input.  Every
other expression's type is known only at run time, and nothing here guesses
it.  A callee's joined object shape (WF-CATCH-24) is built from those types
(A-172).
"""

from __future__ import annotations

from typing import Any

import attrs

from wforacle.model.workfile.document import ABSENT, Field, Stop, Workfile, walk
from wforacle.model.workfile.expr import ExprError, Member, Name, is_template, template

JSON = Any


def static_type(value: JSON, inputs: dict[str, Field], accepted: dict[str, Field]) -> str | None:
    """The type of an expression-bearing value when the document establishes it (A-148).

    A literal has its own type; a template with text around its markers is
    a string; a whole-value marker ``{{ inputs.x }}`` or ``{{ a }}`` (an
    accepted name of the source entry) has the declared type.  Anything else
    is known only at run time: None.
    """
    if not is_template(value):
        return literal_type(value)
    try:
        parsed = template(value)
    except ExprError:
        return None
    whole = parsed.whole
    if whole is None:
        return "string"
    if isinstance(whole, Member) and whole.subject == Name("inputs") and whole.name in inputs:
        return inputs[whole.name].type
    if isinstance(whole, Name) and whole.name in accepted:
        return accepted[whole.name].type
    return None


def literal_type(value: JSON) -> str:
    """The field type of a literal JSON value (A-109; ``null`` for null)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "json"


def fits(found: str, declared: str) -> bool:
    """Whether a value of type ``found`` can satisfy a field of type ``declared`` (A-148)."""
    return (
        declared == "json"
        or found in (declared, "json")
        or (found, declared)
        == (
            "integer",
            "number",
        )
    )


def join(types: list[str]) -> str | None:
    """The join of the types of one binding across final-entry scopes (WFS-FORM-13, A-147).

    Equal types join to themselves, ``integer`` and ``number`` to
    ``number``, anything with ``json`` to ``json``; otherwise there is no
    join (None).
    """
    kinds = set(types)
    if "json" in kinds:
        return "json"
    if kinds == {"integer", "number"}:
        return "number"
    return next(iter(kinds)) if len(kinds) == 1 else None


@attrs.frozen
class Slot:
    """One member of a callee's joined object shape (A-172).

    ``type``: the join of its types in the shapes that hold it, null apart,
    or None when any of them is known only at run time (then nothing about
    its type is checked); ``nullable``: some successful result lacks it or
    holds null.  WF-CATCH-24: "every member whose type excludes null is
    required".
    """

    type: str | None
    nullable: bool

    @property
    def required(self) -> bool:
        """Whether a replacement must supply it: its type is known and excludes null."""
        return self.type is not None and self.type != "json" and not self.nullable

    def admits(self, found: str) -> bool:
        """Whether a replacement member of type ``found`` is assignable to it."""
        if self.type is None:
            return True
        if found == "null":
            return self.nullable or self.type == "json"
        return fits(found, self.type)


def joined_shape(workfile: Workfile) -> dict[str, Slot] | None:
    """A callee's joined object shape: its members, or None when not an object shape.

    A run of ``workfile`` succeeds with its ``outputs`` (completed; none: an
    empty result, "Normal completion without outputs produces an empty
    result") or with a ``wf.stop`` step's ``result`` (stopped; none: ``{}``,
    A-123).  A result written as one template declares no shape (A-122).
    Each member's type is the join across the shapes that hold it; a member
    some shape lacks, or holds as null, is nullable (A-172, as WFS-FORM-13
    joins outputs across final entries).
    """
    shapes = [workfile.outputs]
    shapes += [step.body.result for step in walk(workfile.steps) if isinstance(step.body, Stop)]
    shapes = [{} if shape is ABSENT else shape for shape in shapes]
    if not all(isinstance(shape, dict) for shape in shapes):
        return None
    inputs = {field.name: field for field in workfile.inputs}
    slots: dict[str, Slot] = {}
    for name in sorted({name for shape in shapes for name in shape}):
        held = [shape[name] for shape in shapes if name in shape]
        types = [static_type(value, inputs, {}) for value in held]
        nullable = len(held) < len(shapes) or "null" in types
        known = [t for t in types if t != "null"]
        typed = [t for t in known if t is not None]  # None: known only at run time
        slots[name] = Slot(join(typed) if len(typed) == len(known) else None, nullable)
    return slots
