"""The pure core: Amerigo's rules, state and events. No I/O and no hardware or GUI imports.

Public entry points:

- `game.Game`: the facade. `Game.new(players, options=, box=)`, `.apply(event)`, `.undo()`,
  `.can_undo`, `.state`, `.states`, `.events`, `.log`, `.to_json()`, `Game.from_json(text)`.
- `events`: the frozen event models (`Drop`, `SetupDrop`, `StrayCubes`, `Correction`,
  `PirateRevealed`, `MoveShips`, `LoadCannons`, `Plan`, `Progress`, `Build`, `BuyProduction`,
  `AdvanceOrder`, `TakeGold`, `TakeVictoryPoints`, `Pass`, `CashChest`, `UseGoldToken`), the
  `Event` union and `EVENT_ADAPTER`.
- `rules.apply(state, event)` and `rules.new_game(...)`: the fold itself (every event but a
  `Correction`, which re-folds the log from the reading it corrects: `corrections.correct`,
  used by `Game.apply` and `log.replay`).
- `state.GameState` / `state.Player` / `state.Island` / `state.Stage` / `state.Category`.
- `log.GameLog`, `log.parse_log(text)`, `log.replay(log)`: the documented JSON log.
- `box.BoxData`, `box.REAL_BOX`, `box.TEST_BOX`; `options.RuleOptions`.
- `views`: derived views for the UI (available actions and AP, order, tower, scores, ranking).
- `odds`: the chances of the next drop under a simple sticking model.
- `simulate.simulate_game(players, seed, box=, table_box=)`: a seeded random legal game (with
  `REAL_BOX` the players read track layouts and tile values off a hidden complete box).
- `tracks`: moves on the progress and special tracks, from the box data or the sheet readings
  a `Progress` / `AdvanceOrder` event carries.
- `errors`: `RuleError` (a ValueError naming the rule), `InconsistentReadingError`,
  `MissingBoxDataError`, `UndoError`, `LogError`.
- `cubes`: `Colour`, `COLOURS`, `Counts`.
"""
