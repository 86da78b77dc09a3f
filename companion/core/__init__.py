"""The pure core: Amerigo's rules, state and events. No I/O and no hardware or GUI imports."""
