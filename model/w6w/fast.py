"""Speed only: the w6w run's fast paths, kept apart from the rules.

Nothing here decides what a run may do.  It holds the tricks the explorer
needs to visit a few thousand configurations a second:

- ``evolve``: ``attrs.evolve`` for the positional-init records of config.py,
  at a fraction of its cost, and ``amend``, which writes into a record
  ``evolve`` has just made instead of copying it again;
- the key renderers: a canonical text of every field of a record, each
  field by a renderer chosen once by its type, with the JSON values
  memoised per object (``canonical_plain``), hashable values cached and
  edge sets digested;
- ``kept_digest``: a configuration's key, the sum of its fields' digests,
  derived from the key of the configuration it was evolved from.

The plain path beside each: ``attrs.evolve`` itself, and ``plain_key`` — the
canonical JSON of every field, rendered afresh.  tests/w6w/test_fast.py
checks, on generated runs, that ``evolve`` equals ``attrs.evolve``, that
two configurations have equal keys exactly when their plain keys are equal,
that a derived digest equals the one computed afresh and that
``canonical_plain`` renders what ``canonical`` of ``_plain`` does.
"""

from __future__ import annotations

import collections.abc
import functools
import hashlib
import json
import types
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

import attrs

from wforacle.model.kernel.explore import canonical, one_shot

JSON = Any
Renderer = Callable[[Any], str]
_T = TypeVar("_T")
_EVOLVERS: dict[type, Callable[[Any, dict[str, Any]], Any]] = {}
_KEPT: dict[type, tuple[str, ...]] = {}  # a class's kept_digest names (``amend``)
_MASK = (1 << 128) - 1


class cached(Generic[_T]):
    """``functools.cached_property`` without its lock (Python 3.11 takes one per first read).

    The value computed on the first read is stored in the instance's
    ``__dict__``, where every later read finds it before this descriptor
    (it defines no ``__set__``).  For records that never change and are
    not shared between threads while their values are first computed.
    """

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> _T:
        if instance is None:
            return self  # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


class kept_digest:
    """A record's 128-bit digest: Σ weight(f)·digest(f's text) mod 2^128 over its fields.

    Each field ``f`` is rendered by its renderer (``config_renderers``) and the
    text's BLAKE2b digest weighted by an odd 128-bit number of its own; a
    value that keeps a digest (config.Steps, Counts, Edges, EdgeSet) gives
    that one, unrendered.  Two records have equal digests exactly when every
    field renders alike (but with probability 2^-128), as their texts would.

    Why a sum and not the digest of one text: a record made by ``evolve``
    from one whose digest is known (the explorer knows every configuration's
    before it follows its transitions) derives its own from that one and the
    fields that changed, typically the steps and the checkpoint number of 22,
    instead of rendering and hashing all 22 (issue 16: the text and its
    BLAKE2b cost about 5 µs a configuration).  ``evolve`` records the record
    it copied and the fields it changed in ``_since``; the digest, once
    computed, is cached as ``cached`` caches.
    """

    def __init__(self, renderers: Callable[[type], tuple[tuple[str, Renderer], ...]]) -> None:
        self.renderers = renderers
        self.name = "digest"
        # Per field: its term (weight × digest of a value), and the change of its term
        # from one value to another (one call where two terms' difference took two).
        self.fields: dict[str, tuple[Term, Change]] | None = None

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> int:
        if instance is None:
            return self  # type: ignore[return-value]
        fields = self.fields
        if fields is None:
            fields = self.fields = {
                name: _terms(_weight(name), render)
                for name, render in self.renderers(type(instance))
            }
        now = instance.__dict__
        since = now.pop("_since", None)
        if since is None:
            value = sum(term(now[name]) for name, (term, _) in fields.items())
        else:
            base, changed = since  # changed: the names of the fields changed since ``base``
            was = base.__dict__
            value = was[self.name]  # known: evolve records only such a base
            for name in changed:
                old, new = was[name], now[name]
                if old is not new:
                    value += fields[name][1](old, new)
        value &= _MASK
        now[self.name] = value
        return value


def _weight(name: str) -> int:
    """A field's weight in ``kept_digest``: odd, 128 bits, fixed by its name."""
    text = b"w6w-field-" + name.encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=16).digest()) | 1


