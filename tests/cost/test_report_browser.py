"""The `compare --html` report in a real browser: Debian's headless Chromium draws the charts.

Two checks: the DOM after the page's own script ran (it records how many bars it drew, and the
bars are there), and a screenshot whose chart area holds the bars' colours. The PNG is decoded
with zlib alone, so the test needs no imaging library.
"""
import json
import re
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import write_spec
from trainstack.cli.app import app
from trainstack.cost.report import COLORS

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is absent (install Debian's chromium package: apt-get install -y "
           "chromium, as .ci/run does); the report's charts can only be checked in a browser")

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--hide-scrollbars",
                  "--force-device-scale-factor=1"]
WINDOW = (1100, 700)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    # timeout only guards against a hung browser; nothing is asserted about time
    return subprocess.run([str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180)


@pytest.fixture
def report(tmp_path, example_spec) -> tuple[Path, dict]:
    example_spec["workload"]["recompute"] = True
    example_spec["clouds"]["azure"] = {"region": "eastus"}   # listed, maybe not implemented
    spec = write_spec(tmp_path, example_spec)
    page = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["compare", "--spec", str(spec), "--html", str(page),
                                      "--json"])
    assert result.exit_code == 0, result.output
    return page, json.loads(result.output)


def expected_bars(result: dict) -> tuple[int, int]:
    cost = sum(1 for r in result["clouds"] if r["status"] == "ok" and r["cost"]["total"] is not None
               for part in ("compute", "storage", "transfer") if r["cost"][part] > 0)
    time = sum(1 for r in result["clouds"] if r["status"] == "ok" and r["hours"] is not None)
    return cost, time


def test_charts_drew_in_the_dom(tmp_path, report):
    page, result = report
    assert 'data-charts="drawn"' not in page.read_text()     # only the page's script sets it
    run = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-charts="drawn"' in body, body
    cost_bars, time_bars = expected_bars(result)
    assert cost_bars >= 2 and time_bars >= 1                 # there is something to draw
    assert f'data-cost-bars="{cost_bars}"' in body, body
    assert f'data-time-bars="{time_bars}"' in body, body
    assert len(re.findall(r'<rect[^>]*class="bar cost-bar', dom)) == cost_bars
    assert len(re.findall(r'<rect[^>]*class="bar time-bar', dom)) == time_bars
    for row in result["clouds"]:
        if row["status"] == "ok" and row["cost"]["total"] is not None:
            assert f'class="bar cost-bar compute" data-cloud="{row["cloud"]}"' in dom
        elif row["status"] == "ok":   # priced per hour, but no run cost (e.g. no cited GPU peak)
            assert f'class="bar cost-bar compute" data-cloud="{row["cloud"]}"' not in dom
        elif row["status"] == "not_implemented":
            assert "not implemented yet" in dom


# ----------------------------------------------------------------------------- screenshot

