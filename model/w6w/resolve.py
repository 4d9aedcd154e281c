"""Resolution of a step's ``with`` value against the run scope.

Notation: ``S`` is the run scope, a mapping from the eight roots (vars,
steps, trigger, secrets, documents, inputs, output, foreach) to data;
``D = S - secrets`` is the generic data root every expression reads
(W6W-ENV-21: "a data root from which secrets has been removed").
``resolve_with(w, S)`` walks ``w`` once:

- ``{"$": path}``           → the value at ``path`` in D, type-preserved (W6W-EXPR-1, W6W-BIND-3)
- ``{"$expr": logic}``      → JSONLogic over D, type-preserved (W6W-EXPR-2)
- ``{"type": "expr", "parts": …}`` → one string (W6W-ENV-20)
- a string with ``{{ }}``   → the root-anchoring rule (W6W-ROOT-19..27)
- other objects and arrays  → resolved member by member (W6W-EXPR-3)
- anything else             → itself

One pass: a value produced by resolution is never walked again (W6W-ENV-24,
W6W-BIND-5), so a resolved ``{"$": …}`` or ``{{ … }}`` reaches the action
verbatim.  A failure is a ``ResolutionError`` with a code; the step then
fails with phase "resolution".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import Any

import attrs

from wforacle.grammar.template import (
    Marker,
    Mode,
    Template,
    chain_var_refs,
    has_chain_token,
    parse_template,
)
from wforacle.model.expr import classic, js
from wforacle.model.expr.fast import evaluate  # the compiled path: rules repeat across runs
from wforacle.model.expr.js import UNDEFINED
from wforacle.model.expr.jsonlogic import (
    JsonLogicError,
    Limits,
    get_property,
    to_json,
)
from wforacle.model.w6w.parts import (
    ExprPart,
    Part,
    RenderPart,
    SecretPart,
    TextPart,
    UnknownPart,
    VarPart,
    part_from_json,
)

JSON = Any

# W6W-ROOT-25: "Treat the eight-member RunScope root set as closed for this
# rule: vars, steps, trigger, secrets, documents, inputs, output, foreach."
ROOTS = frozenset(
    {"vars", "steps", "trigger", "secrets", "documents", "inputs", "output", "foreach"}
)


DEFAULT_LIMITS = Limits()

# Assumption A-37's readings: where the fallback-chain root check applies to an
# expr part whose payload is a flat chain — on the part, whichever production made
# it (the model's), or only on a marker written with infix || / ?? (docs/readings.md).
CHAIN_CHECKS = ("part", "infix")

# What a secret's plaintext is recorded as (assumption A-70): W6W-ENV-17 "secrets
# is injected by the host from its vault before the run and is never persisted
# with run state".
REDACTED = "[secret]"


class ResolutionError(Exception):
    """Resolution fails the step (phase "resolution"); ``code`` names why.

    ``clauses``: the clauses of the resolution features used up to the
    failure, the failure's own first (``Resolver.clauses``).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.clauses: tuple[str, ...] = (FAILURE_CLAUSES.get(code, "A-34"),)


# The clause each resolution failure's code comes from.
FAILURE_CLAUSES = {
    "secret_unavailable": "W6W-ROOT-11",  # "naming no available secret fails the step"
    "render_ref_unresolved": "W6W-ENV-25",  # "Fail the step when a render part's ref …"
    "render_ref_not_a_string": "W6W-ENV-25",
    "expr_evaluation_failed": "A-34",  # an expression that fails fails the step
}


def data_root(scope: Mapping[str, JSON]) -> dict[str, JSON]:
    """D: the run scope with ``secrets`` removed (W6W-ENV-21, W6W-ENV-18).

    W6W-ENV-18: "A host that puts secrets on the generic data root does not
    conform to this RFC."  Everything else stays, documents included
    (W6W-ENV-26), and nothing else is removed (W6W-ENV-16: "The barrier is
    about secrets and nothing else").
    """
    return {root: value for root, value in scope.items() if root != "secrets"}


