"""The real world behind seams: frame sources, GPIO, the chute sensor, the simulated tower.

Every device takes its back-end in the constructor with one working default; settings and
environment variables (see companion.settings) choose between real, mock and simulated parts.
Device threads never touch widgets: they post to callbacks.
"""
