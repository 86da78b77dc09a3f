"""The game's clock: phases, skipped phases, round end (pirates, next round), final scoring."""

from __future__ import annotations

from operator import add

from companion.core.components import (
    CHEST_GOLD,
    DEFENCE_BOUNTY_GOLD,
    GOLD_TOKEN_VALUE,
    PIRATES_PLUS,
    PROGRESS_HALF,
    ROUNDS,
    ProgressKind,
    production_display_size,
)
from companion.core.cubes import COLOURS
from companion.core.draft import Draft
from companion.core.state import Category, Player, Stage
from companion.core.tracks import highest_vp_reached

EMPTY7 = (0, 0, 0, 0, 0, 0, 0)


def order_of(players: tuple[Player, ...] | list[Player]) -> tuple[int, ...]:
    """Player order: farthest on the special track first, higher in a stack first (3.2)."""
    keys = [(-p.track, -p.stamp) for p in players]
    return tuple(sorted(range(len(players)), key=keys.__getitem__))


def begin_phase(d: Draft) -> None:
    """Start the current phase: wait for its drop, or skip it when nothing can be dropped."""
    phase = d.get("phase")
    storage = d.get("storage")
    stray = d.get("stray")
    strays_drop = sum(stray) > 0 and d.base.options.drop_strays_with_empty_storage
    if storage[phase] == 0 and not strays_drop:
        skip_phase(d)
        return
    d.set(stage=Stage.DROP)


def skip_phase(d: Draft) -> None:
    """Record the current phase as skipped (nobody acts, no gold) and move on."""
    d.set(skipped=(*d.get("skipped"), (d.get("round"), COLOURS[d.get("phase")].value)))
    end_phase(d)


def end_phase(d: Draft) -> None:
    """Return the action space's cubes to their own colours' storage; go to the next phase."""
    storage = d.get("storage")
    space = d.get("action_space")
    d.set(
        storage=tuple(map(add, storage, space)),
        action_space=EMPTY7,
        turn_order=(),
        turn_index=0,
        reading_corrected_after_action=False,
    )
    phase = d.get("phase") + 1
    if phase < len(COLOURS):
        d.set(phase=phase)
        begin_phase(d)
        return
    d.set(phase=0)
    end_round(d)


def end_round(d: Draft) -> None:
    """Pirates attack (7.1); then prepare the next round (7.2), or score the game (8)."""
    pirates_attack(d)
    round_number = d.get("round")
    if round_number >= ROUNDS:
        final_scoring(d)
        d.set(stage=Stage.FINISHED, turn_order=(), turn_index=0)
        return
    # Progress display: the right half is discarded, the left slides right, 4 new on the left.
    bag = d.get("progress_bag")
    dealt = min(PROGRESS_HALF, bag)
    d.set(
        progress_right=d.get("progress_left"),
        progress_left=dealt,
        progress_bag=bag - dealt,
        production_display=production_display_size(len(d.players)),
        round=round_number + 1,
        stage=Stage.REVEAL_PIRATE,
    )


def pirate_strength_against(
    players: list[Player] | tuple[Player, ...],
    index: int,
    pirates: int,
    additive: bool,
    plus_tokens: list[int] | None = None,
) -> int:
    """The pirates' strength against one player: +2 per "+2 pirates" token of another player.

    `plus_tokens`: each player's count of those tokens, when the caller has it already.
    """
    if plus_tokens is None:
        plus_tokens = [p.owns(ProgressKind.PIRATES_PLUS_2) for p in players]
    others = sum(plus_tokens) - plus_tokens[index]
    if not additive:
        others = min(others, 1)
    return pirates + PIRATES_PLUS * others


def pirates_attack(d: Draft) -> None:
    """Every player fires cannons equal to the pirates' strength, or loses VP (7.1)."""
    strength = sum(d.get("pirates"))
    additive = d.base.options.pirate_tokens_additive
    before = tuple(d.players)  # tokens do not change during the attack
    plus = [p.owns(ProgressKind.PIRATES_PLUS_2) for p in before]
    for index, player in enumerate(before):
        faced = pirate_strength_against(before, index, strength, additive, plus)
        if player.cannons >= faced:
            d.update(index, cannons=player.cannons - faced)
            bounty = player.owns(ProgressKind.DEFENCE_BOUNTY)
            if bounty:
                d.gain_gold(index, DEFENCE_BOUNTY_GOLD * bounty)
            continue
        d.update(index, cannons=0)
        loss = -(-faced // 2) if player.owns(ProgressKind.HALF_LOSS) else faced
        current = d.players[index].vp
        d.add_vp(index, Category.PIRATES, -min(loss, current))


def final_scoring(d: Draft) -> None:
    """Final scoring in the rulebook's order: gold, goods, progress, special actions (8)."""
    box = d.base.box
    special = None if box.special_track is None else tuple(s.vp for s in box.special_track)
    for index in range(len(d.players)):
        player = d.players[index]
        # 1. Gold: chests and unused once-only gold tokens become gold, the excess VP.
        extra = CHEST_GOLD * player.chests + sum(
            GOLD_TOKEN_VALUE[t.kind]
            for t in player.tokens
            if t.kind in GOLD_TOKEN_VALUE and not t.used
        )
        tokens = tuple(
            type(t)(t.kind, t.actions, True) if t.kind in GOLD_TOKEN_VALUE else t
            for t in player.tokens
        )
        d.update(index, chests=0, tokens=tokens)
        d.gain_gold(index, extra, Category.FINAL_GOLD_OVERFLOW)
        player = d.players[index]
        d.add_vp(index, Category.FINAL_GOLD, player.gold)
        # 2. Goods: commodities x (production tokens bought + the one printed on the sheet).
        goods = sum(c * (1 + p) for c, p in zip(player.commodities, player.production, strict=True))
        d.add_vp(index, Category.FINAL_GOODS, goods)
        # 3. Progress: the "E" tokens, then the highest VP reached on the progress track.
        end_tokens = 0
        for token in player.tokens:
            if token.kind is ProgressKind.END_7:
                end_tokens += 7
            elif token.kind is ProgressKind.END_POSTS:
                end_tokens += player.posts_placed
            elif token.kind is ProgressKind.END_GOLD:
                end_tokens += player.gold
        d.add_vp(index, Category.FINAL_PROGRESS_TOKENS, end_tokens)
        d.add_vp(
            index,
            Category.FINAL_PROGRESS_TRACK,
            highest_vp_reached(box.progress_track, player.progress, player.progress_vp),
        )
        # 4. Special actions: the highest VP reached on the special action track.
        d.add_vp(
            index,
            Category.FINAL_SPECIAL_TRACK,
            highest_vp_reached(special, player.track, player.special_vp),
        )
