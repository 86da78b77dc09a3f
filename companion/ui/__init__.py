"""The touchscreen app (Kivy): one screen per file, thin over the engine.

Importing this package does not import Kivy; `companion.ui.kivy_env.prepare` must run first,
because Kivy reads its environment and configuration once, at import time.
"""