class _TextDigests(dict[str, int]):
    """A text's 128-bit digest (BLAKE2b), computed once while the table is small."""

    def __missing__(self, text: str) -> int:
        if len(self) > 65536:
            self.clear()
        digest = self[text] = int.from_bytes(
            hashlib.blake2b(text.encode(), digest_size=16).digest()
        )
        return digest


_TEXT_DIGESTS = _TextDigests()


Term = Callable[[Any], int]
Change = Callable[[Any, Any], int]


def _terms(weight: int, render: Renderer) -> tuple[Term, Change]:
    """A field's term in ``kept_digest``, and the change of the term between two values.

    The term: the field's weight × the digest its value keeps, or its text's.
    """
    texts = _TEXT_DIGESTS
    if render in (_render_steps, _render_counts, render_edges):

        def digest(value: Any) -> int:
            kept = getattr(value, "digest", None)
            return kept if kept is not None else texts[render(value)]

        def kept_change(old: Any, new: Any) -> int:
            now: int | None = getattr(new, "digest", None)
            was: int | None = getattr(old, "digest", None)
            if now is None or was is None:
                return weight * (digest(new) - digest(old))
            return weight * (now - was)

        return (lambda value: weight * digest(value)), kept_change

    def change(old: Any, new: Any) -> int:
        return weight * (texts[render(new)] - texts[render(old)])

    return (lambda value: weight * texts[render(value)]), change


def evolve(instance: _T, **changes: Any) -> _T:
    """``attrs.evolve`` for the positional-init classes of config.py, at a fraction of its cost.

    Each class gets a function compiled once from its attrs fields.  A plain
    record (no validator, converter or init hook: its ``__init__`` only
    stores each field) is copied, then the changed fields stored: a record
    keeping its fields in a ``__dict__`` (``StepState``, ``Config``: issue
    16) by one copy of that dict, less the values its cached properties
    computed from the old fields; a slotted one slot by slot.  Any other
    class is built by its ``__init__``, every field passed positionally,
    from ``changes`` or the instance.
    """
    evolver = _EVOLVERS.get(type(instance))
    if evolver is None:
        evolver = _EVOLVERS[type(instance)] = _compile_evolver(type(instance))
    return evolver(instance, changes)  # type: ignore[no-any-return]


def amend(record: Any, changes: dict[str, Any]) -> None:
    """Store ``changes`` in ``record`` itself: for a record ``evolve`` has just made.

    ``W6wRun.enabled`` numbers a transition's checkpoint this way, in the
    target its rule has just built, which nothing else holds yet: evolving
    it again copied all 22 fields a second time, about a twentieth of an
    exploration (issue 16, measured in instructions).  The record's
    ``kept_digest`` bookkeeping (``_since``) takes the changed names in; a
    record whose digest was computed already is refused, as that digest
    would no longer be its own.
    """
    fields = record.__dict__
    kept = _KEPT.get(type(record))
    if kept is None:
        found = [name for name, v in vars(type(record)).items() if isinstance(v, kept_digest)]
        kept = _KEPT[type(record)] = tuple(found)
    for name in kept:
        if name in fields:
            raise ValueError(f"amend: the {name} of this record was computed already")
    fields.update(changes)
    since = fields.get("_since")
    if since is not None:
        # The changed names are a dict of this record's own (``evolve`` makes one per
        # record it makes): adding to it in place spares a copy (issue 16).
        since[1].update(changes)


