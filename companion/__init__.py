"""Tower Companion: reads Amerigo's dice-tower tray, keeps the game by the rules, scores it."""

__version__ = "0.1.0"
