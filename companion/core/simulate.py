"""A seeded random game generator: whole legal games for 2-4 players (tests, demo, forecast).

The simulator plays the people at the table: it draws tray readings from the sticking model
(`odds.draw_drop`), sometimes misreads a tray and corrects it, lets cubes fall out at the
wrong time, and chooses among the legal moves at random (actions with gold spent for AP,
the gold alternative, special actions, chests and gold tokens). Every event it records was
accepted by the engine, so its logs are legal by construction. Same seed, same game.
"""

from __future__ import annotations

import random
from collections import Counter

from companion.core.actions import on_last_space, special_space_colour, token_bonus
from companion.core.box import TEST_BOX, BoxData
from companion.core.components import (
    COMMODITIES_PER_GOOD,
    GOODS,
    PRODUCTION_COSTS,
    PRODUCTION_PER_GOOD_AND_COST,
    TRADING_POSTS_PER_PLAYER,
    VILLAGE_TILES_PER_PLAYER,
    ProgressKind,
    TileKind,
)
from companion.core.cubes import COLOURS, Colour, Counts
from companion.core.errors import RuleError
from companion.core.events import (
    AdvanceOrder,
    Build,
    BuiltTile,
    BuyProduction,
    CashChest,
    Correction,
    Drop,
    Event,
    LoadCannons,
    MoveShips,
    Pass,
    PirateRevealed,
    Plan,
    PostPlacement,
    ProductionBought,
    Progress,
    SetupDrop,
    StrayCubes,
    TakeGold,
    TakeVictoryPoints,
    TokenTaken,
    UseGoldToken,
)
from companion.core.game import Game
from companion.core.odds import draw_drop, next_drop_tower
from companion.core.options import RuleOptions
from companion.core.state import GameState, Player, Stage

PLAYER_NAMES = ("Ada", "Bruno", "Carla", "Dmitri")


class _Table:
    """What the people at the table know that the engine does not: token identities."""

    def __init__(self, rng: random.Random, box: BoxData) -> None:
        self.rng = rng
        bag: list[tuple[ProgressKind, tuple[Colour, ...]]] = []
        for supply in box.progress_tokens or ():
            bag += [(supply.kind, supply.actions)] * supply.count
        rng.shuffle(bag)
        self.bag = bag
        self.right = [self.bag.pop() for _ in range(4)]
        self.left = [self.bag.pop() for _ in range(4)]
        pirates = list(box.pirate_markers or ())
        rng.shuffle(pirates)
        self.pirates = pirates[:5]
        self.round = 1

    def new_round(self, round_number: int) -> None:
        while self.round < round_number:
            self.right = self.left
            self.left = [self.bag.pop() for _ in range(min(4, len(self.bag)))]
            self.round += 1

    def take(self, n: int) -> list[TokenTaken]:
        taken: list[TokenTaken] = []
        for _ in range(n):
            halves = [h for h, tokens in (("left", self.left), ("right", self.right)) if tokens]
            half = self.rng.choice(halves)
            pile = self.left if half == "left" else self.right
            kind, actions = pile.pop(self.rng.randrange(len(pile)))
            taken.append(TokenTaken(token=kind, actions=actions, half=half))
        return taken

    def put_back(self, taken: list[TokenTaken]) -> None:
        for token in taken:
            pile = self.left if token.half == "left" else self.right
            pile.append((token.token, token.actions))


def _complete(box: BoxData) -> bool:
    """True when a box's data has every figure the simulated table needs."""
    return None not in (
        box.progress_track,
        box.special_track,
        box.progress_tokens,
        box.pirate_markers,
        box.neutral_tiles,
        box.village_tiles,
    )


