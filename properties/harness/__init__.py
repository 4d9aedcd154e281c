"""Static properties of Harness documents: validation, networkx reachability, z3."""