def lookup(root: JSON, path: str) -> JSON:
    """The value at a dotted ``path`` in ``root``, or UNDEFINED (W6W-EXPR-1).

    Segments are split on "." (the Step id row: "a path resolvers split on
    .") and read as JSON members and array indexes.
    """
    value = root
    for segment in path.split("."):
        if value is None or value is UNDEFINED:
            return UNDEFINED
        value = get_property(value, segment)
    return value


def stringify(value: JSON, structured: str = "json") -> str:
    """A part's contribution to the envelope's single string (W6W-ENV-20, W6W-ROOT-22).

    Strings verbatim; numbers and booleans as JavaScript prints them ("5",
    "true"); null and absent as the empty string (W6W-ROOT-23);
    objects and arrays as JSON.stringify writes them (assumption A-33), or,
    under A-33's other reading ``structured="string"``, as JavaScript's
    ``String(v)`` does (``[object Object]``, ``1,2``).
    """
    if isinstance(value, str):
        return value
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, dict | list):
        if structured == "string":
            return js.to_string(to_json(value))  # String(v) (A-33's other reading)
        return js.json_stringify(to_json(value))  # JSON.stringify's text
    return js.to_string(value)


def _evaluate(logic: JSON, root: JSON, limits: Limits, semantics: str = "community") -> JSON:
    """``logic`` against the generic data root, under A-20's reading ``semantics``.

    Under "classic" (json-logic-js 2.0.5) the result may be one JSON cannot
    carry — NaN, ±Infinity, undefined: a template part prints it as
    JavaScript does ("NaN"; undefined is absent, ""), a ``$expr`` value is
    it as JSON.
    """
    try:
        if semantics == "classic":
            return classic.evaluate(logic, root, limits)
        return evaluate(logic, root, limits)
    except JsonLogicError as failure:
        # Assumption A-34: an expression that fails fails the step.
        raise ResolutionError(
            "expr_evaluation_failed",
            # The thrown value as JSON prints it (``2``, never Python's ``2.0``).
            f"expression failed with {failure.type}: "
            f"{json.dumps(to_json(failure.thrown), ensure_ascii=False)}",
        ) from None


@attrs.frozen
class Readings:
    """The readings resolution takes where the RFC is open (config.Options holds a run's).

    ``chain_check`` A-37, ``bare_secret`` A-158, ``structured`` A-33 (see
    config.Options); ``unterminated_render`` A-157: a render part's content
    with a ``{{`` and no ``}}`` after it resolves the markers before it and
    keeps the rest as written ("rest", the model's) or is literal as a whole
    ("literal", as W6W-ROOT-12 has a with-value string); ``jsonlogic`` A-20:
    the JSON Logic community semantics ("community") or json-logic-js 2.0.5's
    ("classic").
    """

    chain_check: str = "part"
    bare_secret: str = "empty"
    structured: str = "json"
    unterminated_render: str = "rest"
    jsonlogic: str = "community"


MODEL = Readings()  # the model's own


