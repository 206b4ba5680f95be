"""Policies: manifest models, loading and layering, tool visibility and command rules."""
