"""Hypothesis strategies for Harness documents and scenarios (chapter 5)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def _node(node_id: str, body: str = "", **attributes: str) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attributes.items())
    return f'<node id="{node_id}"{extra}>{body}</node>'


@st.composite
def harness_cases(draw: st.DrawFn, max_nodes: int = 6) -> dict[str, Any]:
    """A Harness document (XML text) with a scenario and a completion schedule.

    Nodes n0…nk in document order; each later node takes one or two sources
    among the earlier ones (control, dependency, data or error edges), may be
    guarded, retried, non-idempotent, an ``any`` or ``quorum`` join, and a
    third of the time a decision routes to the next two nodes.  Data edges
    feed a required input, with or without a default.
    """
    n = draw(st.integers(2, max_nodes))
    ids = [f"n{i}" for i in range(n)]
    parts: list[str] = []
    decided: set[str] = set()
    for i, node_id in enumerate(ids):
        if i + 2 < n and node_id not in decided and draw(st.integers(0, 3)) == 0:
            targets = ids[i + 1 : i + 3]
            decided.update(targets)
            parts.append(
                f'<decision id="{node_id}"><case to="{targets[0]}" when="params.go == true"/>'
                f'<case to="{targets[1]}"/></decision>'
            )
            sources: list[str] = []
        else:
            body = ""
            if draw(st.integers(0, 4)) == 0:
                body += "<guard>params.go == true</guard>"
            if draw(st.booleans()):
                body += "<output name='v'/>"
            if draw(st.booleans()):
                body += "<retry maxAttempts='2'/>"
            attrs: dict[str, str] = {}
            join = draw(st.sampled_from(["all", "all", "any", "quorum"]))
            if join != "all":
                attrs["joinPolicy"] = join
            if join == "quorum":
                attrs["quorum"] = "1"
            if draw(st.integers(0, 2)) == 0:
                attrs["idempotent"] = "false"
            sources = []
            if i and node_id not in decided:
                sources = draw(
                    st.lists(st.sampled_from(ids[:i]), min_size=1, max_size=2, unique=True)
                )
            data_source = None
            if sources and draw(st.integers(0, 3)) == 0:
                data_source = sources[0]
                default = ' default="0"' if draw(st.booleans()) else ""
                body += f"<input name='v' required='true'{default}/>"
            parts.append(_node(node_id, body, **attrs))
            for source in sources:
                if source == data_source:
                    kind = "data"
                else:
                    kind = draw(st.sampled_from(["control", "control", "dependency", "error"]))
                extra = ' fromPort="v" toPort="v"' if kind == "data" else ""
                parts.append(f'<edge from="{source}" to="{node_id}" type="{kind}"{extra}/>')
    text = '<harness id="h">' + "".join(parts) + "</harness>"
    failing = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
    scenario = {
        "params": {"go": draw(st.booleans())},
        "nodes": {f: {"attempts": [{"error": {"code": "x"}}]} for f in failing},
    }
    return {
        "document": text,
        "scenario": scenario,
        "schedule": draw(st.lists(st.integers(0, 5), max_size=10)),
    }
