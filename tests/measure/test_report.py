"""`keybench report`: the page a person opens, checked in a real headless Chromium."""

import shutil
import subprocess

import pytest

from loadtests.measure.summary import read_summary
from loadtests.run import RunOptions, run
from tests.conftest import keybench

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _browser() -> str:
    found = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if found is None:
        pytest.fail("no headless Chromium: install Debian's `chromium` package (.ci/run does)")
    return found


def _chromium(page, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr",
         "--v=0", *args, page.as_uri()], capture_output=True, text=True, timeout=120)


def console_messages(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if ":CONSOLE" in line]


def test_console_messages_are_seen_when_a_page_logs_an_error(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<html><body><script>console.error("plot failed")</script></body></html>')
    assert any("plot failed" in m for m in console_messages(_chromium(page, "--dump-dom")))


@pytest.fixture(scope="module")
def small_run(emulator_hosts, tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    options = RunOptions(strategies=("timestamp_first", "hash_shard", "salted"), dialects=("googlesql",), users=4,
                         duration_s=2.0, results_dir=root, run_id="r")
    assert run(options) == 0
    return root / "r"


def test_the_run_writes_a_report_that_loads_with_one_plot_per_operation(small_run, tmp_path):
    page = small_run / "report.html"
    assert page.is_file()
    operations = {(r["backend"], r["operation"]) for r in read_summary(small_run / "summary.csv")}
    dom = _chromium(page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_messages(dom) == []
    assert dom.stdout.count('class="latency"') == len(operations) == 10  # spanner 4 + bigtable 6
    assert dom.stdout.count('class="throughput"') == 2
    shot = tmp_path / "report.png"
    _chromium(page, "--window-size=1200,2400", f"--screenshot={shot}")
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    colours = {tuple(p) for p in pixels.reshape(-1, pixels.shape[-1])[::97].round(2).tolist()}
    assert len(colours) > 50, "the screenshot is blank or nearly so"


def test_the_report_shows_each_strategys_expectation_provenance_and_advice(small_run):
    page = (small_run / "report.html").read_text()
    designs = page.split('<table class="designs">')[1].split("</table>")[0]
    assert designs.count("<tr>") == 1 + 4  # the header; spanner timestamp_first, hash_shard; bigtable timestamp_first, salted
    assert "not in the documents" in designs  # salted is keybench's own addition
    assert "Bigtable: Schema design best practices" in designs and "以时间戳开头的行键" in designs


def test_report_command_rebuilds_the_page_and_refuses_a_directory_that_is_no_run(small_run, tmp_path):
    (small_run / "report.html").unlink()
    done = keybench("report", str(small_run))
    assert done.returncode == 0 and (small_run / "report.html").is_file(), done.stderr
    bad = keybench("report", str(tmp_path))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no summary.csv" in bad.stderr