def _compile_evolver(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    names = [f.name for f in attrs.fields(cls)]
    namespace: dict[str, Any] = {"cls": cls, "new": object.__new__, "store": object.__setattr__}
    if _plain_record(cls) and "__slots__" not in vars(cls):
        # One C-level dict copy; a frozen class's __setattr__ refuses, object's stores.
        kinds = (cached, functools.cached_property)
        computed = [n for n, v in vars(cls).items() if isinstance(v, kinds)]
        body = "    d = i.__dict__.copy()\n    d.update(k)\n"
        body += "".join(f"    d.pop({name!r}, None)\n" for name in computed)
        for name, value in vars(cls).items():
            if isinstance(value, kept_digest):
                # What kept_digest derives the copy's digest from: this record when its
                # digest is known, else the one this record's own would be derived from.
                # ``k``, the changes, is this call's own dict: its keys name the fields.
                body += f"    if d.pop({name!r}, None) is not None:\n"
                body += "        d['_since'] = (i, k)\n"
                body += "    elif '_since' in d:\n"
                body += "        base, changed = d['_since']\n"
                body += "        d['_since'] = (base, {**changed, **k})\n"
        body += "    o = new(cls)\n    store(o, '__dict__', d)\n    return o\n"
    elif _plain_record(cls):
        # A slot's descriptor stores a value as __init__'s object.__setattr__ does.
        slots = {name: cls.__dict__[name].__set__ for name in names}
        namespace.update(slots=slots, **{f"s{n}": slots[name] for n, name in enumerate(names)})
        copied = "".join(f"    s{n}(o, i.{name})\n" for n, name in enumerate(names))
        body = f"    o = new(cls)\n{copied}    for name, value in k.items():\n"
        body += "        slots[name](o, value)\n    return o\n"
    else:
        arguments = ", ".join(f"k[{n!r}] if {n!r} in k else i.{n}" for n in names)
        body = f"    return cls({arguments})\n"
    exec(f"def evolver(i, k):\n{body}", namespace)
    return namespace["evolver"]  # type: ignore[no-any-return]


def _plain_record(cls: type) -> bool:
    """Whether an attrs class's ``__init__`` does nothing but store each field.

    In its slot, or in its ``__dict__`` (a class without ``__slots__``).
    """
    slotted = "__slots__" in vars(cls)
    return (
        not hasattr(cls, "__attrs_pre_init__")
        and not hasattr(cls, "__attrs_post_init__")
        and all(
            (not slotted or isinstance(cls.__dict__.get(f.name), types.MemberDescriptorType))
            and f.init
            and f.alias == f.name
            and f.validator is None
            and f.converter is None
            and f.on_setattr is None
            for f in attrs.fields(cls)
        )
    )


def compile_key(
    renderers: tuple[tuple[str, Renderer], ...], sep: str, prefix: str = "", suffix: str = ""
) -> Renderer:
    """One function rendering every field by its renderer, ``sep`` between.

    The text ``prefix + sep.join(render(field) …) + suffix`` would give, but compiled once:
    ``repr`` fields inline, and a JSON or hashable field that is None renders
    as ``None`` without a call (their renderers never return that text for
    another value: JSON null is ``null``).
    """
    namespace: dict[str, Any] = {}
    parts = []
    for n, (name, render) in enumerate(renderers):
        if render is repr:
            parts.append(f"{{c.{name}!r}}")
        elif render in (_render_json, _render_hashable):
            namespace[f"r{n}"] = render
            parts.append(f"{{'None' if c.{name} is None else r{n}(c.{name})}}")
        else:
            namespace[f"r{n}"] = render
            parts.append(f"{{r{n}(c.{name})}}")
    namespace["s"] = sep
    source = 'def key(c):\n    return f"' + prefix + "{s}".join(parts) + suffix + '"\n'
    exec(source, namespace)
    return namespace["key"]  # type: ignore[no-any-return]


def plain_key(value: Any) -> str:
    """The plain path: the canonical JSON of every field of ``value``, rendered afresh."""
    return canonical(_plain(value))


# -- renderers ----------------------------------------------------------------------


def _render_steps(steps: tuple[Any, ...]) -> str:
    digest = getattr(steps, "digest", None)  # config.Steps: the digest of every state's key
    if digest is not None:
        return f"#{digest:032x}"
    return "[" + ",".join([step.key for step in steps]) + "]"


def _render_counts(counts: tuple[int, ...]) -> str:
    digest = getattr(counts, "digest", None)  # config.Counts: the digest of every count
    if digest is not None:
        return f"#{digest:032x}"
    return repr(counts)


_JSON_MEMO: dict[int, tuple[object, str]] = {}


def _render_json(value: JSON) -> str:
    if type(value) in _SCALARS:
        return repr(value)
    memo = _JSON_MEMO.get(id(value))
    if memo is not None and memo[0] is value:
        return memo[1]
    if len(_JSON_MEMO) > 4096:
        _JSON_MEMO.clear()
    text = canonical_plain(value)
    _JSON_MEMO[id(value)] = (value, text)  # holding the object keeps its id unique
    return text


@functools.lru_cache(maxsize=65536)
def _render_hashable(value: Any) -> str:
    return canonical_plain(value)


def _plain_part(value: Any) -> JSON:
    """What JSON cannot encode as it is (a record, a set, a chunked tuple), made plain."""
    plain = _plain(value)
    if plain is value:
        raise TypeError(f"{type(value).__name__} is not JSON")
    return plain


# ``canonical`` of ``_plain(value)``, without copying what JSON encodes as it is: the
# encoder asks ``_plain_part`` only for the parts it cannot encode (records, sets, chunked
# tuples), which ``_plain`` would have turned into the same dicts and lists.  A key renders
# a step's new input this way: the copy and a new encoder cost twice the encoding (issue 16).
canonical_plain: Renderer = one_shot(
    json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain_part)
)


