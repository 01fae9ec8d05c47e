"""`keybench report`: the page a person opens, checked in a real headless Chromium."""

import subprocess

import pytest

from keybench.measure.summary import read_summary
from keybench.run import RunOptions, run
from tests.browser import chromium, console_messages
from tests.conftest import keybench


def _chromium(page, *args: str) -> subprocess.CompletedProcess:
    return chromium(page.as_uri(), *args)


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
    # The page as the run wrote it, before any test rebuilds it with `keybench report`.
    (root / "report-as-the-run-wrote-it.html").write_text((root / "r" / "report.html").read_text())
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


def test_the_first_section_a_browser_shows_is_the_verdict_table_then_the_write_heatmaps(small_run):
    dom = _chromium(small_run / "report.html", "--dump-dom")
    assert dom.returncode == 0 and console_messages(dom) == [], dom.stderr[-2000:]
    body = dom.stdout.split("<body>", 1)[1]
    first_section = body.split("<section", 1)[1].split("</section>", 1)[0]
    assert body.index("<section") < body.index("<h2") + 1 and body.index("</section>") < body.index('class="latency"')
    assert "Verdicts: which designs hotspot" in first_section
    table = first_section.split('<table class="verdicts">', 1)[1].split("</table>", 1)[0]
    rows = [r for r in table.split("<tr>")[2:]]
    assert len(rows) == 4  # spanner timestamp_first, hash_shard; bigtable timestamp_first, salted
    for row in rows:
        cells = [c.split("</td>")[0] for c in row.split("<td>")[1:]]
        design, verdict, agrees = cells[1], cells[3], cells[4]
        assert verdict == ("hotspot" if design == "timestamp_first" else "spread") and agrees == "yes", cells
    assert first_section.count('class="heatmap"') == 4  # one write heatmap per design (no index here)


def test_the_report_shows_each_strategys_expectation_provenance_and_advice(small_run):
    page = (small_run / "report.html").read_text()
    designs = page.split('<table class="designs">')[1].split("</table>")[0]
    # the header; spanner timestamp_first, hash_shard; bigtable timestamp_first, salted
    assert designs.count("<tr>") == 1 + 4
    assert "not in the documents" in designs  # salted is keybench's own addition
    assert "Bigtable: Schema design best practices" in designs and "以时间戳开头的行键" in designs


def test_report_command_rebuilds_the_page_and_refuses_a_directory_that_is_no_run(small_run, tmp_path):
    (small_run / "report.html").unlink()
    done = keybench("report", str(small_run))
    assert done.returncode == 0 and (small_run / "report.html").is_file(), done.stderr
    (small_run / "report.html").unlink()
    newest = keybench("report", "--results-dir", str(small_run.parent))  # no run named: the newest finished one
    assert newest.returncode == 0 and (small_run / "report.html").is_file(), newest.stderr
    assert f"reading {small_run}, the newest finished run" in newest.stderr
    bad = keybench("report", str(tmp_path))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no summary.csv" in bad.stderr


def test_the_report_a_complete_run_writes_says_nothing_of_an_incomplete_run(small_run):
    # The run writes it in its .partial directory, which alone would read as a run cut off.
    as_written = (small_run.parent / "report-as-the-run-wrote-it.html").read_text()
    assert "Incomplete run" not in as_written and 'class="partial"' not in as_written


def test_a_report_of_an_unfinished_run_says_it_is_incomplete(small_run, tmp_path):
    import json
    import shutil

    partial = tmp_path / ".r.partial"
    shutil.copytree(small_run, partial)
    meta = json.loads((partial / "run.json").read_text())
    (partial / "run.json").write_text(json.dumps({**meta, "status": "running"}))
    done = keybench("report", str(partial))
    assert done.returncode == 0, done.stderr
    assert "is an incomplete run (running)" in done.stderr
    assert "Incomplete run (running)" in (partial / "report.html").read_text()
    assert "Incomplete run" not in (small_run / "report.html").read_text()