class Resolver:
    """Resolves ``with`` values against one run scope."""

    def __init__(
        self,
        scope: Mapping[str, JSON],
        limits: Limits = DEFAULT_LIMITS,
        readings: Readings = MODEL,
        block: Collection[str] = (),
    ) -> None:
        self.root = data_root(scope)
        self.readings = readings
        self.structured = readings.structured  # A-33's reading (stringify)
        self.block = block  # the ids of the steps of the sub-block being run (_meta_read)
        self.chain_check = readings.chain_check  # A-37's reading (CHAIN_CHECKS)
        self.bare_secret = readings.bare_secret  # A-158's reading
        secrets = scope.get("secrets")
        self.secrets: Mapping[str, JSON] = secrets if isinstance(secrets, dict) else {}
        self.limits = limits
        self.read_secret = False  # whether a secret part contributed plaintext
        self.read_nothing = False  # whether a var part read null or nothing (W6W-ROOT-10)
        # The clauses of the resolution features used, in the order met: what a step
        # start cites (the transition's label), so a campaign's coverage shows them.
        self.clauses: list[str] = []

    # -- values -------------------------------------------------------------

    def value(self, value: JSON) -> JSON:
        """Resolve one ``with`` value (the walk of the module notation)."""
        if isinstance(value, dict):
            if len(value) == 1 and "$" in value:
                self._generic_root(value["$"])
                self._meta_read(value["$"])
                found = self.path_marker(value["$"])  # labels an absent path first
                self.clauses.append("W6W-EXPR-1")
                return found
            if len(value) == 1 and "$expr" in value:
                self._logic_reads_secrets(value["$expr"])
                # W6W-EXPR-2 "Full JSONLogic evaluation over the run scope", with the
                # semantics @w6w/expr is read to have.
                self.clauses += ("W6W-EXPR-2", "A-20")
                found = _evaluate(value["$expr"], self.root, self.limits, self.readings.jsonlogic)
                # As JSON: 3, not 3.0 (JavaScript has one number type); under A-20's
                # "classic", NaN, ±Infinity and undefined are null, as JSON.stringify
                # writes them in an array.
                return to_json(found)
            if is_expr_value(value):
                text = self.envelope(value["parts"])
                self.clauses.append("W6W-ENV-20")  # after its parts': the envelope's own
                return text
            return {key: self.value(member) for key, member in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, str):
            return self.template_string(value)
        return value

    def _meta_read(self, path: JSON) -> None:
        """Label a path that reads a step's meta (``steps.<id>.meta…``) or ``foreach``.

        W6W-META-13: "A succeeded app step publishes meta beside output in the
        expression scope"; W6W-META-20, for a step of the same sub-block: it
        "publishes meta into its inner scope exactly as it publishes output".
        """
        parts = path.split(".") if isinstance(path, str) else []
        if len(parts) >= 3 and parts[0] == "steps" and parts[2] == "meta":
            self.clauses.append("W6W-META-20" if parts[1] in self.block else "W6W-META-13")
        if parts and parts[0] == "foreach":
            # W6W-ROOT-6: foreach "adds foreach.item and foreach.index to the
            # sub-block's run scope" (A-53: the item, and its index from 0).
            self.clauses.append("W6W-ROOT-6")

    def _generic_root(self, path: JSON) -> None:
        """Label a path that reads ``secrets.…`` through the generic data root.

        W6W-ENV-18: "A host that puts secrets on the generic data root does not
        conform"; W6W-ENV-53: such a path "resolves to nothing".
        """
        if isinstance(path, str) and path.split(".", 1)[0] == "secrets":
            self.clauses.append("W6W-ENV-18")

    def _logic_reads_secrets(self, logic: JSON) -> None:
        """Label JSONLogic with a ``var`` of a ``secrets.…`` path (W6W-ENV-18)."""
        if isinstance(logic, dict):
            for operator, operand in logic.items():
                if operator == "var":
                    path = operand[0] if isinstance(operand, list) and operand else operand
                    self._generic_root(path)
                self._logic_reads_secrets(operand)
        elif isinstance(logic, list):
            for item in logic:
                self._logic_reads_secrets(item)

    def fail(self, failure: ResolutionError) -> ResolutionError:
        """``failure`` carrying its clause, then the features used before it."""
        failure.clauses = tuple(dict.fromkeys([*failure.clauses[:1], *self.clauses]))
        return failure

    def path_marker(self, path: JSON) -> JSON:
        """``{"$": path}``: the value at ``path``, type-preserved; absent is null.

        W6W-BIND-4: "A $ binding to an absent, skipped or failed upstream path
        resolves to null" — absent meta too (W6W-META-24: "Absent meta reads
        like any absent path").  A whole-value marker resolves type-preserved
        (W6W-BIND-10: "an object, array, null, boolean or number stays
        itself").  A non-string or empty path names nothing and is null too
        (assumption A-35).
        """
        if not isinstance(path, str) or path == "":
            return None
        found = lookup(self.root, path)
        if found is not UNDEFINED:
            return found
        parts = path.split(".")
        meta = len(parts) >= 3 and parts[0] == "steps" and parts[2] == "meta"
        self.clauses.append("W6W-META-24" if meta else "W6W-BIND-4")
        return None

    # -- the envelope --------------------------------------------------------

    def envelope(self, parts: list[JSON]) -> str:
        """An ExprValue's single string: its parts resolved and concatenated (W6W-ENV-20)."""
        return "".join(self.part(part_from_json(raw)) for raw in parts)

    def part(self, part: Part) -> str:
        """One part's contribution."""
        if isinstance(part, TextPart):
            if part.raw is not None:
                # Not a string: stringified as every part's value is (W6W-ENV-20, A-163).
                self.clauses.append("A-163")
                return stringify(part.raw, self.structured)
            return part.value  # W6W-ENV-1: "The literal chunk, verbatim."
        if isinstance(part, VarPart):
            self._generic_root(part.ref)
            return self.var_part(part.ref)
        if isinstance(part, SecretPart):
            self.clauses.append("W6W-ENV-22")
            return self.secret_part(part.ref)
        if isinstance(part, ExprPart):
            if part.absent:
                return ""  # W6W-ENV-5: an absent expr "is read as empty"
            chain = chain_var_refs(part.expr)
            if chain is not None:
                # W6W-CHAIN-1 (||, truthy) or W6W-CHAIN-2 (??, absent-only).
                self.clauses.append("W6W-CHAIN-1" if "or" in part.expr else "W6W-CHAIN-2")
            self._logic_reads_secrets(part.expr)
            # A fallback chain is the RFC's own construct (W6W-CHAIN-1/2), the same
            # under either reading of A-20 (json-logic-js has no ``??``).
            semantics = "community" if chain is not None else self.readings.jsonlogic
            # Before evaluating: an evaluation that fails fails the step citing its part.
            self.clauses += ("W6W-ENV-4",) if chain is not None else ("W6W-ENV-4", "A-20")
            found = _evaluate(part.expr, self.root, self.limits, semantics)
            return stringify(found, self.structured)
        if isinstance(part, RenderPart):
            text = self.render_part(part.ref)
            self.clauses.append("W6W-ENV-12")  # after the rendered parts': one pass
            return text
        assert isinstance(part, UnknownPart)
        self.clauses.append("W6W-ENV-6")
        return ""  # W6W-ENV-6: the reference engine contributes the empty string

    def var_part(self, ref: str | None) -> str:
        """A var part: the stringified value at ``ref``; an absent or empty ref is "".

        W6W-ENV-28: "An absent or empty ref names nothing. It MUST NOT resolve
        the data root."
        """
        if not ref:
            return ""  # W6W-ENV-29: never a serialization of the scope
        found = lookup(self.root, ref)
        if found is None or found is UNDEFINED:
            self.read_nothing = True
        return stringify(found, self.structured)

    def secret_part(self, ref: str | None) -> str:
        """A secret part: ``secrets[ref]``, read directly (W6W-ENV-22).

        W6W-ENV-3 / W6W-ROOT-11: a ref naming no available secret fails the
        step; an absent or empty ref names none (W6W-ENV-27, W6W-ENV-56: "a
        secret part with an absent or empty ref names no available secret").
        """
        if ref and ref in self.secrets and self.secrets[ref] is not None:
            self.read_secret = True
            return stringify(self.secrets[ref], self.structured)
        raise ResolutionError(
            "secret_unavailable", f"secret {quoted(ref)} is not available to this run"
        )

    def render_part(self, ref: str | None) -> str:
        """A render part: the string at ``ref`` rendered in render mode, one pass.

        W6W-ENV-8..11 and W6W-ENV-25: absent, null or undefined fails with
        render_ref_unresolved; any other non-string with render_ref_not_a_string.
        W6W-ENV-56: "a render part with an absent or empty ref has no resolved
        content and so fails the step with render_ref_unresolved".
        """
        found = lookup(self.root, ref) if ref else UNDEFINED
        if found is None or found is UNDEFINED:
            raise ResolutionError(
                "render_ref_unresolved", f"render ref {quoted(ref)} resolves to nothing"
            )
        if not isinstance(found, str):
            raise ResolutionError(
                "render_ref_not_a_string",
                f"render ref {quoted(ref)} resolves to {kind_of(found)}, not a string",
            )
        # An unterminated {{ leaves the rest as text; the markers before it resolve,
        # or, under its other reading, the content is literal as a whole.
        template = parse_template(found, Mode.RENDER)
        if template.unterminated and self.readings.unterminated_render == "literal":
            self.clauses.append("A-157")
            return found
        # W6W-ENV-12 "One pass": the parts are resolved here and never re-enter
        # step 1; whatever they resolve to is not rendered again.
        return "".join(self.part(part) for part in template.parts)

    # -- template strings ----------------------------------------------------

    def template_string(self, text: str) -> str:
        """A plain string: resolved iff it has a marker and every marker is rooted.

        W6W-ROOT-19 (iff rule), W6W-ROOT-20 (all-or-nothing), W6W-ROOT-21
        (no marker, unterminated, empty marker: byte-identical).  Parsing runs
        in editor mode (W6W-ROOT-7).
        """
        if "{{" not in text:
            return text
        template = parse_template(text, Mode.EDITOR)
        self._chain_clauses(template)
        if not is_root_anchored(template, self.chain_check):
            # The input object itself: byte-identical.  Labelled W6W-ROOT-2 when a
            # rooted marker is left alone because another is not (all-or-nothing),
            # else W6W-ROOT-12 (unterminated) or W6W-ROOT-1 (no rooted marker).
            rooted = [marker_is_rooted(m, self.chain_check) for m in template.markers]
            if template.unterminated:
                self.clauses.append("W6W-ROOT-12")
            else:
                self.clauses.append("W6W-ROOT-2" if any(rooted) else "W6W-ROOT-1")
            return text
        if self.bare_secret == "fails" and any(_bare_secret(m) for m in template.markers):
            # A-158 "fails": {{ secrets }} / {{ secrets. }} is a secrets.<name> marker
            # naming no secret (W6W-ROOT-11, W6W-ENV-56's empty ref).
            self.clauses.append("W6W-ROOT-11")
            raise ResolutionError("secret_unavailable", "secret '' is not available to this run")
        # W6W-ROOT-8 interpolation inside a larger string; W6W-ROOT-9 the result is
        # one string; W6W-ROOT-10 an absent reference contributes ""; W6W-ROOT-24 a
        # missing secret fails (secret_part).
        self.read_nothing = False
        resolved = "".join(self.part(part) for part in template.parts)
        nothing = self.read_nothing
        if any(m.body.strip().split(".", 1)[0] == "foreach" for m in template.markers):
            # W6W-ROOT-25: foreach is one of "the eight-member RunScope root set"; a
            # foreach body's scope has it (W6W-ROOT-6: the control "adds foreach.item
            # and foreach.index to the sub-block's run scope").  The rule that made the
            # value first: ROOT-6 in a body (an engine whose nested block lost the
            # body's scope breaks it), ROOT-25 outside one (the marker resolves to "").
            body = ("W6W-ROOT-6", "W6W-ROOT-25")
            self.clauses += body if isinstance(self.root.get("foreach"), dict) else body[::-1]
        # W6W-ROOT-10: "A reference that resolves to nothing contributes the empty string"
        # (null and absent alike, A-33), after W6W-ROOT-9's "always a single string": an
        # engine giving such a marker's value its type breaks the one, printing "null" the
        # other.
        self.clauses += ("W6W-ROOT-9", *(("W6W-ROOT-10",) if nothing else ()), "W6W-ROOT-1")
        return resolved

    def _chain_clauses(self, template: Template) -> None:
        """The chain rules a template's markers meet, most specific first.

        W6W-CHAIN-5: a marker with a ``||`` / ``??`` the editor-mode arm did
        not build (mixed operators, an empty or a ``secrets.`` operand) is an
        ordinary path; W6W-CHAIN-8: a chain is rooted iff every var operand
        names a rooted path (cited where an operand is not: it decided).
        """
        for marker in template.markers:
            part = marker.part
            if isinstance(part, VarPart) and has_chain_token(marker.body):
                self.clauses.append("W6W-CHAIN-5")
            elif (
                isinstance(part, ExprPart)
                and chain_var_refs(part.expr) is not None
                and not marker_is_rooted(marker, self.chain_check)
            ):
                self.clauses.append("W6W-CHAIN-8")


