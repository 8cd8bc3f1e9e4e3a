"""A floor-command flood cannot fill the disk: a rate limit per sender, and a summary of the rest.

Every command gets an ack and every refusal a ``refused`` record in the decision log, up to each
sender's rate; past it a command is refused as ``rate_limited`` (acked at once) and only counted,
and the count goes in the log as one ``refused`` record per sender per ``window`` seconds. Pure:
the caller passes the device's monotonic time.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec


@dataclass
class _Bucket:
    tokens: float
    at: float
    over: int = 0  # commands over the rate not yet in a summary
    since: float = 0.0  # when the first of them came


@dataclass(frozen=True)
class Summary:
    """``count`` commands from ``sender`` over the rate between ``since`` and ``until`` (device seconds)."""

    sender: str
    count: int
    since: float
    until: float


class RefusedRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The decision log's ``refused`` record: a floor command the device did not take (its ``id``, ``sender`` and
    ``command`` as given, the ``reason`` word and the ``detail``), or a summary of ``count`` commands over a sender's
    rate."""

    id: str
    sender: str
    command: str
    reason: str
    count: int | None = None
    detail: str

    @classmethod
    def of(cls, summary: Summary) -> "RefusedRecord":
        """The record summing up ``summary``."""
        return cls(id="", sender=summary.sender, command="", reason="rate_limited", count=summary.count,
                   detail=f"{summary.count} commands over the rate in {summary.until - summary.since:.1f} s, "
                          "refused and acked, not logged one by one")


class FloodGuard:
    """Token buckets per sender (and one for all senders together).

    :param rate: commands a second a sender may send on average.
    :param burst: commands a sender may send at once.
    :param total_rate: commands a second from all senders together.
    :param total_burst: … at once.
    :param window: seconds between a sender's first command over the rate and its summary.
    :param senders: senders remembered (the least recent are forgotten past it).

    Example::

        >>> guard = FloodGuard(rate=1, burst=2)
        >>> [guard.allow("anna", 0.0) for _ in range(4)]
        [True, True, False, False]
        >>> guard.due(), guard.summaries(10.0)
        (10.0, [Summary(sender='anna', count=2, since=0.0, until=10.0)])
    """

    ALL = "\0all"  # the bucket every command also takes from

    def __init__(self, rate: float = 5.0, burst: int = 20, total_rate: float = 20.0, total_burst: int = 60,
                 window: float = 10.0, senders: int = 256):
        self.rate, self.burst = rate, burst
        self.total_rate, self.total_burst = total_rate, total_burst
        self.window = window
        self.senders = senders
        self._buckets: dict[str, _Bucket] = {}

    def allow(self, sender: str, now: float) -> bool:
        """True when a command from ``sender`` (``""``: it named none) is within the rate; else it is counted."""
        mine = self._bucket(sender, now, self.rate, self.burst)
        total = self._bucket(self.ALL, now, self.total_rate, self.total_burst)
        if mine.tokens >= 1 and total.tokens >= 1:
            mine.tokens -= 1
            total.tokens -= 1
            return True
        if not mine.over:
            mine.since = now
        mine.over += 1
        return False

    def due(self) -> float | None:
        """When the next summary is due (None: nothing counted)."""
        times = [b.since + self.window for b in self._buckets.values() if b.over]
        return min(times) if times else None

    def summaries(self, now: float, final: bool = False) -> list[Summary]:
        """The summaries due at ``now`` (``final``: all of them, the device is stopping); each is taken once."""
        out = []
        for sender, bucket in self._buckets.items():
            if bucket.over and (final or now >= bucket.since + self.window):
                out.append(Summary(sender, bucket.over, bucket.since, now))
                bucket.over = 0
        return out

    def _bucket(self, key: str, now: float, rate: float, burst: int) -> _Bucket:
        bucket = self._buckets.pop(key, None)  # re-inserted: the dict's order is the least recent first
        if bucket is None:
            bucket = _Bucket(float(burst), now)
            if len(self._buckets) >= self.senders:
                self._forget()
        bucket.tokens = min(float(burst), bucket.tokens + max(0.0, now - bucket.at) * rate)
        bucket.at = now
        self._buckets[key] = bucket
        return bucket

    def _forget(self) -> None:
        """Forget the least recent sender with nothing to summarise (or, if every one has, merge the oldest)."""
        for key, bucket in self._buckets.items():
            if key != self.ALL and not bucket.over:
                del self._buckets[key]
                return
        key = next(k for k in self._buckets if k != self.ALL)
        old = self._buckets.pop(key)
        other = self._buckets.setdefault("", _Bucket(float(self.burst), old.at))
        other.since = min(other.since, old.since) if other.over else old.since
        other.over += old.over