@pytest.mark.parametrize("damage", ["binary", "nan"])
def test_a_damaged_run_directory_is_one_line_and_exit_2(small_run, tmp_path, damage):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(small_run, copy)
    if damage == "binary":
        (copy / "summary.csv").write_bytes(b"\x00\xff\xfe\x89 not text at all")
    else:
        text = (copy / "timeseries.csv").read_text().splitlines()
        header = text[0].split(",")
        first = text[1].split(",")
        first[header.index("ops")] = "nan"
        (copy / "timeseries.csv").write_text("\n".join([text[0], ",".join(first), *text[2:]]) + "\n")
    done = keybench("report", str(copy))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_report_folder_that_cannot_be_made_is_one_line_and_exit_1(small_run, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(small_run, copy)
    shutil.rmtree(copy / "report")
    (copy / "report").write_text("a file where the report's folder goes")  # as a read-only mount refuses it
    done = keybench("report", str(copy))
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines() == [f"keybench: error: cannot write {copy / 'report'}: File exists"]


@pytest.mark.parametrize("crafted", ["<script>alert(1)</script>", "../../../outside"])
def test_a_crafted_name_in_a_run_directory_is_refused_never_run_or_written_outside(small_run, tmp_path, crafted):
    import shutil

    copy = tmp_path / "runs" / "copy"
    shutil.copytree(small_run, copy)
    (copy / "report.html").unlink()
    lines = (copy / "summary.csv").read_text().splitlines()
    column = lines[0].split(",").index("operation")
    first = lines[1].split(",")
    first[column] = crafted
    (copy / "summary.csv").write_text("\n".join([lines[0], ",".join(first), *lines[2:]]) + "\n")
    before = set(tmp_path.rglob("*"))
    done = keybench("report", str(copy))
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert "summary.csv line 2: operation=" in line and "is not a name keybench writes" in line
    assert set(tmp_path.rglob("*")) - before == set(), "the refused report wrote something"


def test_the_page_stays_small_its_heatmaps_follow_the_verdict_table_and_a_chinese_quote_shows_its_gloss(small_run):
    import base64
    import io
    import re

    from PIL import Image

    page = (small_run / "report.html").read_text()
    embedded = re.findall(r'<img class="(\w+)" alt="([^"]*)" src="data:image/png;base64,([^"]+)"', page)
    modes = {Image.open(io.BytesIO(base64.b64decode(data))).mode for _, _, data in embedded}
    assert modes == {"P"}  # every picture in a palette: a quarter of the bytes
    heatmaps = [alt for kind, alt, _ in embedded if kind == "heatmap"]
    assert heatmaps and all(alt.endswith("-writes") for alt in heatmaps)  # reads are linked, not embedded
    assert 'href="heatmaps/' in page and "-reads.png" in page
    order = [re.match(r"(\w+)-(\w+?)(?:-googlesql)?-", alt).group(2) for alt in heatmaps]
    table = re.findall(r"<tr><td>(?:spanner|bigtable)</td><td>([a-z_0-9]+)", page)
    assert [s for s in dict.fromkeys(order)] == [s for s in dict.fromkeys(table) if s in order]
    # timestamp_first quotes Spanner's best practice in Chinese: the English shows, the original on hover
    assert "(in English; hover for the original)" in page and 'title="架构设计最佳做法' in page
    # Embedded as the model process drew them: nothing decoded or converted while the page is written.
    for _, alt, data in embedded:
        assert base64.b64decode(data) == (small_run / "heatmaps" / f"{alt}.png").read_bytes()
    # The plots are SVG in the page, each mark naming its figure: the rest of the page is small.
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="latency"') == 10
    assert re.search(r"<title>timestamp_first \(n=\d+\): p50 [\d.]+ ms</title>", page)
    without_heatmaps = len(page.encode()) - sum(len(data) for _, _, data in embedded)
    assert without_heatmaps < 250_000, without_heatmaps


def test_a_real_runs_observations_are_a_table_of_their_own_labelled_observed(small_run, tmp_path):
    import csv
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(small_run, copy)
    with open(copy / "verdicts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert "observed" in rows[0] and not any(r["observed"] for r in rows)  # an emulator run observes nothing
    assert "Observed by the service" not in (small_run / "report.html").read_text()
    rows[0] |= {"observed": "hotspot", "observed_score": "100", "observed_space": "AccessLog",
                "observed_where": "the newest <b>LastAccess</b> values", "observed_agrees": "yes"}
    with open(copy / "verdicts.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    done = keybench("report", str(copy))
    assert done.returncode == 0, done.stderr
    page = (copy / "report.html").read_text()
    section = page.split("Observed by the service, beside the model", 1)[1].split("</table>", 1)[0]
    assert "the newest &lt;b&gt;LastAccess&lt;/b&gt; values" in section  # the service's text, escaped
    assert section.count("<tr>") == 2  # the header and the one design observed