def _bare_secret(marker: Marker) -> bool:
    """A marker that names the secrets root and no secret: ``{{ secrets }}``, ``{{ secrets. }}``."""
    return marker.body.strip() in ("secrets", "secrets.")


def is_root_anchored(template: Template, chain_check: str = "part") -> bool:
    """Whether a parsed string resolves under the root-anchoring rule (W6W-ROOT-1).

    At least one marker, no unterminated ``{{``, and every marker rooted:
    ``=`` JSONLogic and ``secrets.`` markers always are (W6W-ROOT-7); a chain
    is rooted iff every var operand is (W6W-CHAIN-8); a path iff its first
    dot-segment is one of the eight roots and it carries no refused chain
    token (``hasRefusedChainToken``).  ``chain_check``: A-37's reading
    (``marker_is_rooted``).
    """
    if template.unterminated or not template.markers:
        return False
    return all(marker_is_rooted(marker, chain_check) for marker in template.markers)


def marker_is_rooted(marker: Marker, chain_check: str = "part") -> bool:
    """Whether one marker names a run-scope root.

    An expr part whose payload is a flat ``or`` / ``??`` chain of var and
    literal operands is rooted iff every var operand is (W6W-CHAIN-8: "iff
    every { "var": … } operand names a rooted path").  Assumption A-37: the
    part does not remember which production made it (W6W-CHAIN-3, -7), so
    under ``chain_check="part"`` (the model's reading) ``{{ ={"or": …} }}``
    is checked too; under ``"infix"`` only a marker written with ``||`` /
    ``??`` is, and an ``=`` payload is "opaque and wholly exempt from
    root-anchoring" (W6W-CHAIN-16).
    """
    part = marker.part
    if isinstance(part, SecretPart):
        return True
    if isinstance(part, ExprPart):
        if chain_check == "infix" and marker.body.startswith("="):
            return True  # =<JSONLogic>, whatever its shape (A-37's other reading)
        refs = chain_var_refs(part.expr)
        if refs is None:
            return True  # =<JSONLogic>: "always ours", its payload opaque
        return all(path_is_rooted(ref) for ref in refs)
    if isinstance(part, VarPart):
        return part.ref is not None and path_is_rooted(part.ref)
    return False


