"""One row of the benchmark's tables: what was measured, and each stack's figures, round by
round."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class Row:
    table: str  # "server", "client", "pair", "floor", "memory" or "workers"
    cable: str  # "stdio", "ws", "http json", "http sse"; for a floor, its name; for workers, how
    in_flight: int
    # stack -> one result per round
    runs: dict[str, list[dict[str, float]]] = field(default_factory=dict)

    def median(self, stack: str, key: str = "rps") -> float | None:
        values = [run[key] for run in self.runs.get(stack, []) if key in run]
        return statistics.median(values) if values else None
