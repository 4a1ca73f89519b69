"""What a benchmark's figure is, decided once for a group of GPUs: the facts its GPUs agree on.

A figure's facts are its Metric (the counter, its unit and scale, which way is better) and
whether the host paces it (Benchmark.host_paced; a file that does not say reads as not). Each
GPU's result says them for itself, so one GPU's file could make its group judge a figure by its
word: flip which way is better, or claim a host-paced figure and the host's wider margin. A group
judges a benchmark by the facts most of its GPUs give; a GPU giving others is no part of that
judgement and is named (Disagreement). Where no facts are given by more GPUs than any other, no
GPU's word decides: every GPU of the benchmark is named and it is not judged.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gpubench_tools.reading.facts import Metric
from gpubench_tools.reading.fleet.records import Gpu
from gpubench_tools.reading.results import Benchmark


@dataclass(frozen=True)
class FigureFacts:
    metric: Metric
    host_paced: bool


@dataclass(frozen=True)
class Disagreement:
    gpu: Gpu
    benchmark: str
    its: FigureFacts
    group: FigureFacts | None  # what most GPUs of the group say; None where no facts do
    agreeing: int  # GPUs of the group giving `group`'s facts (0 where None)


def figure_facts(bench: Benchmark) -> FigureFacts:
    return FigureFacts(bench.metric, bool(bench.host_paced))


def agreed_facts(gpus: Sequence[Gpu], name: str, said: dict[int, FigureFacts] | None = None
                 ) -> tuple[FigureFacts | None, list[Disagreement]]:
    """The facts most of `gpus` holding benchmark `name` give, and a Disagreement for each GPU
    giving others (every GPU of it where no facts are given by more GPUs than any other);
    `said`: the facts each GPU (by its row in `gpus`) gives, where they were read already."""
    if said is None:
        said = {row: figure_facts(gpu.benchmarks[name]) for row, gpu in enumerate(gpus)
                if name in gpu.benchmarks}
    ranked = Counter(said.values()).most_common(2)
    if not ranked:
        return None, []
    agreed = ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None
    agreeing = ranked[0][1] if agreed is not None else 0
    return agreed, [Disagreement(gpus[row], name, facts, agreed, agreeing)
                    for row, facts in said.items() if facts != agreed]