def path_is_rooted(path: str) -> bool:
    """The first dot-segment is one of the eight roots, and no refused chain token."""
    return path.split(".", 1)[0] in ROOTS and not has_chain_token(path)


Compiled = Callable[[Mapping[str, JSON], list[str]], JSON]


def compile_plain(value: JSON) -> Compiled | None:
    """``resolve_labelled`` of a plain ``with`` value as a function of the scope; else None.

    Speed only (issue 16: a step start resolved its with block through a new
    ``Resolver`` and a copy of the scope, 7% of an exploration's
    instructions).  Plain: literals, strings without ``{{``, and ``{"$":
    path}`` markers whose path is a non-empty string that reads neither
    ``secrets``, ``foreach`` nor a step's ``meta`` (the labels ``Resolver``
    adds for those).  The function walks as ``Resolver.value`` does —
    ``path_marker``'s value (absent: null, W6W-BIND-4) and label, then
    W6W-EXPR-1 — builds new objects and arrays, and appends the labels to
    the list it is given; no secret is read, so the input invoked is the one
    recorded.  tests/w6w/test_fast.py checks it against ``resolve_labelled``
    on generated values and scopes.
    """
    if isinstance(value, dict):
        if len(value) == 1 and "$" in value:
            return _compiled_marker(value["$"])
        if (len(value) == 1 and "$expr" in value) or is_expr_value(value):
            return None
        members = [(key, compile_plain(member)) for key, member in value.items()]
        if any(f is None for _, f in members):
            return None
        return lambda scope, labels: {k: f(scope, labels) for k, f in members}  # type: ignore[misc]
    if isinstance(value, list):
        items = [compile_plain(item) for item in value]
        if any(f is None for f in items):
            return None
        return lambda scope, labels: [f(scope, labels) for f in items]  # type: ignore[misc]
    if isinstance(value, str) and "{{" in value:
        return None
    return lambda scope, labels: value


