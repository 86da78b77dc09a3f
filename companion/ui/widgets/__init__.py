"""Widgets shared by several screens; each registers its rules from its own .kv file."""
