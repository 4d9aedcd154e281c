"""``python -m wforacle.oracle`` runs the command line."""

from wforacle.oracle.cli import run

run()
