"""A safe, strict YAML reader for Workfiles and connector manifests (assumption A-107).

Safety: PyYAML's SafeLoader (no arbitrary objects, unknown tags refused),
with the text bounded in size (``MAX_BYTES``), the node tree in depth
(``MAX_DEPTH``) and the expansion of aliases (``MAX_NODES`` nodes once every
alias is expanded: an alias bomb is refused before it is built).

Strictness: duplicate mapping keys are errors (PyYAML keeps the last one
silently), and scalars are typed by the YAML 1.2 core schema, not 1.1: only
``true``/``false`` are booleans, so the Stateful Profile's ``on:`` key stays
the string ``on``; ``24h``, ``1:30`` and ``2026-01-01`` stay strings;
``012`` is twelve; the tags ``!!binary``, ``!!set``, ``!!timestamp``,
``!!omap`` and ``!!pairs`` are refused (their values are not JSON).  Every
problem is a ``YamlProblem`` with a code, a location (line and column) and
a message.
"""

from __future__ import annotations

import math
import re
from typing import Any

import attrs
import yaml

JSON = Any
MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 200_000


@attrs.frozen
class YamlProblem(Exception):
    """Why a YAML text could not be read: code, 1-based line and column, message."""

    code: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


def _mark(node_or_mark: Any) -> tuple[int, int]:
    mark = getattr(node_or_mark, "start_mark", node_or_mark)
    if mark is None:
        return (1, 1)
    return (mark.line + 1, mark.column + 1)


_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when built with it


class _StrictLoader(_BASE):  # type: ignore[misc]
    """SafeLoader with the YAML 1.2 core schema and duplicate keys refused.

    The parser and composer are libyaml's where PyYAML was built with it
    (ten times faster on large documents); depth is checked on the composed
    node tree, before anything is constructed.
    """

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    line, column = _mark(key_node)
                    raise YamlProblem(
                        "document.key", line, column, "a mapping key must be a scalar"
                    ) from None
                if key in seen:
                    line, column = _mark(key_node)
                    first, _ = _mark(seen[key])
                    raise YamlProblem(
                        "document.duplicate_key",
                        line,
                        column,
                        f"the key {key!r} appears twice in one mapping (first at line {first})",
                    )
                seen[key] = key_node
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


# The YAML 1.2 core schema's implicit types, in place of PyYAML's YAML 1.1 ones.
_StrictLoader.yaml_implicit_resolvers = {
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag
        not in (
            "tag:yaml.org,2002:bool",
            "tag:yaml.org,2002:int",
            "tag:yaml.org,2002:float",
            "tag:yaml.org,2002:timestamp",
        )
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_CORE_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_CORE_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_CORE_NUMBERS = (
    ("tag:yaml.org,2002:int", _CORE_INT, list("-+0123456789")),
    ("tag:yaml.org,2002:float", _CORE_FLOAT, list("-+.0123456789")),
)
for _tag, _pattern, _first in _CORE_NUMBERS:
    _StrictLoader.add_implicit_resolver(_tag, _pattern, _first)


def _construct_int(loader: _StrictLoader, node: Any) -> int:
    text = str(loader.construct_scalar(node))
    try:
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text, 10)
    except ValueError:  # past Python's 4,300-digit limit (issue 19: it was exit 3)
        line, column = _mark(node)
        raise YamlProblem(
            "document.value", line, column, "an integer of more than 4,300 digits"
        ) from None


def _construct_bool(loader: _StrictLoader, node: Any) -> bool:
    return str(loader.construct_scalar(node)).lower() == "true"


def _construct_float(loader: _StrictLoader, node: Any) -> float:
    """A finite number: JSON has no infinity or NaN, so no output could carry one (issue 19)."""
    value = float(loader.construct_yaml_float(node))
    if not math.isfinite(value):
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"{loader.construct_scalar(node)} is not a finite number (a Workfile value is JSON)",
            node.start_mark,
        )
    return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)

# A Workfile value is JSON: bytes, sets, dates and ordered pairs are not, and
# would reach the run and the JSON output (issue 19).  Their tags are refused like an
# unknown tag: PyYAML's "could not determine a constructor", code document.tag.
_NOT_JSON_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("binary", "set", "timestamp", "omap", "pairs")
}
_StrictLoader.yaml_constructors = {
    tag: constructor
    for tag, constructor in _StrictLoader.yaml_constructors.items()
    if tag not in _NOT_JSON_TAGS
}


def _depth_problem(root: Any) -> tuple[YamlProblem | None, bool]:
    """A problem when the tree nests deeper than MAX_DEPTH; and whether any node is shared.

    One walk without recursion.  A node reached twice is an alias target:
    only then is the expanded size worth computing.
    """
    stack = [(root, 1)]
    seen: set[int] = set()
    shared = False
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            line, column = _mark(node)
            return YamlProblem(
                "document.too_deep", line, column, f"nested deeper than {MAX_DEPTH}"
            ), shared
        if id(node) in seen:
            shared = True
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
    return None, shared


