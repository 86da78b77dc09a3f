"""One screen per module, each with its .kv file next to it (same name)."""
