"""A third-party ORM through the recording proxy: SQLAlchemy with Google's sqlalchemy-spanner
dialect, writing through its own code paths (Spanner's DB-API: DML in read-write
transactions), judged as `keybench run` judges a design."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from keybench.record.verdicts import Recording
from tests.record.conftest import proxied_database


@pytest.fixture
def engine(spanner_emulator, monkeypatch):
    import sqlalchemy

    from keybench.infra.target import INSTANCE, PROJECT

    with proxied_database(spanner_emulator.host, monkeypatch, [], "orm") as (db, recorder):
        engine = sqlalchemy.create_engine(f"spanner+spanner:///projects/{PROJECT}/instances/{INSTANCE}/databases/"
                                          f"{db.database_id}")
        yield engine, Recording(recorder)
        engine.dispose()


def test_an_orms_writes_are_recorded_and_judged(engine):
    from sqlalchemy import Column, DateTime, Integer, String
    from sqlalchemy.orm import Session, declarative_base

    engine, recording = engine
    Base = declarative_base()

    class Reading(Base):  # keyed by the time it was taken: a monotonic key
        __tablename__ = "Readings"
        TakenAt = Column(DateTime(timezone=True), primary_key=True)
        Device = Column(String(16), primary_key=True)
        Value = Column(Integer)

    class Order(Base):  # keyed by a version-4 UUID the application makes
        __tablename__ = "Orders"
        OrderId = Column(String(36), primary_key=True)
        Amount = Column(Integer)

    Base.metadata.create_all(engine)
    start = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    for batch in range(10):
        with Session(engine) as session:
            session.add_all([Reading(TakenAt=start + dt.timedelta(milliseconds=batch * 100 + n),
                                     Device=f"d{n % 7}", Value=n) for n in range(100)])
            session.add_all([Order(OrderId=str(uuid.uuid4()), Amount=n) for n in range(100)])
            session.commit()
    readings, orders = recording.table("Readings"), recording.table("Orders")
    assert (readings.writes, orders.writes) == (1000, 1000)
    assert readings.verdict == "hotspot"
    assert orders.verdict == "spread"
    assert not recording.recorder.unattributed
