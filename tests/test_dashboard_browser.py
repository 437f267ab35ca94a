"""The dashboard in a real browser: headless Chromium driven by Selenium (Debian chromium, chromium-driver,
python3-selenium). Loads the page built from the fixture report, clicks through to the failing vector, checks
what the page shows, and saves a screenshot in out/test-screenshots/."""

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from dashboard_fixtures.dashboard_helpers import (CRASH_VECTOR, FAILING_VECTOR, REPO, REPORT, XFAIL_VECTOR, build,
                                                  full_corpus_page, with_cross)

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
SCREENSHOTS = REPO / "out" / "test-screenshots"
WAIT = 60       # seconds for any one thing to appear: a bound, fails only after it (a loaded machine renders slowly)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000"]


@pytest.fixture(scope="module")
def browser():
    for path in (CHROMIUM, CHROMEDRIVER):
        assert Path(path).exists(), f"{path} is missing: run 'make setup' (Debian chromium, chromium-driver)"
    profile = tempfile.mkdtemp(prefix="dashboard-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The Debian driver by path: Selenium must not look for (download) one of its own.
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def load(driver, html_path):
    driver.get(html_path.as_uri())
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_click_into_a_failing_vector(browser, tmp_path):
    out = tmp_path / "out"
    assert build(out) == 0
    load(browser, out / "dashboard.html")
    wait = WebDriverWait(browser, WAIT)
    assert browser.find_element(By.ID, "overall").text == "✗ 2 failing"

    # The matrix: seed x python fails (colour and text), seed x oracle crashed, str x python is an expected failure.
    cell = browser.find_element(By.CSS_SELECTOR, 'td.cell[data-family="seed"][data-runner="python"]')
    assert "fail" in cell.get_attribute("class").split() and cell.text == "✗ 3 pass · 1 fail"
    assert browser.find_element(By.CSS_SELECTOR, 'td.cell[data-family="seed"][data-runner="oracle"]').text == \
        "‼ 3 pass · 1 crash"
    assert browser.find_element(By.CSS_SELECTOR, 'td.cell[data-family="str"][data-runner="python"]').text == \
        "≈ 12 pass · 1 xfail"

    # Click the cell: the vector list narrows to that family; click the failing vector's row.
    cell.click()
    rows = browser.find_elements(By.CSS_SELECTOR, "#vector-table tr.vrow")
    assert [r.get_attribute("data-id") for r in rows] == [FAILING_VECTOR, CRASH_VECTOR]
    rows[0].click()
    detail = wait.until(EC.visibility_of_element_located((By.ID, "detail")))
    assert browser.find_element(By.ID, "detail-title").text == FAILING_VECTOR
    assert browser.current_url.endswith(f"#vector={FAILING_VECTOR}")

    failure = detail.find_element(By.CSS_SELECTOR, '[data-role="failure"][data-runner="python"][data-op="encode"]')
    assert "bytes differ from canonical at offset 50" in failure.text
    expected_focus = failure.find_element(By.CSS_SELECTOR, '[data-role="expected"] tr.focus').text
    actual_focus = failure.find_element(By.CSS_SELECTOR, '[data-role="actual"] tr.focus').text
    assert expected_focus.split() == ["▶", "50", "d2", "[1].items[0].int.header", "int32"]
    assert actual_focus.split() == ["▶", "50", "cd", "[1].items[0].int.header", "uint16"]
    values = detail.find_element(By.CSS_SELECTOR, '[data-role="values"]').text
    assert "int 2005" in values and 'str "select * from cars where year > ? and seats = ?"' in values
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / "dashboard-failing-vector.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10000

    # Escape closes the detail; search by id finds the expected failure, whose detail names its reason.
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait.until(EC.invisibility_of_element_located((By.ID, "detail")))
    search = browser.find_element(By.ID, "search")
    search.send_keys("*header-str8")
    rows = browser.find_elements(By.CSS_SELECTOR, "#vector-table tr.vrow")
    assert [r.get_attribute("data-id") for r in rows] == [XFAIL_VECTOR]
    rows[0].find_element(By.TAG_NAME, "a").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "detail-title"), XFAIL_VECTOR))
    assert "expected to fail: " in browser.find_element(By.ID, "detail").text
    assert "the corpus wrongly says str8 is canonical" in browser.find_element(By.ID, "detail").text
    browser.find_element(By.ID, "detail-close").click()
    wait.until(EC.invisibility_of_element_located((By.ID, "detail")))

    # Rules with no vector stand out; the report has no producer x consumer matrix, and the page says so.
    nil_rule = browser.find_element(By.ID, "rule-MP-NIL")
    assert "uncovered" in nil_rule.get_attribute("class") and "NO VECTOR" in nil_rule.text
    assert browser.find_element(By.CSS_SELECTOR, '[data-role="cross-missing"]').text.startswith("Not in this report")