def read_png(path: Path, max_rows: int) -> tuple[int, list[bytes], int]:
    """(width, the first `max_rows` rows of pixels, bytes per pixel) of an 8-bit RGB(A) PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(min(height, max_rows)):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, rows, bpp


def count_colour(rows: list[bytes], bpp: int, hex_colour: str, tolerance: int = 6) -> int:
    target = bytes.fromhex(hex_colour.lstrip("#"))
    n = 0
    for line in rows:
        for i in range(0, len(line), bpp):
            if all(abs(line[i + k] - target[k]) <= tolerance for k in range(3)):
                n += 1
    return n


def test_screenshot_shows_the_bars(tmp_path, report):
    page, result = report
    shot = tmp_path / "report.png"
    run = chromium(tmp_path, f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={shot}",
                   page.as_uri())
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    width, rows, bpp = read_png(shot, max_rows=WINDOW[1])
    assert width == WINDOW[0]
    # a bar is at least 2 px x 26 px and the legend swatch 12 x 12, so thousands of pixels of
    # the compute and hours colours can only come from bars drawn across the chart width
    assert count_colour(rows, bpp, COLORS["compute"]) > 2000
    assert count_colour(rows, bpp, COLORS["hours"]) > 2000
    non_white = sum(1 for line in rows for i in range(0, len(line), bpp)
                    if min(line[i:i + 3]) < 240)
    assert non_white > 10_000


def test_a_cloud_without_hours_draws_no_bar_and_says_why(tmp_path, report):
    """E.g. Alibaba's H(96GB), which has no datasheet peak: no bar, the reason instead."""
    from dataclasses import replace

    from trainstack.cost.compare import compare
    from trainstack.cost.compare_records import RowCost
    from trainstack.cost.report import render_html
    _, doc = report
    comparison = compare(Path(doc["spec"]))
    ok = next(r for r in comparison.clouds if r.ok)
    blank = replace(ok, cloud="nopeak", hours=None, hours_note="no dense bf16 peak for H(96GB)",
                    cheapest=False, fastest=False, cost=RowCost())
    comparison.clouds.append(blank)
    result = comparison.as_json()
    page = tmp_path / "nopeak.html"
    page.write_text(render_html(comparison))
    run = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    cost_bars, time_bars = expected_bars(result)
    assert f'data-cost-bars="{cost_bars}"' in run.stdout and 'data-charts="drawn"' in run.stdout
    assert f'data-time-bars="{time_bars}"' in run.stdout
    assert 'data-cloud="nopeak"' not in run.stdout
    assert "no hours: no dense bf16 peak for H(96GB)" in run.stdout


# ----------------------------------------------------------------------------- issue 26

def _row_cells(page_text: str, label: str) -> list[str]:
    row = re.search(rf"<tr><th>{re.escape(label)}</th>(.*?)</tr>", page_text).group(1)
    return re.findall(r"<td>(.*?)</td>", row)


def test_the_table_keeps_plus_question_on_a_partly_priced_run_rate(report):
    page, result = report
    text = page.read_text()
    clouds = [r["cloud"] for r in result["clouds"]]
    cells = dict(zip(clouds, _row_cells(text, "monthly run-rate"), strict=True))
    for r in result["clouds"]:
        if r["status"] != "ok":
            continue
        partly = [u for u in r["unpriced"] if u != "transfer"]
        # hand rule: the run-rate prices nodes + filesystem + bucket; any of them unpriced -> +?
        assert cells[r["cloud"]].endswith("+?") == bool(partly), (r["cloud"], cells)


def test_the_table_has_a_capacity_row_naming_spot(tmp_path, example_spec):
    example_spec["workload"]["recompute"] = True
    spec = write_spec(tmp_path, example_spec)
    page = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["compare", "--spec", str(spec), "--html", str(page),
                                      "--json"])
    data = json.loads(result.output)
    cells = dict(zip([r["cloud"] for r in data["clouds"]],
                     _row_cells(page.read_text(), "capacity"), strict=True))
    # examples/cluster.yaml: GCP buys spot, AWS on demand
    assert cells["gcp"].startswith("spot") and cells["aws"] == "on demand"


@pytest.mark.parametrize("width", [1100, 700])
def test_nothing_reaches_past_the_window(tmp_path, report, width):
    page, _ = report
    run = chromium(tmp_path, f"--window-size={width},700", "--dump-dom", page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", run.stdout).group(1)
    assert 'data-overflow-x="no"' in body, body
    # every column the old table hid behind the scroll is there
    for label in ("filesystem", "policy", "cheapest / fastest", "capacity"):
        assert f"<th>{label}</th>" in run.stdout


@pytest.mark.parametrize("width", [1100, 700])
def test_chart_labels_stay_readable_on_a_narrow_window(tmp_path, report, width):
    # 12 px labels; a chart drawn 960 units wide and shown in ~640 px set them at 8 px (issue 36)
    page, _ = report
    run = chromium(tmp_path, f"--window-size={width},700", "--dump-dom", page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", run.stdout).group(1)
    shown = float(re.search(r'data-chart-font-px="([\d.]+)"', body).group(1))
    assert shown >= 11.5, body
