"""Lay out a document's diagram with Graphviz ``dot`` and return the SVG (docs/report.md).

The specification's ``diagram`` (properties/specification.py) says what to
draw: boxes, typed arrows, groups.  This module says how: the Python
``graphviz`` package writes the DOT source (it quotes every identifier and
label; each label from a document is passed through ``graphviz.escape``
so a backslash or a ``<…>`` in a step id is shown as written, never read
as a DOT escape or an HTML-like label), and the ``dot`` program from the
operating system's Graphviz lays it out as SVG.  DOT identifiers are
neutral (``b0``, ``b1``, ``g0``), so no document text is ever an
identifier; dot escapes the labels it writes into the SVG as XML text.

When ``dot`` is absent, fails or takes too long, or the diagram is larger
than ``MAX_BOXES``, the result is a ``Drawing`` without SVG whose ``note``
says why: a report is always written.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import attrs
import graphviz

from wforacle.properties.specification import Diagram

MAX_BOXES = 150  # larger diagrams are not drawn (dot's time grows fast with size)
DOT_SECONDS = 20.0  # the longest dot may take for one diagram

# How each role is drawn (ARROW_ROLES, BOX_ROLES): the legend of docs/report.md.
ARROW_STYLES = {
    "next": {"color": "#1f2937"},
    "failure": {"color": "#b91c1c", "style": "dashed", "fontcolor": "#b91c1c"},
    "data": {"color": "#1d4ed8", "style": "dotted", "fontcolor": "#1d4ed8"},
    "condition": {"color": "#047857", "fontcolor": "#047857"},
    "nested": {"color": "#6b7280", "arrowhead": "odot"},
    "other": {"color": "#6b7280", "style": "dashed"},
}
BOX_STYLES = {
    "work": {"shape": "box", "style": "rounded,filled", "fillcolor": "#f3f4f6"},
    "choice": {"shape": "box", "style": "rounded,filled,diagonals", "fillcolor": "#ecfdf5"},
    "construct": {"shape": "box", "style": "filled", "fillcolor": "#eef2ff"},
    "final": {"shape": "box", "style": "rounded,filled,bold", "fillcolor": "#fef3c7"},
}


@attrs.frozen
class Drawing:
    """A diagram laid out: its SVG (one ``<svg>`` element), or a note saying why there is none."""

    svg: str = ""
    note: str = ""


def dot_program() -> str | None:
    """The path of Graphviz's ``dot``, or None when it is not installed."""
    return shutil.which("dot")


def source(diagram: Diagram) -> str:
    """The diagram as DOT text (graphviz quotes and escapes; identifiers are neutral)."""
    graph = graphviz.Digraph(
        "document",
        graph_attr={"rankdir": "TB", "fontname": "Helvetica", "fontsize": "11", "margin": "0.1"},
        node_attr={"fontname": "Helvetica", "fontsize": "11", "margin": "0.12,0.06"},
        edge_attr={"fontname": "Helvetica", "fontsize": "10"},
    )
    names = {box.id: f"b{n}" for n, box in enumerate(diagram.boxes)}
    clusters = {g.id: graphviz.Digraph(f"cluster_g{n}") for n, g in enumerate(diagram.groups)}
    for group, cluster in zip(diagram.groups, clusters.values(), strict=True):
        cluster.attr(label=_text(group.label), style="dashed", color="#9ca3af", fontsize="10")
    for box in diagram.boxes:
        where = clusters.get(box.group, graph)
        label = _text(box.label) if not box.detail else _lines(box.label, box.detail)
        where.node(names[box.id], label=label, **BOX_STYLES[box.role])
    # A cluster is added to its parent after everything it holds (graphviz copies it).
    for group in reversed(diagram.groups):
        parent = clusters.get(group.parent, graph)
        parent.subgraph(clusters[group.id])
    for arrow in diagram.arrows:
        if arrow.tail in names and arrow.head in names:
            graph.edge(
                names[arrow.tail],
                names[arrow.head],
                label=_text(arrow.label),
                **ARROW_STYLES[arrow.role],
            )
    text: str = graph.source
    return text


def draw(diagram: Diagram, dot: str | None = None) -> Drawing:
    """Lay the diagram out with ``dot`` (default: the one on PATH) as inline SVG, or say why not."""
    if not diagram.boxes:
        return Drawing(note="nothing to draw: the document could not be read as a graph")
    if len(diagram.boxes) > MAX_BOXES:
        return Drawing(
            note=f"not drawn: {len(diagram.boxes)} boxes, more than the {MAX_BOXES} a report draws"
        )
    program = dot if dot is not None else dot_program()
    if program is None:
        return Drawing(
            note="not drawn: Graphviz's dot program is not installed "
            "(Debian: apt-get install graphviz; docs/report.md)"
        )
    try:
        done = subprocess.run(
            [program, "-Tsvg"],
            input=source(diagram).encode("utf-8"),
            capture_output=True,
            timeout=DOT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Drawing(note=f"not drawn: dot took more than {DOT_SECONDS:g} s")
    except OSError as exc:
        return Drawing(note=f"not drawn: dot could not be run ({exc.strerror or exc})")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        return Drawing(note=f"not drawn: dot failed ({said[0] if said else done.returncode})")
    return Drawing(svg=inline(done.stdout.decode("utf-8", "replace")))


def inline(svg: str) -> str:
    """The SVG dot wrote as one element to put in HTML: no XML prolog, doctype or comments."""
    start = svg.find("<svg")
    body = svg[start:] if start >= 0 else ""
    return re.sub(r"<!--.*?-->\s*", "", body, flags=re.DOTALL).strip()


def _text(text: str) -> str:
    """A label shown as written: backslashes and ``<…>`` lose their DOT meaning."""
    shown: str = graphviz.nohtml(graphviz.escape(text))  # a str graphviz never reads as HTML
    return shown


def _lines(first: str, second: str) -> str:
    r"""Two lines (DOT's ``\n`` between them), each shown as written."""
    shown: str = graphviz.nohtml(graphviz.escape(first) + "\\n" + graphviz.escape(second))
    return shown