def _expanded_size(root: Any) -> int:
    """Nodes in the tree once every alias is expanded (aliases share node objects)."""
    sizes: dict[int, int] = {}
    order: list[Any] = []
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if done or not children:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 1) for c in children)
            if sizes[id(node)] > MAX_NODES:
                return sizes[id(node)]
            continue
        order.append(node)
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes.get(id(root), 1)


def _children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def read(text: str | bytes) -> JSON:
    """The one YAML document in ``text`` as JSON data; YamlProblem when it cannot be read."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    if len(raw) > MAX_BYTES:
        raise YamlProblem("document.too_large", 1, 1, f"the text is over {MAX_BYTES} bytes")
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlProblem("document.syntax", 1, 1, f"not UTF-8: {exc.reason}") from None
    try:
        loader = _StrictLoader(decoded)  # the reader rejects control characters here
    except yaml.YAMLError as exc:
        raise YamlProblem("document.syntax", 1, 1, str(exc).strip().splitlines()[0]) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        problem, shared = _depth_problem(node)
        if problem is not None:
            raise problem
        if shared and _expanded_size(node) > MAX_NODES:
            line, column = _mark(node)
            raise YamlProblem(
                "document.too_large",
                line,
                column,
                f"over {MAX_NODES} nodes once its aliases are expanded",
            )
        return loader.construct_document(node)
    except YamlProblem:
        raise
    except yaml.MarkedYAMLError as exc:
        line, column = _mark(exc.problem_mark or exc.context_mark)
        code = "document.tag" if "tag" in str(exc.problem or "") else "document.syntax"
        raise YamlProblem(code, line, column, str(exc.problem or exc).strip()) from None
    except yaml.YAMLError as exc:
        raise YamlProblem("document.syntax", 1, 1, str(exc).strip()[:200]) from None
    except RecursionError:
        raise YamlProblem("document.too_deep", 1, 1, "nested too deeply to read") from None
    finally:
        loader.dispose()


# -- writing -------------------------------------------------------------------------------

# libyaml's emitter where PyYAML was built with it (its wheels are), about five times as
# fast as PyYAML's own: a generated case's document is written once per example.  The two
# agree on generated documents (identifier keys, ASCII output) but not on every mapping (an
# empty key; a character outside the BMP under allow_unicode), so only ASCII output takes
# the fast one, and tests/workfile/test_yaml_write.py holds them to it: the same seed must
# give the same cases byte for byte with or without libyaml.
_FAST_DUMPER: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Unaliased:
    """No anchors: a value that appears twice is written twice, as an author would."""

    def ignore_aliases(self, data: JSON) -> bool:
        return True


class Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting a string that either YAML 1.1 or 1.2 reads otherwise.

    The dumper quotes a string its resolvers would read as another type:
    PyYAML's are YAML 1.1's, so ``"on"`` and ``"012"`` are quoted but
    ``"1e3"`` and ``"0o12"`` were not — and the model's reader (the 1.2
    core schema, A-107) read them back as 1000.0 and 10.  With the core
    schema's numbers added, what is written reads back as its data under
    either reading (a PyYAML engine's ``safe_load`` too).
    """


class FastDumper(_FAST_DUMPER):  # type: ignore[misc]
    """``Dumper`` with libyaml's emitter."""


for _dumper in (Dumper, FastDumper):
    for _tag, _pattern, _first in _CORE_NUMBERS:
        _dumper.add_implicit_resolver(_tag, _pattern, _first)


class _UnaliasedDumper(_Unaliased, Dumper):
    pass


class _FastUnaliasedDumper(_Unaliased, FastDumper):
    pass


def _has_next_line(data: JSON) -> bool:
    """Whether a string of ``data`` (a key or a value, at any depth) holds U+0085."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x85" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def write(data: JSON, *, aliases: bool = True, allow_unicode: bool = False) -> str:
    """A JSON mapping as block-style YAML, keys in their order, no line folded.

    ``aliases``: a value that is the same object at two places is written
    once with an anchor (PyYAML's default) or, when False, twice.
    ``allow_unicode``: characters outside ASCII written as they are (else
    escaped), by PyYAML's own emitter.
    """
    if allow_unicode and _has_next_line(data):
        # PyYAML's emitter writes U+0085 (NEL) raw in a single-quoted scalar, where a
        # reader folds it into a space: escaped, it reads back ("\N").
        allow_unicode = False
    if allow_unicode:
        dumper: type = Dumper if aliases else _UnaliasedDumper
    else:
        dumper = FastDumper if aliases else _FastUnaliasedDumper
    return str(
        yaml.dump(data, Dumper=dumper, sort_keys=False, width=1 << 16, allow_unicode=allow_unicode)
    )
