"""Static properties of Workfile documents: validation against the chapter."""
