"""An engine for tests that answers a run with one hostile message (issue 19).

Usage: python hostile.py MODE.  It says ready, then on each ``run`` sends
the message MODE names, then ``done``: ``nan`` (a NaN in an event),
``infinity``, ``deep`` (an event nested 100,000 deep), ``bigint`` (a
5,000-digit integer), ``list-call`` (an invoke whose call id is a list),
``list-unit`` (an invoke naming a list instead of a step).
"""

import json
import sys

MESSAGES = {
    "nan": '{"type": "event", "run": "run_1", "event": {"event": "run_started", "x": NaN}}',
    "infinity": '{"type": "event", "run": "run_1", "event": {"event": "x", "y": -Infinity}}',
    "deep": '{"type": "event", "event": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "bigint": '{"type": "event", "event": {"event": "x", "n": ' + "7" * 5000 + "}}",
    "list-call": '{"type": "invoke", "call": [1], "run": "run_1", "step": "a", "input": {}}',
    "list-unit": '{"type": "invoke", "call": 1, "run": "run_1", "step": ["a"], "input": {}}',
}


def main():
    mode = sys.argv[1]
    print(json.dumps({"type": "ready", "protocol": 1, "engine": f"hostile-{mode}"}), flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "shutdown":
            return
        if message.get("type") == "run":
            print(MESSAGES[mode], flush=True)
            print(json.dumps({"type": "done", "run": "run_1", "state": {}}), flush=True)


if __name__ == "__main__":
    main()
