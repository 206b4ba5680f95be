"""Prometheus metrics of one service process: decisions by outcome and rule, decision latency,
pending approvals (read from the database at each scrape), and whether this process leads the
audit chain (PostgreSQL: it links the records every replica hands in)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector


class _Pending(Collector):
    def __init__(self, count: Callable[[], int]) -> None:
        self._count = count

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("clawgate_pending_approvals",
                                "Approval requests waiting for a person", value=self._count())


class _Leading(Collector):
    def __init__(self, leading: Callable[[], bool]) -> None:
        self._leading = leading

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("clawgate_audit_leader",
                                "1 while this process links the audit intake into the chain",
                                value=1.0 if self._leading() else 0.0)


class Metrics:
    def __init__(self, pending: Callable[[], int],
                 leading: Callable[[], bool] = lambda: False) -> None:
        self.registry = CollectorRegistry()
        self.decisions = Counter("clawgate_decisions", "Decisions by outcome and rule",
                                 ["outcome", "rule"], registry=self.registry)
        self.latency = Histogram("clawgate_decision_seconds",
                                 "Time from request to audited answer",
                                 buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                          0.5, 1.0, 2.5), registry=self.registry)
        self.registry.register(_Pending(pending))
        self.registry.register(_Leading(leading))

    def text(self) -> bytes:
        return generate_latest(self.registry)
