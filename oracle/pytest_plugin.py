"""The pytest plugin: a conformance suite and a campaign as pytest items (docs/pytest-plugin.md).

Notation: an *item* is one pytest test.  With ``--wforacle-suite DIR`` each
case of the suite is one item, ``wforacle.conform::<case>``; with
``--wforacle-fuzz N`` a campaign of N examples is one item,
``wforacle.fuzz::<spec>-seed-<S>``.  An item runs the engine in its setup
and judges in its call, so the verdicts map onto pytest's outcomes:

- pass → passed;
- divergence (the engine departs from the model) → failed, the text being
  what ``wforacle conform`` prints for the case, or ``explain()`` of a
  campaign's finding;
- engine fault (crash, hang, flood, protocol), or a case that cannot be
  read → error (an error of setup, as a broken fixture is).

One engine process per pytest process, so one per pytest-xdist worker,
started when the first item runs and stopped when the session ends.
Judging is the oracle's own: ``fixtures.conform_case`` (what ``conform``
runs per case) and ``fuzz.campaign`` / ``fuzz.explain`` (what ``fuzz``
runs).  ``run_suite`` is ``wforacle conform --junit``: the same items, and
pytest's own JUnit XML writer (docs/pytest-plugin.md says why).

The plugin is registered by the ``pytest11`` entry point, so it is loaded
into every pytest run: without a ``--wforacle-*`` option it only adds its
options and does nothing else.  The oracle's modules are imported inside
the functions that need them, to keep them out of such runs (and out of
``pytest --help``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from wforacle.oracle.arguments import command_line, positive_int, positive_seconds

if TYPE_CHECKING:
    from wforacle.oracle.engine import Engine
    from wforacle.oracle.fixtures import CaseResult
    from wforacle.properties.specification import Specification

SUITE = "wforacle.conform"  # the parent node of a suite's items (JUnit classname)
FUZZ = "wforacle.fuzz"  # the parent node of the campaign items
OPTIONS = ("wforacle_engine", "wforacle_spec", "wforacle_suite", "wforacle_fuzz")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--wforacle-*`` options (the plugin's whole interface)."""
    group = parser.getgroup("wforacle", "wforacle: judge a workflow engine (docs/pytest-plugin.md)")
    group.addoption(
        "--wforacle-engine",
        metavar="CMD",
        type=command_line,
        help="the engine's command line (it speaks wforacle's docs/engine-protocol.md)",
    )
    group.addoption(
        "--wforacle-spec",
        metavar="SPEC",
        help="the specification the engine implements (default: w6w); a suite's cases "
        "must follow it",
    )
    group.addoption(
        "--wforacle-suite",
        metavar="DIR",
        help="a suite written by `wforacle fixtures`: one item per case",
    )
    group.addoption(
        "--wforacle-fuzz",
        metavar="N",
        type=positive_int,
        help="also one item: a campaign of N generated examples (as `wforacle fuzz`)",
    )
    group.addoption(
        "--wforacle-seed", metavar="S", type=int, default=0, help="the campaign's seed (default 0)"
    )
    group.addoption(
        "--wforacle-timeout",
        metavar="S",
        type=positive_seconds,
        default=10.0,
        help="seconds to wait for one message of the engine (default 10)",
    )
    group.addoption(
        "--wforacle-readings",
        choices=("any", "default"),
        default="any",
        help="any (default): a run some recorded reading permits passes; default: only "
        "the model's readings, a run another permits is reported, not failed "
        "(docs/readings.md)",
    )
    group.addoption(
        "--wforacle-reading",
        action="append",
        default=[],
        metavar="ID=NAME",
        help="pin an assumption's reading (A-50=edges); repeatable",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Switch the plugin on when a ``--wforacle-*`` option is given; check the options first."""
    if not any(config.getoption(name) is not None for name in OPTIONS):
        return
    config.pluginmanager.register(Conformance(Options.of(config)), "wforacle-conformance")


@attrs.frozen
class Options:
    """The checked ``--wforacle-*`` options."""

    engine: str
    spec: Specification
    suite: Path | None
    cases: tuple[Path, ...]
    examples: int | None
    seed: int
    timeout: float
    readings: str = "any"  # oracle/readings.py: the mode
    pins: tuple[str, ...] = ()  # --wforacle-reading ID=NAME

    def selection(self, spec: Specification) -> Any:
        """The readings a verdict on ``spec``'s cases may use."""
        # Imported here, not at the top: none of the oracle in a run without options.
        from wforacle.oracle.readings import Selection

        return Selection.of(spec, self.pins, self.readings)

    @classmethod
    def of(cls, config: pytest.Config) -> Options:
        """Read and check the options; a pytest.UsageError says what to give instead."""
        # Imported here, not at the top: the registry loads every specification record.
        from wforacle.model.diagnostics import InvalidInput
        from wforacle.oracle.fixtures import suite_cases
        from wforacle.properties.registry import SPECIFICATIONS

        engine = config.getoption("wforacle_engine")
        if engine is None:
            raise pytest.UsageError(
                "--wforacle-engine CMD is required: the command line of the engine to judge"
            )
        name = config.getoption("wforacle_spec") or next(iter(SPECIFICATIONS))
        if name not in SPECIFICATIONS:
            raise pytest.UsageError(
                f"--wforacle-spec {name!r}: not a specification "
                f"(one of {', '.join(SPECIFICATIONS)})"
            )
        spec = SPECIFICATIONS[name]
        suite, examples = config.getoption("wforacle_suite"), config.getoption("wforacle_fuzz")
        if suite is None and examples is None:
            raise pytest.UsageError(
                "give --wforacle-suite DIR (a suite written by `wforacle fixtures`) and/or "
                "--wforacle-fuzz N (a campaign of N examples): there is nothing to judge"
            )
        cases: tuple[Path, ...] = ()
        if suite is not None:
            directory = Path(suite).absolute()  # the same case paths in every worker
            if not directory.is_dir():
                raise pytest.UsageError(f"--wforacle-suite {suite}: not a directory")
            try:
                cases = tuple(suite_cases(directory))
            except InvalidInput as exc:  # a spoilt suite.json
                raise pytest.UsageError(f"--wforacle-suite {suite}: {exc}") from None
            if not cases:
                raise pytest.UsageError(
                    f"--wforacle-suite {suite}: no cases (directories with a manifest.json)"
                )
            _check_suite_spec(config, directory, spec)
        from wforacle.oracle.readings import Selection, UnknownReading

        pins = tuple(config.getoption("wforacle_reading") or ())
        mode = config.getoption("wforacle_readings") or "any"
        try:
            Selection.of(spec, pins, mode)
        except UnknownReading as exc:
            raise pytest.UsageError(f"--wforacle-reading: {exc}") from None
        return cls(
            engine,
            spec,
            None if suite is None else Path(suite).absolute(),
            cases,
            examples,
            config.getoption("wforacle_seed"),
            config.getoption("wforacle_timeout"),
            mode,
            pins,
        )


def _check_suite_spec(config: pytest.Config, directory: Path, spec: Specification) -> None:
    """With an explicit ``--wforacle-spec``, the suite's index must name the same specification."""
    if config.getoption("wforacle_spec") is None:
        return  # each case's manifest says which specification it follows, as for conform
    try:
        named = json.loads((directory / "suite.json").read_text("utf-8")).get("spec")
    except (OSError, ValueError, AttributeError):
        return  # no index (a folder of regression fixtures): the manifests decide
    if named is not None and named != spec.name:
        raise pytest.UsageError(
            f"--wforacle-suite {directory}: a {named} suite, not {spec.name} (--wforacle-spec)"
        )


class Conformance:
    """The active plugin: adds the items, owns this process's one engine."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self._engine: Engine | None = None

    def engine(self) -> Engine:
        """The engine of this process (one per pytest-xdist worker), made on first use."""
        if self._engine is None:
            # Imported when an item runs: none of the oracle in a run without options.
            from wforacle.oracle.engine import Engine

            self._engine = Engine(self.options.engine, timeout=self.options.timeout)
        return self._engine

    @pytest.hookimpl(tryfirst=True)  # before -k and -m deselect among the items
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[Any]) -> None:
        """Add one item per case of the suite, and one per campaign.

        They are collected as pytest collects any node (``genitems``), so
        the counts, ``--collect-only`` and the reports see them.
        """
        if self.options.cases:
            suite = Group.from_parent(session, name=SUITE, nodeid=SUITE, make=self._cases)
            items.extend(session.genitems(suite))
        if self.options.examples is not None:
            fuzz = Group.from_parent(session, name=FUZZ, nodeid=FUZZ, make=self._campaigns)
            items.extend(session.genitems(fuzz))

    def _cases(self, suite: Group) -> list[Any]:
        return [
            CaseItem.from_parent(suite, name=here.name, here=here, plugin=self)
            for here in self.options.cases
        ]

    def _campaigns(self, fuzz: Group) -> list[Any]:
        name = f"{self.options.spec.name}-seed-{self.options.seed}"
        return [CampaignItem.from_parent(fuzz, name=name, plugin=self)]

    def pytest_sessionfinish(self) -> None:
        """Stop the engine (it must not outlive the session)."""
        if self._engine is not None:
            self._engine.stop()

    def pytest_report_header(self) -> str:
        """Say what is judged, at the top of the run."""
        o = self.options
        parts = [f"wforacle: engine {o.engine!r}, {o.spec.name}"]
        if o.suite is not None:
            parts.append(f"suite {o.suite} ({len(o.cases)} cases)")
        if o.examples is not None:
            parts.append(f"campaign of {o.examples} examples, seed {o.seed}")
        return ", ".join(parts)


class Group(pytest.Collector):
    """The parent node of the plugin's items (its name is the JUnit classname)."""

    def __init__(self, *, make: Callable[[Group], list[Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.make = make

    def collect(self) -> list[Any]:
        """The items: the suite's cases, or the campaign."""
        return self.make(self)


class CaseItem(pytest.Item):
    """One case of a suite, judged as ``wforacle conform`` judges it."""

    def __init__(self, *, here: Path, plugin: Conformance, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.here = here
        self.plugin = plugin
        self.result: CaseResult | None = None

    def setup(self) -> None:
        """Run the engine over the case; a broken engine or case is an error here."""
        # Imported when an item runs: none of the oracle in a run without options.
        from wforacle.oracle.fixtures import conform_case

        options = self.plugin.options
        self.result = conform_case(self.plugin.engine(), self.here, options.selection)
        if self.result.verdict in ("fault", "invalid"):
            pytest.fail(_case_text(self.result), pytrace=False)

    def runtest(self) -> None:
        """The verdict: a divergence fails the item."""
        assert self.result is not None
        if self.result.verdict not in ("pass", "reading"):  # a reading is not a bug
            pytest.fail(_case_text(self.result), pytrace=False)

    def reportinfo(self) -> tuple[Path, None, str]:
        """Where the case lives."""
        return self.here, None, f"wforacle case {self.name}"


def _case_text(result: CaseResult) -> str:
    """What ``wforacle conform`` prints for a case that did not pass."""
    return "\n".join([f"{result.verdict.upper()} {result.detail}", *result.explanation])


class CampaignItem(pytest.Item):
    """A campaign, as ``wforacle fuzz`` runs it (its finding is shrunk and explained)."""

    def __init__(self, *, plugin: Conformance, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plugin = plugin
        self.result: Any = None

    def setup(self) -> None:
        """Run the campaign; engine faults without a divergence are an error here."""
        # Imported when an item runs: none of the oracle in a run without options.
        from wforacle.oracle.fuzz import campaign

        o = self.plugin.options
        self.result = campaign(
            o.spec,
            self.plugin.engine(),
            examples=o.examples or 0,
            seed_value=o.seed,
            selection=o.selection(o.spec),
        )
        if self.result.finding is None and self.result.fault_cases:
            _, judgement = self.result.fault_cases[0]
            pytest.fail(
                f"{self.result.faults} engine fault(s) in {self.result.examples} examples; "
                f"first: {judgement.fault.kind}: {judgement.fault.message}",
                pytrace=False,
            )

    def runtest(self) -> None:
        """The verdict: a finding fails the item with its explanation and minimal case."""
        # Imported when an item runs: none of the oracle in a run without options.
        from wforacle.oracle.fuzz import explain

        finding = self.result.finding
        if finding is not None:
            o = self.plugin.options
            again = shlex.join(
                [
                    *("wforacle", "fuzz", "--spec", o.spec.name, "--engine", o.engine),
                    *("--examples", str(o.examples), "--seed", str(o.seed)),
                    *(part for pin in o.pins for part in ("--reading", pin)),
                    *(("--readings", o.readings) if o.readings != "any" else ()),
                ]
            )
            case = json.dumps(finding.case, ensure_ascii=False, sort_keys=True)
            pytest.fail(f"{explain(finding)}\n\ncase: {case}\nagain: {again}", pytrace=False)

    def reportinfo(self) -> tuple[str, None, str]:
        """What the campaign is."""
        o = self.plugin.options
        return FUZZ, None, f"wforacle campaign: {o.examples} {o.spec.name} examples, seed {o.seed}"


# -- wforacle conform --junit ----------------------------------------------------------------


class _Recorder:
    """Keeps the session's items, to read their results after the run."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = list(session.items)


def run_suite(
    command: str,
    suite: Path,
    timeout: float,
    junitxml: Path,
    readings: str = "any",
    pins: tuple[str, ...] = (),
) -> list[CaseResult]:
    """Run a suite's cases as this plugin's items in pytest, which writes ``junitxml``.

    ``wforacle conform --junit`` calls it, so its XML is pytest's, written by
    the same code as ``pytest --wforacle-suite … --junitxml``.  The run is
    sealed off from the place it runs in: no plugin but this one and
    pytest's own, no configuration file, conftest or cache, no output.
    """
    recorder = _Recorder()
    with tempfile.TemporaryDirectory() as empty, _sealed():
        ini = Path(empty) / "pytest.ini"
        ini.write_text("[pytest]\n", encoding="utf-8")
        code = pytest.main(
            [
                empty,
                "-c",
                str(ini),
                "--rootdir",
                empty,
                "--noconftest",
                "-s",
                "-p",
                __name__,
                "-p",
                "no:cacheprovider",
                "-p",
                "no:terminal",
                f"--junitxml={junitxml}",
                "--wforacle-engine",
                command,
                "--wforacle-suite",
                str(suite),
                "--wforacle-timeout",
                repr(timeout),
                "--wforacle-readings",
                readings,
                *(f"--wforacle-reading={pin}" for pin in pins),
            ],
            plugins=[recorder],
        )
    if code == pytest.ExitCode.INTERRUPTED:
        raise KeyboardInterrupt  # the command line's own answer to ^C
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise RuntimeError(f"the conformance run through pytest ended with {code!r}")
    return [item.result for item in recorder.items if isinstance(item, CaseItem) and item.result]


@contextlib.contextmanager
def _sealed() -> Iterator[None]:
    """No plugins from the installation and no PYTEST_ADDOPTS while the block runs."""
    saved = {
        name: os.environ.get(name) for name in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS")
    }
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
