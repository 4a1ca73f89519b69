"""How far a median of NEW's runs can lie among BASE's own runs, were both one build's.

The candidate's figure is the median of its runs, and each process of one build lands on a level
of its own: a change within where such a median lies among BASE's runs is no measurement of the
candidate. By default that is BASE's farthest run; with compare's --reach-chance=P, the BASE
run nearest BASE's median that a median of NEW's run count passes with a chance of P or less,
counted over every order the runs of one build can fall in (hypergeometric).
"""

import functools
import math

import numpy as np


def passing_chance(base_runs: int, new_runs: int, rank: int) -> float:
    """The chance that the median of `new_runs` runs lies beyond BASE's `rank`-th farthest run
    on one side (1: its highest), where all are runs of one build, in any order alike: at
    least ceil(new_runs / 2) of NEW's runs among the rank + ceil(new_runs / 2) - 1 farthest of
    both sides' runs together (hypergeometric; for an even count, a bound from above)."""
    beyond = (new_runs + 1) // 2
    drawn = rank + beyond - 1
    total = base_runs + new_runs
    hits = sum(math.comb(new_runs, x) * math.comb(base_runs, drawn - x)
               for x in range(beyond, min(new_runs, drawn) + 1))
    return hits / math.comb(total, drawn)


@functools.cache
def reach_rank(base_runs: int, new_runs: int, chance: float) -> int:
    """The rank of the BASE run (1: the farthest) that a median of `new_runs` runs must pass on
    one side: the least far one such a median of BASE's own build passes with `chance` or less.
    With a chance of 0, or for one run against 15 or 5 against 5 at 0.1, BASE's farthest (the
    chances are 6.3% and 8.3%); for 5 runs against 15 at 0.1, its third farthest (7.3%)."""
    rank = 1
    while rank < base_runs and passing_chance(base_runs, new_runs, rank + 1) <= chance:
        rank += 1
    return rank


def reach_pct(figure: float, repetitions: np.ndarray, new_runs: int, chance: float) -> float:
    """How far a median of `new_runs` runs of BASE's build can lie from BASE's figure, judged
    by BASE's own repetitions, in % of the symmetric ratio (as comparison.change_pct): to the
    farther of BASE's reach_rank-th highest and lowest repetitions. 0 without two positive
    repetitions or a positive figure."""
    values = np.sort(repetitions[repetitions > 0])
    if values.size < 2 or not figure > 0:
        return 0.0
    rank = reach_rank(int(values.size), max(1, new_runs), chance)
    low, high = float(values[rank - 1]), float(values[-rank])
    return (max(figure / low, high / figure, 1.0) - 1.0) * 100