class _EdgeDigests(dict[tuple[str, ...], int]):
    """An edge's 128-bit digest (BLAKE2b of its canonical JSON), computed once."""

    def __missing__(self, edge: tuple[str, ...]) -> int:
        if len(self) > 65536:
            self.clear()
        text = canonical(list(edge)).encode()
        digest = self[edge] = int.from_bytes(hashlib.blake2b(text, digest_size=16).digest())
        return digest


_EDGE_DIGESTS = _EdgeDigests()


def added_digest(digest: int, added: Iterable[tuple[str, ...]]) -> int:
    """An edge set's digest with the keys ``added`` (none of them in the set) added."""
    return (digest + sum(map(_EDGE_DIGESTS.__getitem__, added))) & _MASK


def render_edges(edges: Any) -> str:
    """An edge set's text in a key: the digest it keeps (config.Edges, EdgeSet), or its sum."""
    digest = getattr(edges, "digest", None)
    if digest is not None:
        return f"#{digest:032x}"
    return edge_set_key(edges)


@functools.lru_cache(maxsize=65536)
def edge_set_key(edges: frozenset[tuple[str, str, str]]) -> str:
    """Σ digest(edge) mod 2^128: no sort, so an edge set of a long chain renders in O(n).

    A sum of random 128-bit values, as ``Steps.digest``: two distinct sets
    collide with probability 2^-128.  The plain path of ``render_edges``,
    for a set built by hand.
    """
    return f"#{sum(map(_EDGE_DIGESTS.__getitem__, edges)) & _MASK:032x}"


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> JSON:
    if type(value) in _SCALARS:
        return value
    if type(value) is tuple and all(type(v) is int for v in value):
        return value  # e.g. invocation counters: JSON renders them as they are
    if attrs.has(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, collections.abc.Set):  # frozensets, config.EdgeSet
        return sorted(_plain(v) for v in value)
    if isinstance(value, str):
        return value  # a str subclass (scenario.Worded): text, not a sequence
    if isinstance(value, collections.abc.Sequence):  # tuples, lists, config's chunked ones
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _config_renderer(name: str) -> Renderer:
    if name == "steps":
        return _render_steps
    if name in ("activated", "skipped"):
        return render_edges
    if name == "invocations":
        return _render_counts
    if name in ("failure", "errors"):
        return _render_hashable
    if name in ("variables", "rejection", "handled_output"):
        return _render_json
    return repr  # str, int and bool fields


def step_renderers(cls: type) -> tuple[tuple[str, Renderer], ...]:
    """A renderer for every field of the StepState class.

    JSON values memoised, the status, stage, attempt and times (str, int or
    None) by ``repr``, inline (unambiguous within a field, as Config's
    scalars), the rest (errors) cached.
    """
    json_fields = ("input", "output", "meta", "inner", "plaintext")
    scalars = ("status", "attempt", "started_at", "finished_at", "stage")
    return tuple(
        (
            field.name,
            _render_json
            if field.name in json_fields
            else repr
            if field.name in scalars
            else _render_hashable,
        )
        for field in attrs.fields(cls)
    )


def config_renderers(cls: type) -> tuple[tuple[str, Renderer], ...]:
    """A renderer for every field of the Config class, chosen once by the field's type.

    Step states contribute their cached ``key``, edge sets a cached digest,
    errors a cached rendering, scalars their ``repr`` (unambiguous within a
    field), and the JSON values a canonical text memoised per object — the
    variables object, for one, is shared by every configuration of a run.
    """
    return tuple((field.name, _config_renderer(field.name)) for field in attrs.fields(cls))
