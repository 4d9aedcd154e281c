"""The shared kernel: labelled transition systems, virtual time, scheduling.

Every specification's semantics is an ``Semantics`` — an initial
configuration and ``enabled(c)``, every transition the specification permits
from configuration ``c``, each labelled with its observable event and the
clause ids of the rule that permits it.  ``execute`` follows one transition
at a time, chosen by a ``Scheduler``; the explorer (issue 4) will follow all
of them.
"""
