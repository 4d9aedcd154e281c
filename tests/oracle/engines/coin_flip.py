"""A nondeterministic engine for tests: each run goes to one of two engines, by a coin flip.

Usage: python coin_flip.py SEED 'CMD A' 'CMD B'.  Both engines are started;
the proxy says ready once, then sends each ``run`` (and what follows it) to
A or B at random, forwarding every line both ways.  An engine author's
engine that is right only some of the time looks like this to wforacle.

With ``first`` for SEED, a run goes to B the first time its ``run`` message
is seen and to A on every rerun: nondeterministic in the same way whatever
order a campaign draws and replays its cases in.
"""

import random
import shlex
import subprocess
import sys
import threading


def main():
    first = sys.argv[1] == "first"
    coin = random.Random(0 if first else int(sys.argv[1]))
    seen = set()
    engines = [
        subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for cmd in sys.argv[2:4]
    ]
    ready = [engine.stdout.readline() for engine in engines]
    sys.stdout.write(ready[0])
    sys.stdout.flush()
    lock = threading.Lock()

    def pump(engine):
        for line in engine.stdout:
            with lock:
                sys.stdout.write(line)
                sys.stdout.flush()

    for engine in engines:
        threading.Thread(target=pump, args=(engine,), daemon=True).start()
    current = engines[0]
    for line in sys.stdin:
        if '"type": "run"' in line or '"type":"run"' in line:
            if first:
                current = engines[0 if line in seen else 1]
                seen.add(line)
            else:
                current = engines[coin.randrange(2)]
        current.stdin.write(line)
        current.stdin.flush()
    for engine in engines:
        engine.kill()


if __name__ == "__main__":
    main()