class Simulator:
    """Plays one game; `run()` returns the finished Game."""

    def __init__(
        self,
        players: int,
        seed: int = 0,
        box: BoxData = TEST_BOX,
        options: RuleOptions | None = None,
        p_out: float | None = None,
        table_box: BoxData | None = None,
        read_sheets: float = 0.0,
    ) -> None:
        """`box` is what the engine is told; `table_box` the physical box on the table.

        `read_sheets` is the chance that a brown or white move carries the sheet readings even
        though `box` knows the track (so the engine checks them); 0 keeps events as a person
        taps them on the screen.

        The table's box must be complete (every figure known); by default it is `box` when that
        is complete, else TEST_BOX. When `box` lacks a figure, the simulated players supply it in
        the events from the table's box, as real players read it off their sheets and tiles.
        """
        table = table_box or (box if _complete(box) else TEST_BOX)
        if not _complete(table):
            raise ValueError("the simulator's table needs a box with every figure known (TEST_BOX)")
        self.rng = random.Random(seed)
        self.box = table
        self.told = box
        self.read_sheets = read_sheets
        # Towers differ: without a given chance, each game draws how sticky its tower is.
        self.p_out = p_out if p_out is not None else self.rng.uniform(0.2, 0.8)
        self.game = Game.new(PLAYER_NAMES[:players], options=options or RuleOptions(), box=box)
        self.table = _Table(self.rng, table)
        self.next_island = 1

    def _read_sheet(self) -> bool:
        # No random draw at all when 0, so such games stay as they were.
        return self.read_sheets > 0 and self.rng.random() < self.read_sheets

    def run(self) -> Game:
        """Play until final scoring; returns the game."""
        game = self.game
        while not game.state.finished:
            self.step()
        return game

    def step(self) -> None:
        """Apply the next event (or a few, for a misread tray and its correction)."""
        state = self.game.state
        rng = self.rng
        self.table.new_round(state.round)
        if state.stage is Stage.REVEAL_PIRATE:
            self.game.apply(PirateRevealed(value=self.table.pirates[len(state.pirates)]))
        elif state.stage is Stage.SETUP_DROP:
            reading = draw_drop(rng, state.tower, self.p_out)
            self.game.apply(SetupDrop(counts=Counts.from_tuple(list(reading))))
        elif state.stage is Stage.DROP:
            self._drop(state)
        else:
            self._turn(state)

    def _drop(self, state: GameState) -> None:
        rng = self.rng
        if rng.random() < 0.03 and sum(state.tower) > 0:
            # Someone bumped the table: one cube falls out early.
            colours = [i for i, n in enumerate(state.tower) if n]
            stray = [0] * 7
            stray[rng.choice(colours)] = 1
            self.game.apply(StrayCubes(counts=Counts.from_tuple(stray)))
            return
        _, inside = next_drop_tower(state)
        truth = draw_drop(rng, inside, self.p_out)
        reading = list(truth)
        misread = sum(truth) > 1 and rng.random() < 0.05
        if misread:
            reading[rng.choice([i for i, n in enumerate(truth) if n])] -= 1
        self.game.apply(Drop(counts=Counts.from_tuple(reading)))
        if misread and self.game.state.stage is Stage.TURNS:
            # Fixed at once, or after someone acted on it.
            if rng.random() < 0.5 and len(self.game.state.turn_order) > 1:
                self._turn(self.game.state)
            if self.game.state.stage is Stage.TURNS:
                self._correct(Counts.from_tuple(list(truth)))

    def _correct(self, truth: Counts) -> None:
        """Correct the latest drop; if a turn taken on it no longer fits, take turns back first."""
        game = self.game
        while True:
            try:
                game.apply(Correction(counts=truth))
                return
            except RuleError:
                if not game.can_undo:
                    return  # nothing left to take back: the table plays on with the misreading
                # The people at the table undo what no longer fits, as the app lets them.
                undone = game.undo()
                if isinstance(undone, Progress):
                    self.table.put_back(list(undone.tokens))

    # ---- a player's turn -------------------------------------------------------------------

    def _turn(self, state: GameState) -> None:
        rng = self.rng
        index = state.current_player
        assert index is not None
        player = state.players[index]
        if player.chests and rng.random() < 0.3:
            self.game.apply(CashChest(player=index))
            return
        for kind in (ProgressKind.GOLD_3, ProgressKind.GOLD_5):
            if player.unused(kind) and rng.random() < 0.2:
                self.game.apply(UseGoldToken(player=index, token=kind))
                return
        options = self._options(state, index, player)
        rng.shuffle(options)
        options.sort(key=lambda pair: -pair[0])
        for _, colour, special in options:
            event = self._action(state, index, player, colour, special)
            if event is None:
                continue
            try:
                self.game.apply(event)
                return
            except RuleError:
                if isinstance(event, Progress):
                    self.table.put_back(list(event.tokens))
                continue
        if player.unused(ProgressKind.VP_FOR_CUBES) and rng.random() < 0.5:
            self.game.apply(TakeVictoryPoints(player=index))
        elif rng.random() < 0.95:
            self.game.apply(TakeGold(player=index))
        else:
            self.game.apply(Pass(player=index))

    def _options(
        self, state: GameState, index: int, player: Player
    ) -> list[tuple[float, Colour, bool]]:
        """Candidate actions with a random preference weight."""
        rng = self.rng
        space = state.action_space
        out: list[tuple[float, Colour, bool]] = []
        swap = space[2] + space[4] > 0 and player.owns(ProgressKind.GREEN_RED) > 0  # red, green
        for position, colour in enumerate(COLOURS):
            if space[position] or (swap and position in (2, 4)):
                out.append((rng.random() + 0.1 * space[position], colour, False))
        if space[6] and player.track > 0:  # white cubes, disc off the start space
            under = special_space_colour(state, player)
            if on_last_space(state, player) or under is None:
                under = rng.choice(COLOURS[:-1])
            out.append((rng.random(), under, True))
        # Taking gold instead is weighed like an action: it is a fine move when AP are low.
        out = [item for item in out if rng.random() < 0.9]
        return out

    def _gold_for(self, player: Player, base: int, cost: int) -> int:
        """Gold to spend so that `cost` AP are covered, or -1 if the player cannot afford it."""
        need = max(0, cost - base)
        return need if need <= player.gold else -1

    def _action(
        self, state: GameState, index: int, player: Player, colour: Colour, special: bool
    ) -> Event | None:
        rng = self.rng
        base = state.phase_ap
        if not special or state.options.special_action_token_bonus:
            base += token_bonus(player, colour)
        extra = rng.choice((0, 0, 0, 1, 2)) if player.gold else 0
        if colour is Colour.BLUE:
            return self._ships(state, index, player, base, extra, special)
        if colour is Colour.BLACK:
            room = 12 - player.cannons
            steps = min(base + min(extra, player.gold), room)
            gold = max(0, steps - base)
            return LoadCannons(player=index, gold_spent=gold, special=special)
        if colour is Colour.RED:
            return self._plan(state, index, player, base, special)
        if colour is Colour.BROWN:
            return self._progress(state, index, player, base, extra, special)
        if colour is Colour.GREEN:
            return self._build(state, index, player, base, special)
        if colour is Colour.YELLOW:
            return self._buy(state, index, player, base, special)
        if player.unused(ProgressKind.ORDER_JUMP) and rng.random() < 0.5:
            return AdvanceOrder(player=index, use_order_token=True)
        track = self.box.special_track or ()
        room = len(track) - 1 - player.track
        steps = min(base + min(extra, player.gold), room)
        event = AdvanceOrder(player=index, gold_spent=max(0, steps - base), steps=steps)
        if self.told.special_track is None or self._read_sheet():
            # Read off the track: needed without the layout, checked against it otherwise.
            passed = track[player.track + 1 : player.track + steps + 1]
            event = event.model_copy(
                update={
                    "space_colour": track[player.track + steps].colour,
                    "highest_vp": max((space.vp for space in passed), default=0),
                    "at_end": player.track + steps == len(track) - 1,
                }
            )
        return event

    def _ships(
        self, state: GameState, index: int, player: Player, base: int, extra: int, special: bool
    ) -> Event | None:
        rng = self.rng
        use_token = bool(player.unused(ProgressKind.SHIPS_PLUS_8)) and rng.random() < 0.5
        ap = base + min(extra, player.gold) + (8 if use_token else 0)
        steps = (rng.randint(0, ap), rng.randint(0, ap))
        posts: list[PostPlacement] = []
        left = TRADING_POSTS_PER_PLAYER - player.posts_placed
        big_count = sum(1 for island in state.islands if island.big)
        open_islands = [i for i in state.islands if not i.completed]
        for ship in (0, 1):
            if steps[ship] == 0 or left == 0 or rng.random() < 0.3:
                continue
            if open_islands and rng.random() < 0.6:
                island = rng.choice(open_islands)
                number, big = island.number, None
                total = sum(island.posts)
            else:
                number = self.next_island
                self.next_island += 1
                big = big_count < 5 and rng.random() < 0.4
                big_count += int(big)
                total = 0
            completes = total >= 2 and rng.random() < 0.2
            if completes:
                open_islands = [i for i in open_islands if i.number != number]
            posts.append(PostPlacement(ship=ship, island=number, big=big, completes=completes))
            left -= 1
        cost = max(0, max(steps) - (8 if use_token else 0))
        gold = self._gold_for(player, base, cost)
        if gold < 0:
            return None
        return MoveShips(
            player=index,
            gold_spent=gold,
            special=special,
            steps=steps,
            posts=tuple(posts),
            use_ships_token=use_token,
        )

    def _plan(
        self, state: GameState, index: int, player: Player, base: int, special: bool
    ) -> Event | None:
        rng = self.rng
        budget = base + min(player.gold, rng.choice((0, 0, 1, 2)))
        neutrals: list[int] = []
        limit = 2 if player.owns(ProgressKind.DOUBLE_PLAN) else 1
        taken = state.neutrals_taken
        for _ in range(limit):
            sizes = [
                tile.size
                for tile in self.box.neutral_tiles or ()
                if tile.size <= budget - sum(neutrals)
                and taken[tile.size - 1] + neutrals.count(tile.size) < tile.count
            ]
            if sizes and rng.random() < 0.7:
                neutrals.append(rng.choice(sizes))
        room = VILLAGE_TILES_PER_PLAYER - player.villages_planned
        villages = [rng.randint(1, 4) for _ in range(min(room, max(0, budget - sum(neutrals))))]
        if rng.random() < 0.5 and villages:
            villages = villages[: rng.randint(0, len(villages))]
        cost = len(villages) + sum(neutrals)
        gold = self._gold_for(player, base, cost)
        if gold < 0 or cost == 0:
            return None
        return Plan(
            player=index,
            gold_spent=gold,
            special=special,
            villages=tuple(villages),
            neutrals=tuple(neutrals),
        )

    def _progress(
        self, state: GameState, index: int, player: Player, base: int, extra: int, special: bool
    ) -> Event | None:
        track = self.box.progress_track or ()
        room = len(track) - 1 - player.progress
        steps = min(base + min(extra, player.gold), room)
        gold = max(0, steps - base)
        due = sum(1 for vp in track[player.progress + 1 : player.progress + steps + 1] if vp > 0)
        due = min(due, state.progress_left + state.progress_right)
        if len(self.table.left) + len(self.table.right) < due:
            return None
        tokens = self.table.take(due)
        readings: dict[str, int | bool] = {}
        if self.told.progress_track is None or self._read_sheet():
            # Read off the sheet: needed without the layout, checked against it otherwise.
            passed = track[player.progress + 1 : player.progress + steps + 1]
            readings = {
                "vp_spaces": sum(1 for vp in passed if vp > 0),
                "highest_vp": max(passed, default=0),
                "at_end": player.progress + steps == len(track) - 1,
            }
        return Progress(
            player=index,
            gold_spent=gold,
            special=special,
            steps=steps,
            tokens=tuple(tokens),
            **readings,
        )

    def _build(
        self, state: GameState, index: int, player: Player, base: int, special: bool
    ) -> Event | None:
        rng = self.rng
        mine = [i for i in state.islands if i.posts[index] and not i.completed]
        if not mine or not player.supply:
            return None
        supply = list(player.supply)
        rng.shuffle(supply)
        budget = base + min(player.gold, rng.choice((0, 0, 1, 2)))
        tiles: list[BuiltTile] = []
        cost = 0
        left = Counter(dict(zip(GOODS, state.commodities_left, strict=True)))
        completed: set[int] = set()
        for kind, size in supply:
            tile_cost = 1 if kind == TileKind.VILLAGE.value else size
            targets = [i for i in mine if i.number not in completed]
            if cost + tile_cost > budget or not targets:
                continue
            island = rng.choice(targets)
            goods: list[str] = []
            if rng.random() < 0.4:
                good = rng.choice(GOODS)
                if left[good] > 0:
                    left[good] -= 1
                    goods.append(good)
            completes = rng.random() < 0.12
            if completes:
                completed.add(island.number)
            value = None
            if (
                self.told.village_tiles is None
                or self.told.neutral_tiles is None
                or rng.random() < 0.3
            ):
                printed = self.box.tile_value(kind == TileKind.VILLAGE.value, size)
                if printed is not None:
                    value = printed.big_vp if island.big else printed.small_vp
            tiles.append(
                BuiltTile(
                    island=island.number,
                    tile=TileKind(kind),
                    size=size,
                    vp=value,
                    commodities=tuple(goods),
                    completes=completes,
                )
            )
            cost += tile_cost
        gold = self._gold_for(player, base, cost)
        if not tiles or gold < 0:
            return None
        return Build(player=index, gold_spent=gold, special=special, tiles=tuple(tiles))

    def _buy(
        self, state: GameState, index: int, player: Player, base: int, special: bool
    ) -> Event | None:
        rng = self.rng
        budget = base + min(player.gold, rng.choice((0, 0, 1)))
        sold = list(state.production_sold)
        bought: list[ProductionBought] = []
        cost = 0
        for _ in range(state.production_display):
            good = rng.choice(GOODS)
            price = rng.choice(PRODUCTION_COSTS)
            slot = GOODS.index(good) * 3 + PRODUCTION_COSTS.index(price)
            if cost + price > budget or sold[slot] >= PRODUCTION_PER_GOOD_AND_COST[price]:
                continue
            sold[slot] += 1
            bought.append(ProductionBought(good=good, cost=price))
            cost += price
        gold = self._gold_for(player, base, cost)
        if not bought or gold < 0:
            return None
        return BuyProduction(player=index, gold_spent=gold, special=special, tokens=tuple(bought))


def simulate_game(
    players: int,
    seed: int = 0,
    box: BoxData = TEST_BOX,
    options: RuleOptions | None = None,
    table_box: BoxData | None = None,
) -> Game:
    """A whole random legal game for 2-4 players; the same arguments give the same game.

    With a `box` that lacks figures (REAL_BOX), the players read them off `table_box` (by
    default TEST_BOX, a hidden layout) and the events carry them.
    """
    if not 2 <= players <= 4:
        raise ValueError(f"Amerigo is for 2 to 4 players, not {players}")
    return Simulator(players, seed, box, options, table_box=table_box).run()


__all__ = ["COMMODITIES_PER_GOOD", "Simulator", "simulate_game"]
