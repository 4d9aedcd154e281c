"""How the extractor reads each specification: headings, prefixes, extras.

Headings map to the clause-id prefix of their section; ``None`` marks an
informative section (motivation, open questions) that has no clauses.
``extra`` names table cells and rule sentences that carry no RFC 2119 keyword
but are normative all the same (the field tables, the Planning list's lead).
"""

from __future__ import annotations

from wforacle.properties.clauses.extract import Section, SpecConfig

_W6W_SECTIONS = (
    Section("Summary", None),
    Section("Motivation", None),
    Section("Goals", None),
    Section("Non-Goals", None),
    Section("Concept", "CONCEPT"),
    Section("Shape", None),
    Section("Field reference", "FIELD"),
    Section("Execution model", "PLAN"),
    Section("Run state", "STATE"),
    Section("Replay", "REPLAY"),
    Section("Expression markers", "EXPR"),
    Section("Host contract — WorkflowContext", "HOST"),
    Section("Conformance", "CONF"),
    Section("Resolved questions", None),
    Section("Open questions", None),
    Section("Status ladder", None),
    Section("Amendment — 2026-07-29: failure-conditioned edges (Edge.when)", "EDGE", titled=True),
    Section(
        "Amendment — 2026-07-29: authoring presentation (Step.position, Workflow.settings)",
        "PRES",
    ),
    Section(
        "Amendment — 2026-08-11: the multipart expression envelope (ExprValue) and the render "
        "part kind (F-3)",
        "ENV",
        titled=True,
    ),
    Section("Amendment — 2026-08-14: root-anchored template strings in with values", "ROOT"),
    Section("Amendment — 2026-08-20: infix fallback operators in {{ }}", "CHAIN"),
    Section(
        "Amendment — 2026-08-21: the run-level error handler (Workflow.retry/onError/reroute)",
        "RUNERR",
        titled=True,
    ),
    Section("Amendment — 2026-09-02: the Workflow key field", "KEY", titled=True),
    Section(
        "Amendment — 2026-10-04: RetryPolicy well-formedness and the per-wait ceiling", "RETRY"
    ),
    Section("Amendment — 2026-10-07: Step.fanOut and parallel scheduling", "FAN"),
    Section("Amendment — 2026-10-12: step execution metadata (steps.<id>.meta)", "META"),
    Section("Amendment — 2026-10-12: whole-value bindings for json and group params", "BIND"),
)

_W6W_EXTRA = (
    # Concept
    "The graph is either explicit (via edges) or implicit (when no edges are declared, the engine "
    "runs steps in the declared order as a linear chain).",
    "Explicit graphs are validated at load time: cycles, dangling edge endpoints, and duplicate "
    "step ids are rejected.",
    "If the engine crashes mid-run, the host reads the RunState back and resumes from the first "
    "non-terminal step.",
    "Replays reuse recorded step outputs verbatim — no re-invocation of execute — so historical "
    "runs remain deterministic even if upstream apps change behavior.",
    # Field reference: Workflow
    'Core spec version. "2" for the workflow model.',
    "Host-issued opaque id. Stable across renames.",
    "The graph nodes. At least one.",
    "Directed dependencies. When absent, the engine treats steps as a linear chain in declared "
    "order.",
    "autoSave and savePosition default to true when omitted.",
    "Lowercase, kebab-case.",
    # Step
    "Machine name. Unique within the workflow.",
    "Hosts refuse a dotted id when the workflow is saved.",
    "{ app, action, connection? }. Fully names the Invocation target.",
    "Param values. Each value is a literal, an object, an array, or an expression marker.",
    "How to retry on failure. Defaults to no retry.",
    '"fail" (default), "continue", or "continue-record". Applied when retries are exhausted: fail '
    "aborts the run; continue swallows the failure and proceeds; continue-record proceeds and rolls "
    "the step’s StepError into the run’s end state (RunState.stepErrors) so the failure stays "
    "observable.",
    "Free-form author notes carried on the step. Declarative only — the engine ignores it.",
    # Edge
    '"success" (default) or "error" — which outcome of the from step activates this edge.',
    # WorkflowVariable
    "Machine name. Referenced as vars.<key>.",
    "If true and no value provided at run start, the run is rejected.",
    "Used when the caller doesn’t supply a value.",
    # RetryPolicy
    "Total attempts including the first. 1 = no retry.",
    '"fixed" (default) or "exponential".',
    "Base delay in ms before the first retry. Defaults to 0. Exponential doubles each attempt.",
    "Retries are attempted only for errors the runtime classifies as retryable.",
    'phase: "auth" errors are never retried. phase: "execute" errors are retried only when the '
    "action declared idempotent: true or the error itself sets retryable: true.",
    # Planning
    "The plan is a deterministic list of step ids.",
    # Run state
    "The engine writes a checkpoint through WorkflowContext.state.checkpoint() after every "
    "observable transition (status change, step start, step end, retry attempt).",
    "Map of step id → StepExecution. Only completed / running / failed steps appear.",
    "1-based attempt count. Incremented per retry.",
    # Replay
    "Replay re-executes a completed or failed run without re-invoking actions.",
    "The engine walks the plan; for each step that succeeded in the original run, it uses the "
    "recorded StepExecution.output verbatim. Steps that were pending or failed run fresh.",
    # Expression markers
    "Path lookup sugar over the run scope.",
    "Full JSONLogic evaluation over the run scope.",
    "Resolved recursively — nested markers evaluated in place.",
    # Host contract
    "When provided, the engine polls between steps and aborts cleanly on signal.",
    # Authoring presentation
    "No plan, no checkpoint, no expression scope, and no Conformance rule reads them, and a "
    "workflow’s execution is byte-for-byte identical with them present, absent, or arbitrary.",
    "Concretely: settings.autoSave ?? true and settings.savePosition ?? true.",
    "Only an explicit false turns a feature off.",
    # Edge.when
    'The edge activates when the from step reaches status: "succeeded". The default.',
    'The edge activates when the from step reaches status: "failed".',
    # Envelope kinds and modes
    "The literal chunk, verbatim.",
    'A path lookup against the generic data root, exactly as { "$": … }.',
    "The plaintext of that named secret, read from the secrets root. The only production in the "
    "model that may read it.",
    'JSONLogic evaluated against the generic data root, exactly as { "$expr": … }.',
    "{{ =<JSONLogic> }} → an expr part · {{ secrets.<name> }} → a secret part · {{ <path> }} → a "
    "var part",
    "{{ =<JSONLogic> }} → an expr part · {{ <path> }} → a var part",
    "render has no {{ }} text spelling, in either parser mode.",
    "secrets is injected by the host from its vault before the run and is never persisted with "
    "run state.",
    "A host that puts secrets on the generic data root does not conform to this RFC.",
    # Chain
    "Both parse to the existing expr part kind that Amendment — 2026-08-11 already declares — { "
    '"kind": "expr", "expr": { "or": [...] } } for ||, { "kind": "expr", "expr": { "??": [...] } } '
    "for ??.",
    "The arm fires only for a genuinely flat chain, and refuses outright — falling through to the "
    "ordinary <path> production instead of building an expr part — the moment any operand begins "
    "secrets., or the chain mixes || and ??, or any operand is empty.",
    "A flat fallback chain, left-to-right, JSONLogic or semantics (truthy short-circuit).",
    "A flat fallback chain, left-to-right, absent-only semantics — null/undefined short-circuit; 0, "
    '"", false, [] are kept, never treated as absent.',
    # RetryPolicy on @w6w/call and @w6w/control steps
    "A retry declared on such a step is still subject to the well-formedness rules above, but it "
    "is never read.",
    # fanOut
    'How the step’s direct successors run. Absent ⇒ "sequential". Governs the successors on both '
    "lanes (the normal lane and the Edge.when failure lane).",
)

