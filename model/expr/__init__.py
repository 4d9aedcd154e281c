"""Expressions: JavaScript value semantics, the JSONLogic evaluator, w6w resolution."""
