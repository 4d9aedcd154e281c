"""Readings are not bugs: which readings of an open specification the oracle accepts (issue 18).

Where a specification is open, docs/assumptions.md records the readings
and the model's choice, and each one the model takes as a parameter is a
``Reading`` of the specification record (properties/specification.py).  A
``Selection`` says which combinations of readings a verdict may use:

- ``any`` (the default of campaigns, ``conform`` and ``check``): a trace
  that some combination permits passes, and the judgement says which
  readings other than the model's it needed (``Judgement.reading``);
- ``default``: only the model's readings (and any pinned); a trace that
  another combination permits is the verdict ``reading`` ("depends on
  reading A-50 (the engine follows 'edges')"), never a divergence.

Readings a user pins (``--reading A-50=edges`` or a reading's own option)
hold in both modes.  The alternatives are tried only after the selected
readings reject a trace, fewest departures first, so a pass costs nothing
and a divergence is explained by the smallest set of readings that accounts
for it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import attrs

from wforacle.properties.specification import Reading, Specification

V = TypeVar("V")
ANY, DEFAULT = "any", "default"
MODES = (ANY, DEFAULT)
# At most this many combinations are tried for one trace (2^6: every reading of
# six two-way assumptions); a specification with more tries the smallest departures —
# every single one and every pair always, however many that is (``alternatives``).
MOST_COMBINATIONS = 64


class UnknownReading(ValueError):
    """A ``--reading`` that names no assumption, or no reading of one."""


@attrs.frozen
class Selection:
    """The readings a verdict may use: the pinned ones, and whether the others may vary."""

    spec: Specification = attrs.field(repr=False)
    pinned: Mapping[str, Any] = attrs.field(factory=dict)  # dest → value
    mode: str = attrs.field(default=ANY, validator=attrs.validators.in_(MODES))

    @classmethod
    def of(
        cls,
        spec: Specification,
        pins: Sequence[str] = (),
        mode: str = ANY,
        chosen: Mapping[str, Any] | None = None,
    ) -> Selection:
        """A selection from ``--reading ID=NAME`` pins and a reading's own options (``chosen``).

        UnknownReading names what is wrong with a pin.
        """
        pinned: dict[str, Any] = {}
        for reading in spec.readings:
            if chosen is not None and chosen.get(reading.dest) is not None:
                pinned[reading.dest] = chosen[reading.dest]
        for pin in pins:
            name, sep, value = pin.partition("=")
            if not sep:
                raise UnknownReading(f"--reading {pin!r}: expected ID=READING (A-50=edges)")
            reading = find(spec, name.strip())
            try:
                pinned[reading.dest] = reading.value(value.strip())
            except ValueError as exc:
                raise UnknownReading(f"--reading {pin!r}: {exc}") from None
        return cls(spec, pinned, mode)

    def primary(self) -> dict[str, Any]:
        """The readings a verdict tries first: the model's, with the pinned ones."""
        return {r.dest: self.pinned.get(r.dest, r.default) for r in self.spec.readings}

    def options(self) -> Any:
        """The model's options for the primary readings (``spec.options``)."""
        return self.spec.options(self.primary())

    def alternatives(self, case: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every other combination of the readings not pinned, fewest departures first.

        A reading whose others only narrow what the default admits (``narrows``),
        or that cannot matter to ``case`` (``relevant``), keeps its primary
        value: no combination with it could permit more.
        """
        free = [
            r
            for r in self.spec.readings
            if r.dest not in self.pinned
            and not r.narrows
            and (case is None or r.relevant is None or r.relevant(case))
        ]
        primary = self.primary()

        def departures(values: tuple[Any, ...]) -> int:
            return sum(v != r.default for v, r in zip(values, free, strict=True))

        combinations = sorted(itertools.product(*[r.values for r in free]), key=departures)
        # Every single departure and every pair, then the larger ones up to the cap.
        limit = max(MOST_COMBINATIONS, sum(1 for c in combinations if departures(c) <= 2))
        for values in combinations[1:limit]:
            yield {**primary, **{r.dest: v for r, v in zip(free, values, strict=True)}}

    def rescue(
        self,
        permits: Callable[[dict[str, Any]], V | None],
        case: Mapping[str, Any] | None = None,
    ) -> tuple[tuple[tuple[str, str], ...], V] | None:
        """The first other combination whose verdict permits a run the primary rejected.

        ``permits`` judges the run under one combination and returns its passing
        verdict, or None; the result is that combination's departures and the
        verdict, or None when no recorded reading permits the run (a bug).
        """
        for chosen in self.alternatives(case):
            verdict = permits(chosen)
            if verdict is not None:
                return self.departures(chosen), verdict
        return None

    def departures(self, chosen: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """(assumption, reading name) for every reading in ``chosen`` that is not the model's."""
        return tuple(
            (label(r), r.name(chosen[r.dest]))
            for r in self.spec.readings
            if chosen.get(r.dest, r.default) != r.default
        )


def label(reading: Reading) -> str:
    """How verdicts name an assumption: its id (``A-50``), or its option's name."""
    return reading.assumption or reading.dest


def find(spec: Specification, name: str) -> Reading:
    """The reading an assumption id (``A-50``), option (``--indegree``) or dest names."""
    for reading in spec.readings:
        if name in (reading.assumption, reading.flag, reading.flag.lstrip("-"), reading.dest):
            return reading
    known = ", ".join(label(r) for r in spec.readings) or "none"
    raise UnknownReading(f"{spec.name} has no reading {name!r} (its readings: {known})")


def describe(departures: Sequence[tuple[str, str]]) -> str:
    """``A-50 = 'edges', A-41 = 'retried'``."""
    return ", ".join(f"{assumption} = {name!r}" for assumption, name in departures)


def catalogue(spec: Specification) -> list[dict[str, Any]]:
    """The specification's readings as JSON (``wforacle readings``, docs/readings.md)."""
    return [
        {
            "assumption": r.assumption,
            "option": r.flag,
            "clauses": list(r.clauses),
            "readings": [r.name(v) for v in r.values],
            "default": r.name(r.default),
            "summary": r.help,
        }
        for r in spec.readings
    ]