_HARNESS_SECTIONS = (
    Section("5. Execution Semantics#", None),
    Section("5.1 The execution instance#", "INST"),
    Section("5.2 Starting#", "START"),
    Section("5.3 Readiness#", "READY"),
    Section("5.3.1 Join policies#", "JOIN"),
    Section("5.3.2 Cancellation under any#", "CANCEL"),
    Section("5.3.3 Unreachability propagates#", "UNREACH"),
    Section("5.4 Scheduling#", "SCHED"),
    Section("5.5 Executing a node#", "EXEC"),
    Section("5.6 Data availability#", "DATA"),
    Section("5.7 Completion#", "DONE"),
    Section("5.8 Failure propagation#", "FAIL"),
    Section("5.9 What is deliberately unspecified#", None),
)

_HARNESS_EXTRA = (
    # 5.1
    "Executing a harness creates an execution instance: an identity, a state for every node, and "
    "a set of resolved port values.",
    "Validation is a gate, not advice.",
    # 5.2
    "A node reachable only by an error or compensation edge is a handler, not a start",
    # 5.3
    "A node in PENDING becomes READY when its join condition over incoming edges is satisfied.",
    "Only control, data and dependency edges participate.",
    "An edge carrying a condition that evaluates false is not satisfied, and never will be.",
    "It is resolved-negative: it neither blocks forever nor counts toward a join.",
    # 5.3.1
    "joinPolicy on the target node decides how satisfied edges combine:",
    'The "at least one satisfied" clause on all matters: if every incoming edge resolved '
    "negative, no path reached the node, and it remains PENDING (§6.4).",
    "Not reached is not the same as skipped.",
    "SKIPPED means reached, and its guard was false — a terminal success whose control successors "
    "still run.",
    "PENDING means never reached, so its successors are not reached either.",
    # 5.3.3
    "A node that no path will reach makes its own outgoing edges resolved-negative, recursively.",
    "A node is unreachable when any of the following holds:",
    # 5.5
    "Steps 1–3 happen before execution begins, so that a node which cannot run fails without side "
    "effects.",
    # 5.6
    "An output value is available to downstream nodes once its producer reaches SUCCEEDED.",
    "If a producer is SKIPPED, its outputs are unavailable.",
    "A downstream required input bound to an unavailable output is a runtime error (HX-4101) "
    "unless the input declares a default.",
    "Values are immutable once bound.",
    "There is no shared mutable state; a value travels along an edge and cannot be modified in "
    "place by its consumer.",
    # 5.7
    "An execution instance is complete when no node is PENDING, READY, RUNNING or RETRYING.",
    "Nodes never reached remain PENDING at completion.",
    # 5.8
    "When a node reaches FAILED and its retry policy is exhausted:",
)

CONFIGS: dict[str, SpecConfig] = {
    "w6w": SpecConfig("w6w", "W6W", _W6W_SECTIONS, _W6W_EXTRA),
    "harness": SpecConfig("harness", "HX", _HARNESS_SECTIONS, _HARNESS_EXTRA, wrapped_bullets=True),
}
