"""The Workfile Core model (and, later, its Stateful Profile): documents, manifests, expressions."""