def _compiled_marker(path: JSON) -> Compiled | None:
    if not isinstance(path, str) or path == "":
        return None
    parts = path.split(".")
    if parts[0] in ("secrets", "foreach") or (
        len(parts) >= 3 and parts[0] == "steps" and parts[2] == "meta"
    ):
        return None

    def marker(scope: Mapping[str, JSON], labels: list[str]) -> JSON:
        # D = S - secrets (data_root): the same value at a path that does not start there.
        found = lookup(scope, path)
        if found is UNDEFINED:
            labels.append("W6W-BIND-4")
            found = None
        labels.append("W6W-EXPR-1")
        return found

    return marker


def is_expr_value(value: JSON) -> bool:
    """An ExprValue envelope: ``{"type": "expr", "parts": [...]}`` (assumption A-36)."""
    return (
        isinstance(value, dict)
        and value.get("type") == "expr"
        and isinstance(value.get("parts"), list)
    )


def quoted(ref: str | None) -> str:
    """A ref as an error message names it: as written, between single quotes.

    An absent ref (or one that is not a string) is written ``''``: it names
    nothing, like the empty ref (W6W-ENV-27).  Never Python's ``None`` or its
    repr's escapes, so an engine in any language can write the same text
    (docs/expressions.md, "Error codes").
    """
    return f"'{ref or ''}'"


