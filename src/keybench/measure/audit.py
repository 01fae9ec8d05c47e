"""The integrity audit's figures: what a stage acknowledged against what the database holds.

The stage reads every stored WriteId back after its load; `audit` compares them with the
collector's ledger. A multi-tenant design also drops one tenant by its key prefix, and
`TenantDrop` records what that removed.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from keybench.measure.collector import Ledger
from keybench.measure.writeids import WriteIdSet


@dataclass(frozen=True)
class TenantDrop:
    tenant: str
    seconds: float
    tenant_rows: int  # rows the stage wrote for the tenant
    removed: int  # rows the prefix delete removed
    left_behind: int  # tenant rows still readable afterwards
    others_removed: int  # rows of other tenants that disappeared

    @property
    def ok(self) -> bool:
        return self.left_behind == 0 and self.others_removed == 0 and self.removed == self.tenant_rows


@dataclass(frozen=True)
class Integrity:
    acknowledged: int
    stored: int
    lost: int  # acknowledged, not stored
    duplicates: int  # stored more than once
    unexpected: int  # stored, never written by this stage
    unknown: int  # the call failed or was cut off: stored or not, now resolved by the read-back
    unknown_stored: int
    verified: bool = True  # False: nothing could be read back (the database went away), or not all of it
    cause: str = ""  # why not verified
    # stored rows left out of an audit of the rest: a lost worker's, whose ledger died with it
    set_aside: int | None = None

    @classmethod
    def unverifiable(cls, ledger: Ledger, cause: str) -> Integrity:
        unknown = len(ledger.failed) + sum(1 for w in ledger.attempted if w not in ledger.failed)
        return cls(len(ledger.acknowledged), 0, 0, 0, 0, unknown, 0, verified=False, cause=cause)

    @property
    def consistent(self) -> bool:
        """What was audited matches: nothing lost, duplicated or unexpected."""
        return self.lost == 0 and self.duplicates == 0 and self.unexpected == 0

    @property
    def ok(self) -> bool:
        return self.verified and self.consistent

    def describe(self) -> str:
        if not self.verified and self.set_aside is None:
            return (f"UNVERIFIED ({self.acknowledged} acknowledged writes could not be read back: {self.cause})")
        if not self.verified:
            return (f"UNVERIFIED for part ({self.cause}; {self.set_aside} stored rows of it set aside); "
                    f"the rest {self._figures(self.consistent)}")
        return self._figures(self.ok)

    def _figures(self, ok: bool) -> str:
        text = (f"{'ok' if ok else 'MISMATCH'} ({self.acknowledged} acknowledged, {self.stored} stored, "
                f"{self.lost} lost, {self.duplicates} duplicated, {self.unexpected} unexpected")
        if self.unknown:
            text += f"; {self.unknown} with unknown outcome, {self.unknown_stored} of them stored"
        return text + ")"


def audit(stored: list[str], ledger: Ledger, set_aside: Callable[[str], bool] | None = None,
          cause: str = "") -> Integrity:
    """Every stored WriteId (duplicates included) against the ledger. WriteIds `set_aside`
    picks (a lost worker's) are left out of both sides, and the audit is unverified for them
    with `cause`; the rest is audited in full."""
    if set_aside is not None:
        kept = [w for w in stored if not set_aside(w)]
        ledger = Ledger({w for w in ledger.attempted if not set_aside(w)},
                        WriteIdSet(w for w in ledger.acknowledged if not set_aside(w)),
                        {w for w in ledger.failed if not set_aside(w)})
        return dataclasses.replace(audit(kept, ledger), verified=False, cause=cause, set_aside=len(stored) - len(kept))
    counts = collections.Counter(stored)
    # The ledger's sets are walked, never joined: a join would hold every id as a string.
    attempted_only = [w for w in ledger.attempted if w not in ledger.failed]  # in flight: few
    return Integrity(
        acknowledged=len(ledger.acknowledged),
        stored=len(stored),
        lost=sum(1 for w in ledger.acknowledged if w not in counts),
        duplicates=sum(c - 1 for c in counts.values() if c > 1),
        unexpected=sum(1 for w in counts
                       if w not in ledger.acknowledged and w not in ledger.failed and w not in ledger.attempted),
        unknown=len(ledger.failed) + len(attempted_only),
        unknown_stored=sum(1 for w in ledger.failed if w in counts) + sum(1 for w in attempted_only if w in counts),
    )
