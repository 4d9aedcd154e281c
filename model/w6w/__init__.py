"""The w6w workflow document: model (document.py) and JSON loader (loader.py)."""
