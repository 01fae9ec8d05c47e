"""The keybench tab in Locust's web UI: a swarm started through the UI's HTTP API, with no
Host invented, and the tab, seen in headless Chromium, holding live figures."""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from keybench.drive.webui import HEATMAP_BINS, HEATMAP_BUCKETS, SHADES, TAB_KEY
from keybench.infra import emulators
from tests.browser import chromium, console_messages
from tests.conftest import REPO

RUN_S = 8.0
# Where the last screenshot of the tab is kept for a person to look at, besides the test's own folder.
SCREENSHOT_COPY = os.environ.get("KEYBENCH_SCREENSHOT")


def get(url: str, data: dict | None = None) -> str:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    with urllib.request.urlopen(url, data=body, timeout=10) as answer:
        return answer.read().decode()


@pytest.fixture
def locust_web_ui(emulator_hosts, tmp_path):
    """`locust -f loadtests/bigtable_locustfile.py --strategy timestamp_first` with its web UI
    on a free port; stopped (SIGTERM, so it audits) at the end."""
    port = emulators.free_port()
    log = open(tmp_path / "locust.log", "w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "locust", "-f", "loadtests/bigtable_locustfile.py", "--strategy", "timestamp_first",
         "--web-host", "127.0.0.1", "--web-port", str(port)],
        cwd=REPO, stdout=log, stderr=subprocess.STDOUT, text=True, env=dict(os.environ),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while emulators.connect_error(f"127.0.0.1:{port}") is not None:
            assert process.poll() is None and time.monotonic() < deadline, log.read()
            time.sleep(0.2)
        yield url, process, log
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(120)
        log.close()


def test_the_keybench_tab_shows_live_latency_integrity_model_and_heatmap(locust_web_ui, emulator_hosts, tmp_path):
    url, process, log = locust_web_ui
    page = get(url + "/")
    args = json.loads(re.search(r"window\.templateArgs = (\{.*?\})\s*</script>", page, re.S).group(1))
    assert args["extended_tabs"] == [{"title": "keybench", "key": TAB_KEY}]
    assert args["host"] == f"grpc://{emulator_hosts['bigtable']}"  # the target the locustfile uses, nothing to invent

    started = json.loads(get(url + "/swarm", {"user_count": 4, "spawn_rate": 4}))  # no "host" in the form
    assert started["success"], started
    time.sleep(RUN_S)
    # The model runs in a process of its own: its answer is in after a poll or two, as the page polls.
    deadline = time.monotonic() + 60
    while True:
        rows = next(s["data"] for s in json.loads(get(url + "/stats/requests"))["extended_stats"]
                    if s["key"] == TAB_KEY)
        if rows[0]["figure"] != "modelling" or time.monotonic() > deadline:
            break
        time.sleep(1)
    sections = {}
    for row in rows:
        sections.setdefault(row["section"], []).append(row)
    latency = {r["series"]: r for r in sections["latency"]}
    insert = latency["bigtable:timestamp_first insert"]
    p50, p99 = (float(v.replace(",", "")) for v in re.fullmatch(r"p50 ([\d,.]+) ms · p99 ([\d,.]+) ms",
                                                                insert["figure"]).groups())
    assert 0 < p50 <= p99
    assert insert["detail"].startswith("1.00 rows per op")
    integrity = {r["series"]: int(r["figure"].replace(",", "")) for r in sections["integrity"]}
    assert integrity["acknowledged"] > 50 and integrity["failed"] == 0
    model = {r["series"]: r["figure"] for r in sections["model"]}
    # Timestamp-first keys all land at the end of the key space: one node takes every write.
    assert model["VERDICT"] == "HOTSPOT" and float(model["hot_node_share"]) > 0.9
    assert rows[0]["series"] == "VERDICT" and re.search(r"keys as of \d+ s ago", rows[0]["detail"])  # the answer first
    heatmap = [r["figure"] for r in sections["write heatmap"]]
    assert len(heatmap) == HEATMAP_BUCKETS and all(len(line) == HEATMAP_BINS for line in heatmap)
    assert set("".join(heatmap)) <= set(SHADES) and set("".join(heatmap)) != {SHADES[0]}
    # Monotonic keys: the lowest keys were written first, the highest last (rows run from the highest down).
    first_busy = [min(i for i, c in enumerate(line) if c != SHADES[0]) for line in heatmap if set(line) != {SHADES[0]}]
    assert first_busy[0] > first_busy[-1]

    tab = f"{url}/?tab={TAB_KEY}"
    dom = chromium(tab, "--virtual-time-budget=5000", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert [m for m in console_messages(dom) if "Uncaught" in m] == []
    for figure in ("bigtable:timestamp_first insert", "acknowledged", "hot_node_share", "HOTSPOT", "keys 1/8"):
        assert figure in dom.stdout
    assert re.search(r"p50 [\d,.]+ ms · p99 [\d,.]+ ms", dom.stdout)
    assert dom.stdout.index("HOTSPOT") < dom.stdout.index("bigtable:timestamp_first insert")
    shot = tmp_path / "keybench-tab.png"
    done = chromium(tab, "--window-size=1400,1300", "--virtual-time-budget=5000", f"--screenshot={shot}")
    assert done.returncode == 0 and shot.stat().st_size > 20_000, done.stderr[-2000:]
    if SCREENSHOT_COPY:
        shot.replace(SCREENSHOT_COPY)

    process.send_signal(signal.SIGTERM)
    assert process.wait(120) == 0
    log.seek(0)
    assert "integrity: ok" in log.read()

