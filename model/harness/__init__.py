"""The Harness execution semantics (chapter 5): document model, loader and semantics."""
