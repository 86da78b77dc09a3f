"""Rules-engine speed: replaying a whole 4-player game from its JSON text, and simulating games.

Prints the median replay time (goal: under 5 ms; wall clock, and this process's CPU time, which
other processes on a busy machine do not inflate), events applied per second, and whole random
games simulated per second (goal: at least 100), pinned to one CPU core.
Run: .venv/bin/python benchmarks/engine.py
"""

from __future__ import annotations

import os
import statistics
import time

from companion.core.log import parse_log, replay
from companion.core.simulate import simulate_game

REPLAY_REPEATS = 300
SIMULATED_GAMES = 200


def _one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        return "pinned to one core"
    return "not pinned (no sched_setaffinity here)"


def main() -> None:
    """Measure and print the three figures."""
    pinned = _one_core()
    game = simulate_game(4, seed=1)
    text = game.to_json()
    log = parse_log(text)
    events = len(log.events)

    replay(parse_log(text))  # warm up
    times, cpu_times = [], []
    for _ in range(REPLAY_REPEATS):
        start, cpu = time.perf_counter(), time.process_time()
        replay(parse_log(text))
        cpu_times.append(time.process_time() - cpu)
        times.append(time.perf_counter() - start)
    replay_ms = statistics.median(times) * 1000
    replay_cpu_ms = statistics.median(cpu_times) * 1000

    fold_times = []
    for _ in range(REPLAY_REPEATS):
        start = time.perf_counter()
        replay(log)  # the fold alone: the log is parsed already (corrections re-fold)
        fold_times.append(time.perf_counter() - start)
    events_per_s = events / statistics.median(fold_times)

    start = time.perf_counter()
    for seed in range(SIMULATED_GAMES):
        simulate_game(2 + seed % 3, seed)
    games_per_s = SIMULATED_GAMES / (time.perf_counter() - start)

    print(
        f"engine benchmark ({pinned}); game: 4 players, {events} events, {len(text)} bytes of JSON"
    )
    print(f"replay from JSON text, median of {REPLAY_REPEATS}: {replay_ms:.2f} ms (goal < 5 ms)")
    # On a shared machine the wall time counts other processes' turns on the core too.
    print(f"  the same, CPU time of this process only:   {replay_cpu_ms:.2f} ms")
    print(f"events applied per second (fold only):       {events_per_s:,.0f}")
    print(
        f"whole random games simulated per second:     {games_per_s:.0f} (goal >= 100; 2-4 players)"
    )


if __name__ == "__main__":
    main()