def test_cross_matrix_section_when_the_report_has_it(browser, tmp_path):
    out = tmp_path / "out"
    assert build(out, report=with_cross(tmp_path)) == 0
    load(browser, out / "dashboard.html")
    matrix = browser.find_element(By.CSS_SELECTOR, '[data-role="cross-matrix"]')
    rows = [[c.text.split("\n")[0] for c in r.find_elements(By.CSS_SELECTOR, "th, td")]
            for r in matrix.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert rows == [["python wrote", "✓ 16 pass", "✗ 15 pass · 1 fail"],
                    ["oracle wrote", "✓ 16 pass", "– not run"]]
    assert not browser.find_elements(By.CSS_SELECTOR, '[data-role="cross-missing"]')


HOSTILE = ('<!--<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
           '</script><script>window.__pwned = 3</script> & <b>bold</b>')


def with_hostile_strings(tmp_path):
    """The fixture report with runner-supplied strings (library, language, start error, details, diagnoses,
    expectations) that try to end the data script, open an HTML comment or inject code."""
    report = json.loads(REPORT.read_text())
    for r in report["runners"]:
        r["library"], r["language"] = HOSTILE, HOSTILE
    for v in report["verdicts"]:
        if v["verdict"] != "pass":
            v["detail"] = HOSTILE
            v["diagnosis"] = [HOSTILE] + v["diagnosis"]
    path = tmp_path / "report-hostile.json"
    path.write_text(json.dumps(report))
    return path


def test_hostile_strings_render_as_text_and_run_nothing(browser, tmp_path):
    out = tmp_path / "out"
    assert build(out, report=with_hostile_strings(tmp_path)) == 0
    html = (out / "dashboard.html").read_text()
    data = html[html.index('<script id="report-data"'):]
    assert "<!--" not in data[:data.index("</script>")]
    load(browser, out / "dashboard.html")           # page.js ran to the end (data-ready), no console errors
    assert browser.execute_script("return window.__pwned === undefined")
    assert not browser.find_elements(By.CSS_SELECTOR, "main img, main b")
    rows = browser.find_elements(By.CSS_SELECTOR, "#runner-table tbody tr")
    assert len(rows) == 2 and HOSTILE in rows[0].text
    browser.get((out / "dashboard.html").as_uri() + f"#vector={FAILING_VECTOR}")
    WebDriverWait(browser, WAIT).until(EC.visibility_of_element_located((By.ID, "detail")))
    assert HOSTILE in browser.find_element(By.ID, "detail").text
    assert browser.execute_script("return window.__pwned === undefined")
    summary = (out / "summary.md").read_text()
    assert "<script" not in summary and "<!--" not in summary and "<b>" not in summary
    assert "&lt;!--&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in summary


MAX_PAGE_BYTES = 8 << 20   # the dashboard of the whole corpus, every runner passing (issue 31: it was 33 MB)
FULL_LOAD_WAIT = 120       # seconds: a generous bound for a loaded machine, not a speed goal


@pytest.fixture(scope="module")
def full_page(tmp_path_factory):
    return full_corpus_page(tmp_path_factory.mktemp("full-corpus"))


def test_the_whole_corpus_dashboard_stays_under_8_mb(full_page):
    path, data = full_page
    size = path.stat().st_size
    print(f"dashboard of the whole corpus, {len(data['runners'])} runners: {size:,} bytes")
    assert len(data["vectors"]) == data["meta"]["selection"]["vectors"] > 10000
    assert size < MAX_PAGE_BYTES, f"{path}: {size:,} bytes (limit {MAX_PAGE_BYTES:,})"


def test_the_whole_corpus_dashboard_loads_and_builds_a_detail_on_demand(browser, full_page):
    path, data = full_page
    vector = next(v for v in data["vectors"] if v["kind"] == "decode-reject")
    browser.set_page_load_timeout(FULL_LOAD_WAIT)
    try:
        started = time.monotonic()
        browser.get(path.as_uri())
        WebDriverWait(browser, FULL_LOAD_WAIT).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    finally:
        browser.set_page_load_timeout(WAIT)
    print(f"whole-corpus dashboard ready in {time.monotonic() - started:.1f} s (a figure, not a limit)")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert browser.find_element(By.ID, "overall").text.startswith("✓ none failing: ")
    assert browser.execute_script("return UNREAD.size") == len(data["vectors"])    # no detail parsed yet
    browser.execute_script(f"location.hash = {json.dumps('#vector=' + vector['id'])}")
    detail = WebDriverWait(browser, WAIT).until(EC.visibility_of_element_located((By.ID, "detail")))
    assert browser.find_element(By.ID, "detail-title").text == vector["id"]
    assert "Input bytes (must be rejected)" in detail.text and detail.find_elements(By.CSS_SELECTOR, '[data-role="hex"]')
    assert browser.execute_script("return UNREAD.size") == len(data["vectors"]) - 1


def with_official(tmp_path):
    """An official-clients directory from the fixture report: its 'python' runner renamed ignite-cpp and judged with
    runners/ignite-cpp/expected-failures-3.1.0.txt, whose one cause holds the xfail entry (docs/official-clients.md)."""
    listing = tmp_path / "runners" / "ignite-cpp" / "expected-failures-3.1.0.txt"
    listing.parent.mkdir(parents=True)
    listing.write_text("## cause: str8 written | rule: MP-STR-HEADER | upstream: modules/x/writer.cpp:7@3.1.0 | "
                       f"fixed-on-main: no\n{XFAIL_VECTOR}  encode  writes str8\n")
    report = json.loads(REPORT.read_text())
    for r in report["runners"]:
        if r["name"] == "python":
            r["name"], r["expectations"]["file"] = "ignite-cpp", str(listing)
    for v in report["verdicts"]:
        if v["runner"] == "python":
            v["runner"] = "ignite-cpp"
            if v["verdict"] == "xfail":
                v["expectation"] = f"{listing}:2: writes str8"
    (tmp_path / "official" / "3.1.0").mkdir(parents=True)
    (tmp_path / "official" / "3.1.0" / "report.json").write_text(json.dumps(report))
    return tmp_path / "official", tmp_path / "runners"


def test_official_clients_section(browser, tmp_path):
    official_dir, runners = with_official(tmp_path)
    out = tmp_path / "out"
    assert build(out, report=official_dir / "3.1.0" / "report.json",
                 extra_args=["--official", str(official_dir), "--runners-dir", str(runners)]) == 0
    load(browser, out / "dashboard.html")
    counts = browser.find_element(By.CSS_SELECTOR, '[data-role="official-counts"]')
    rows = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")] for r in counts.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert len(rows) == 9
    cpp = next(r for r in rows if r[:2] == ["ignite-cpp", "3.1.0 (0ed2eab1ff1)"])
    assert cpp[3:] == ["44", "0", "1", "0", "0", "1"]       # pass, coarse, fail (xfail), unclaimed, info, unexpected
    assert next(r for r in rows if r[0] == "ignite-dotnet")[2] == "– not run"
    causes = browser.find_element(By.CSS_SELECTOR, '[data-role="official-causes"]')
    cells = [c.text for c in causes.find_elements(By.CSS_SELECTOR, "tbody tr th, tbody tr td")]
    assert cells == ["str8 written", "MP-STR-HEADER", "modules/x/writer.cpp:7@3.1.0", "no", "—", "1", "—"]
    links = {a.text: a.get_attribute("href") for a in causes.find_elements(By.TAG_NAME, "a")}
    assert links["MP-STR-HEADER"].endswith("#rule=MP-STR-HEADER")
    assert links["modules/x/writer.cpp:7@3.1.0"] == ("https://github.com/apache/ignite-3/blob/"
                                                     "0ed2eab1ff1b4b9db351b07356f9f669c7a5daaa/modules/x/writer.cpp#L7")
    # Without --official the section says how to get it.
    assert build(tmp_path / "plain") == 0
    load(browser, tmp_path / "plain" / "dashboard.html")
    assert browser.find_elements(By.CSS_SELECTOR, '[data-role="official-missing"]')
