"""How the extractor reads each specification: headings, prefixes, extras.

Headings map to the clause-id prefix of their section; ``None`` marks an
informative section (motivation, open questions) that has no clauses, and
``informative=True`` one whose keyword sentences alone are clauses.
``extra`` names table cells and rule sentences that carry no RFC 2119 keyword
but are normative all the same (the field tables, the Planning list's lead,
prose that states what a step's output is or what a host never does).  A
sentence belongs here when an engine or host could be checked against it;
rationale ("Why …"), history and pointers to other sections do not.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Section:
    """A heading of the specification and the clause-id prefix it gets."""

    heading: str
    code: str | None  # None: no clauses at all (Motivation, Open questions)
    titled: bool = False
    informative: bool = False  # only its keyword sentences are clauses


@attrs.frozen
class SpecConfig:
    """How to read one specification file."""

    spec: str
    prefix: str
    sections: tuple[Section, ...]
    extra: tuple[str, ...] = ()
    wrapped_bullets: bool = False  # a bullet may continue, indented, after a blank line
    # Every sentence is a clause, not only keyword sentences: for a chapter that
    # states its rules in the indicative (Workfile: "the executor then evaluates
    # outputs") as often as with RFC 2119 keywords.
    every_sentence: bool = False
    # A YAML example stands in the prose (the Stateful Profile's state-form
    # document): an indented line, or an unindented ``key:`` line that does not
    # end a sentence, is part of the example and not a clause.
    yaml_examples: bool = False
    # Lowercase words that begin a sentence: the Stateful Profile begins
    # sentences with key names ("… or timeout. final: true declares …").
    sentence_starts: tuple[str, ...] = ()


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
    # Prose without a keyword that states a rule (added 2026-12, issue 10).
    # Concept
    "Every step names an App and Action; when the step runs, the host packages { app, action, "
    "connection, params } into an Invocation and calls the core runtime.",
    "Whatever the action returns becomes the step’s output, which downstream steps can reference "
    "through expressions in their own params.",
    "Control flow — branching, looping, waiting, running steps in parallel — is expressed the same "
    'way: as an Invocation of a control-type action (type: "control" in the Action RFC).',
    "Control actions are declared like any action so the editor renders them uniformly, but they "
    "are interpreted by the engine rather than called via the runtime.",
    "The Engine RFC pins the four canonical control identities (if, foreach, parallel, wait, all "
    "under the first-party @w6w/control app) that every conforming engine natively supports — a "
    "workflow using only actions + canonical controls is portable across every engine.",
    "After every step, the engine persists a StepExecution (input, output, status, timings) plus "
    "the run’s updated status.",
    "Retries apply to a single step’s Invocation; when retries are exhausted, onError selects one "
    "of three outcomes: fail (the default) aborts the run, continue proceeds to the next step, and "
    "continue-record proceeds and keeps the step’s StepError in the run’s end state so the failure "
    "stays observable.",
    'A step that declares an authored error edge (Edge.when: "error") is the exception: its '
    "failure routes down that edge and its onError is not consulted — see Amendment — 2026-07-29: "
    "failure-conditioned edges, which is the governing text for both.",
    "The engine never touches the outside world directly.",
    "Every operational effect — calling an app, writing a log, checkpointing state, scheduling a "
    "delay, enqueueing a fan-out job — flows through WorkflowContext.",
    # Field reference: the Step table's note
    "Note: “Required” (✅) above describes what a valid, runnable Step needs — it is not a "
    "storage-time constraint.",
    "A host may persist a Step (and a Workflow containing it) as an incomplete draft, e.g. with "
    "uses.app/uses.action unset.",
    # Planning
    "v0 executes them sequentially; parallel scheduling of independent branches is an "
    "engine-level enhancement that consumes the same plan.",
    # Expression markers
    "Expression semantics — operators, coercion, error handling — are specified by @w6w/expr "
    "(JSONLogic-based).",
    # Host contract
    "Every operational effect goes through WorkflowContext, which the host implements.",
    # Edge.when
    "An error edge is an edge that activates when its source step fails, instead of when it "
    "succeeds.",
    # Authoring presentation
    "settings is itself optional; when the object is absent, every member below takes its own "
    "default.",
    "Because the coordinate travels with the step, renaming a step id carries its position along "
    "untouched: there is no workflow-level id → {x,y} map to keep in step with renames, and "
    "therefore no orphaned entries and no id fix-up.",
    "No positions is a valid workflow.",
    "Partial coverage is likewise valid: an editor places the steps that declare a position and "
    "computes the rest.",
    "This RFC pins no storage mechanism beyond that: what is normative is that both fields are "
    "part of the portable workflow document, so a workflow exported from one host and imported "
    "into another keeps its arrangement.",
    # Envelope
    'An ExprValue is a with value of the form { "type": "expr", "parts": [ … ] }: an ordered list '
    "of parts, each resolved independently, concatenated into one string.",
    "The consequence worth stating plainly, so that nobody meets it as a surprise: a document "
    "rendered through a render part cannot be handed to an object-typed param.",
    "Whatever the document holds, the envelope’s contribution is a string.",
    "Pointing a render part’s ref at that parsed object does not stringify it either — it fails "
    "the step, per The render part kind.",
    "Nothing an author can type between {{ and }}, and nothing a document can contain, parses to a "
    "render part.",
    "Render mode’s grammar has exactly two productions, and neither one is a secret reference.",
    "It has no production for a secret part and no production for a nested render part.",
    "{{ secrets.API_KEY }} inside rendered content is therefore not a secret reference at all.",
    'It matches the ordinary path production and parses to { "kind": "var", "ref": '
    '"secrets.API_KEY" } — a path lookup like any other.',
    "And the generic data root it is looked up in is the run scope minus secrets (Run-scope "
    "roots), so the lookup finds nothing and contributes the empty string, exactly as every "
    "unknown path does.",
    "Two more are part of the model and are declared here; per the governing clause above, that "
    "block is incomplete rather than exhaustive.",
    "Exactly one production in this model may read it: a secret part of an ExprValue, which reads "
    "secrets[ref] directly, never through expression evaluation.",
    'It is excluded from the generic data root — the root that { "$": … }, { "$expr": … }, var '
    "parts, expr parts and every rendered reference are evaluated against is the run scope with "
    "secrets removed.",
    'So { "$": "secrets.X" } is an unknown path rather than a secret read and resolves to nothing, '
    "which is what an unknown path always does.",
    "documents is ordinary data with no special handling: reachable as documents.<key> from any "
    "expression, exactly like vars or steps.",
    "The host populates it under the run’s own (tenant, subject, project) — a workflow reads its "
    "own project’s documents.",
    "a secret part with an absent or empty ref names no available secret and so fails the step, "
    "per the secret rule above; a render part with an absent or empty ref has no resolved content "
    "and so fails the step with render_ref_unresolved, per The render part kind.",
    # Root-anchored strings
    "The exported RunScope type in @w6w/workflow is canonical for this list: it is the single "
    "source of truth for which roots exist, and a future member added to it extends this rule’s "
    "root set automatically — no separate list to keep in step.",
    # Chain
    "It adds one new production to the {{ }} grammar — a flat fallback chain spelled with the "
    "infix operators || and ?? — and that production exists in editor mode only.",
    "|| reuses JSONLogic’s existing or operator unchanged; ?? is a new @w6w/expr evaluator "
    "operator.",
    "That refusal is a property of the parser, not a filter: a chain naming a secret operand is "
    "never built, so there is no expr part in existence for a downstream evaluator to mishandle.",
    "The new production does not exist in render mode.",
    'A rendered {{ secrets.K || "x" }} is refused by the operand rule above before it ever '
    "becomes a chain, and falls back to the ordinary <path> production, which in render mode "
    "resolves against the secrets-free root exactly as every other path does.",
    # Workflow key
    "name keeps its pre-existing meaning and requiredness unchanged: a required, human-authored, "
    "lowercase-kebab-case label.",
    # RetryPolicy well-formedness and the per-wait ceiling
    "An absent or null retry is not a malformed policy: it means no retry — one attempt, exactly "
    "as the Step retry row’s “Defaults to no retry” already says.",
    "Any single computed wait between two attempts is capped at 300000 ms (5 minutes): the host "
    "waits the smaller of the wait the policy computes and 300000 ms.",
    "The cap applies to every author-configured retry — Step.retry, Function.retry, "
    "Endpoint.retry, Workflow.retry — and to the platform’s own trigger delivery constant "
    "(trigger.md’s Retry backoff).",
    "It bounds each computed wait, not the ladder or the clock: a policy with many attempts still "
    "makes every one of them, with no computed wait between them longer than five minutes.",
    # Step metadata
    'Absent meta reads like any absent path: { "$": "steps.<id>.meta.version" } and JSONLogic var '
    "yield null.",
    "Records written before this amendment stay valid.",
    "Nothing is backfilled and no null filler stands in for a missing meta.",
    # Whole-value bindings
    'A json or group param’s entire value may be a { "$" } marker (or a { "$expr" } marker).',
    "It resolves type-preserved — an object, array, null, boolean or number stays itself — before "
    "validation and before invocation, exactly as a marker resolves anywhere else in with.",
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
    Section("5.9 What is deliberately unspecified#", "UNSPEC", informative=True),
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
    # 5.4 (added 2026-12, issue 10)
    "Everything else is an implementation decision: which ready node to pick, how to distribute "
    "work, how to recover from a crash.",
    "If ordering matters, express it with an edge.",
)

_WORKFILE_SECTIONS = (
    Section("Execution Semantics", "INTRO"),
    Section("Recording", "REC"),
    Section("Run Lifecycle", None),
    Section("Starting a Run", "START"),
    Section("Step Evaluation", "STEP"),
    Section("Dry Runs", "DRY"),
    Section("Suppression Dependencies", "SUPP"),
    Section("Partial Outputs and Child Results", "PART"),
    Section("Suppressed Control Evaluations", "SCTL"),
    Section("Recording Suppression", "RSUP"),
    Section("Successful Completion", "DONE"),
    Section("Core Cancellation", "CANCEL"),
    Section("Internal Work Cancellation", "IWC"),
    Section("Executor Interruption", "INTR"),
    Section("Reaching a Terminal Outcome", "TERM"),
    Section("Scheduling Cutoffs", "CUT"),
    Section("Late Results", "LATE"),
    Section("Outcomes", None),
    Section("Run Outcomes", "ROUT"),
    Section("Step Outcomes", "SOUT"),
    Section("Binding Failed or Unexecuted Steps", "BIND"),
    Section("Failure and Retry", "FAIL"),
    Section("Code-Pattern Matching", "CODE"),
    Section("Error Classification", "CLASS"),
    Section("Effective Retry Policy", "RETRY"),
    Section("Core Ambiguity Disposition", "AMB"),
    Section("on_unknown", "UNK"),
    Section("catch", "CATCH"),
    Section("Failure Policy Precedence", "POLICY"),
    Section("Sources of Nondeterminism", "NONDET"),
    Section("Permitted Scheduling Variation", "SCHED"),
)

_WORKFILE_STATEFUL_SECTIONS = (
    Section("Stateful Workflow Profile", "INTRO"),
    Section("State Document Form", "FORM"),
    Section("State Inputs and Entry Steps", "ENTRY"),
    Section("Transitions and Correlation", "TRANS"),
)

CONFIGS: dict[str, SpecConfig] = {
    "w6w": SpecConfig("w6w", "W6W", _W6W_SECTIONS, _W6W_EXTRA),
    "harness": SpecConfig("harness", "HX", _HARNESS_SECTIONS, _HARNESS_EXTRA, wrapped_bullets=True),
    "workfile": SpecConfig("workfile", "WF", _WORKFILE_SECTIONS, every_sentence=True),
    "workfile-stateful": SpecConfig(
        "workfile-stateful",
        "WFS",
        _WORKFILE_STATEFUL_SECTIONS,
        every_sentence=True,
        yaml_examples=True,
        sentence_starts=("final:", "into", "wf.stop", "timeout", "on", "event"),
    ),
}
