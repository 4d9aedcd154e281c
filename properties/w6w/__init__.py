"""Static properties of w6w documents: validation rules and planning."""