def kind_of(value: JSON) -> str:
    """A JSON value's kind as an error message names it ("a number", "null" and so on)."""
    if value is None or value is UNDEFINED:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if js.is_number(value):
        return "a number"
    if isinstance(value, list):
        return "an array"
    return "an object"


def resolve_with(
    value: JSON,
    scope: Mapping[str, JSON],
    limits: Limits = DEFAULT_LIMITS,
    readings: Readings = MODEL,
) -> JSON:
    """Resolve a step's ``with`` value against run scope ``scope`` under ``readings``."""
    return Resolver(scope, limits, readings).value(value)


def resolve_recorded(
    value: JSON,
    scope: Mapping[str, JSON],
    limits: Limits = DEFAULT_LIMITS,
    readings: Readings = MODEL,
) -> tuple[JSON, JSON]:
    """A ``with`` value resolved twice: what the action receives, and what is recorded.

    The action receives the plaintext of the secrets it names; the recorded
    input (StepExecution.input, the step_started event) has each secret's
    contribution replaced by ``REDACTED`` — W6W-ENV-17: secrets are "never
    persisted with run state" (assumption A-70, finding F-11).  The second
    resolution is the first with every available secret's value replaced by
    the marker: a secret is read only by a secret part (W6W-ENV-22: "Read
    plaintext from secrets for a secret part only, directly"), so nothing
    else changes, and a missing secret fails both alike.  When no secret was
    read, both are the same object.
    """
    invoked, resolved, _ = resolve_labelled(value, scope, limits, readings)
    return invoked, resolved


def resolve_labelled(
    value: JSON,
    scope: Mapping[str, JSON],
    limits: Limits = DEFAULT_LIMITS,
    readings: Readings = MODEL,
    block: Collection[str] = (),
) -> tuple[JSON, JSON, tuple[str, ...]]:
    """``resolve_recorded``, and the clauses of the resolution features the value used.

    Each feature's clause once, in the order met, the most specific first
    (a chain before the template it sits in, a render part before its
    envelope); a ResolutionError carries the same in ``clauses``, its own
    clause first.  ``block``: the ids of the sub-block's steps when the value is
    resolved in one (a read of their meta cites W6W-META-20).
    """
    resolver = Resolver(scope, limits, readings, block)
    try:
        invoked = resolver.value(value)
    except ResolutionError as failure:
        raise resolver.fail(failure) from None
    clauses = tuple(dict.fromkeys(resolver.clauses))
    if not resolver.read_secret:
        return invoked, invoked, clauses
    masked = {name: REDACTED for name, plain in resolver.secrets.items() if plain is not None}
    masking = Resolver({**scope, "secrets": masked}, limits, readings)
    return invoked, masking.value(value), clauses
