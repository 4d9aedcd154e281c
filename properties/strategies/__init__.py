"""Hypothesis strategies and settings profiles shared by tests and campaigns."""
