#!/usr/bin/env python3
"""Opens the Demo's page (`--format html`) in headless Chromium and checks what a browser shows.

Usage: Scripts/check-page.py --demo .build/release/Demo [--chromium chromium]
           [--library Fixtures/Library] [--screenshot docs/page.png]

Writes two pages into a temporary folder: the page of the library (Fixtures/Library), and
the page of a small library made there of copies of one fixture JPEG under hostile names
(`<script>…`, `&`, quotes, an RTL override U+202E, an `<img onerror>`). For each page, a
check copy is written beside `index.html` (so the same relative links resolve): the same
HTML with `loading="lazy"` turned into `loading="eager"` (headless Chromium loads lazy
images below the fold only once they are scrolled to, so the copy asks for all of them at
once; nothing else differs) and one script added at the end, which waits for the window's
`load` event and writes what the browser made of the page into a `<pre>`: each image's
`complete`, `naturalWidth`/`naturalHeight` and `width`/`height` attributes, each row's
names as text (`textContent`), the headings, and how many `<script>` and `<img>` elements
the document holds. Chromium prints the DOM after the load (`--dump-dom`,
`--virtual-time-budget`), and this script checks it:

- every `<img>` loaded (`naturalWidth > 0`), its `width` and `height` attributes fit
  80 x 80 and are its natural size, or that size scaled down to fit (a stored picture of
  the thumbnail cache, at most 128 x 128, is shown scaled);
- as many rows as the Demo's JSON listing has assets;
- the hostile names are shown as text, exactly (the RTL override as `<U+202E>`), and the
  only script in the document is the check's own (no name became an element).

With --screenshot, a picture of the library's page (the page itself, lazy loading as
written) is saved there. Exit status 1 when a check fails.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Paths in the hostile library: a name with a slash is a folder (an album, `<b>bold<`) and
# a file in it (`b>.jpg`).
HOSTILE = [
    "<script>alert(1)<script>.jpg",
    "a&b \"q\" 'x'.jpg",
    "photo\u202egpj.exe.jpg",
    "<img src=x onerror=alert(2)>.jpg",
    "<b>bold</b>.jpg",
]


CHECK_SCRIPT = """<pre id="page-check"></pre>
<script>
window.addEventListener("load", function () {
  var images = Array.prototype.map.call(document.images, function (image) {
    return {src: image.getAttribute("src"), complete: image.complete,
      naturalWidth: image.naturalWidth, naturalHeight: image.naturalHeight,
      width: Number(image.getAttribute("width")), height: Number(image.getAttribute("height"))};
  });
  var names = Array.prototype.map.call(document.querySelectorAll("td.name"), function (cell) {
    return cell.textContent;
  });
  var headings = Array.prototype.map.call(document.querySelectorAll("h2"), function (h) {
    return h.textContent;
  });
  document.getElementById("page-check").textContent = JSON.stringify({
    images: images, names: names, headings: headings,
    rows: document.querySelectorAll("tr.asset").length,
    scripts: document.scripts.length,
    placeholders: document.querySelectorAll(".placeholder").length});
});
</script>
"""


def run_demo(demo, library, output):
    # The page's picture cache in the scratch folder beside the page, not the user's.
    cache = os.path.join(os.path.dirname(output), "cache")
    result = subprocess.run(
        [demo, "--format", "html", "--output", output, "--no-progress", library],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, XDG_CACHE_HOME=cache))
    if result.returncode != 0:
        sys.exit(f"check-page: the Demo failed ({result.returncode}): {result.stderr}")


def asset_count(demo, library):
    result = subprocess.run(
        [demo, "--format", "json", "--no-progress", library],
        capture_output=True, text=True, timeout=600, check=True)
    return len(json.loads(result.stdout))


def chromium_arguments(chromium, profile):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--hide-scrollbars", f"--user-data-dir={profile}"]


def browse(chromium, profile, page):
    """What the check script wrote into the check copy of `page`, once loaded."""
    with open(page, encoding="utf-8") as file:
        text = file.read()
    if " loading=\"lazy\"" not in text and "<img " in text:
        sys.exit(f"check-page: {page} has images without loading=\"lazy\"")
    copy = text.replace(" loading=\"lazy\"", " loading=\"eager\"")
    copy = copy.replace("</body>", CHECK_SCRIPT + "</body>")
    check = os.path.join(os.path.dirname(page), "check.html")
    with open(check, "w", encoding="utf-8") as file:
        file.write(copy)
    result = subprocess.run(
        chromium_arguments(chromium, profile)
        + ["--virtual-time-budget=10000", "--dump-dom", "file://" + check],
        capture_output=True, text=True, timeout=180)
    os.remove(check)
    found = re.search(r'<pre id="page-check">(.*?)</pre>', result.stdout, re.S)
    if not found or not found.group(1):
        sys.exit(f"check-page: Chromium gave no result for {page}: {result.stderr[-2000:]}")
    return json.loads(html.unescape(found.group(1)))


def fitted(width, height):
    """The size the page shows a picture at: within 80 x 80, never enlarged (as the Demo's
    HTMLPage.fitted rounds)."""
    longest = max(width, height)
    if longest <= 80:
        return (width, height)
    scale = 80 / longest
    return (max(1, round_half_away(width * scale)), max(1, round_half_away(height * scale)))


def round_half_away(value):
    return int(value + 0.5)


def check_images(label, seen, failures):
    for image in seen["images"]:
        if not image["complete"] or image["naturalWidth"] <= 0:
            failures.append(f"{label}: {image['src']} did not load")
        elif fitted(image["naturalWidth"], image["naturalHeight"]) != (
                image["width"], image["height"]):
            failures.append(
                f"{label}: {image['src']} is {image['naturalWidth']}x{image['naturalHeight']},"
                f" the page says {image['width']}x{image['height']}")
        elif max(image["naturalWidth"], image["naturalHeight"]) > 128:
            failures.append(f"{label}: {image['src']} is larger than 128x128")
    if seen["scripts"] != 1:
        failures.append(f"{label}: {seen['scripts']} scripts in the document, not only the check's")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True)
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--library", default="Fixtures/Library")
    parser.add_argument("--screenshot")
    arguments = parser.parse_args()
    demo = os.path.abspath(arguments.demo)
    # As given: the page shows the library's path as the Demo was given it.
    library = arguments.library
    failures = []
    scratch = tempfile.mkdtemp(prefix="check-page-")
    try:
        profile = os.path.join(scratch, "profile")
        page = os.path.join(scratch, "page")
        run_demo(demo, library, page)
        seen = browse(arguments.chromium, profile, os.path.join(page, "index.html"))
        expected = asset_count(demo, library)
        if seen["rows"] != expected:
            failures.append(f"library: {seen['rows']} rows for {expected} assets")
        if len(seen["images"]) + seen["placeholders"] != expected:
            failures.append("library: a row has neither a picture nor a placeholder")
        check_images("library", seen, failures)
        print(f"check-page: library: {seen['rows']} rows, {len(seen['images'])} pictures loaded,"
              f" {seen['placeholders']} placeholders")

        hostile = os.path.join(scratch, "hostile")
        os.makedirs(hostile)
        photo = os.path.join(library, "IMG_0002.jpg")
        shown = []
        for path in HOSTILE:
            target = os.path.join(hostile, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(photo, target)
            shown.append(os.path.basename(path).replace("\u202e", "<U+202E>"))
        hostile_page = os.path.join(scratch, "hostile-page")
        run_demo(demo, hostile, hostile_page)
        seen = browse(arguments.chromium, profile, os.path.join(hostile_page, "index.html"))
        check_images("hostile", seen, failures)
        if sorted(seen["names"]) != sorted(shown):
            failures.append(f"hostile: names shown {seen['names']!r}, expected {shown!r}")
        if "<b>bold<" not in seen["headings"]:
            failures.append(f"hostile: headings {seen['headings']!r} lack '<b>bold<'")
        if len(seen["images"]) != len(shown):
            failures.append(f"hostile: {len(seen['images'])} images for {len(shown)} names")
        print(f"check-page: hostile names: {len(seen['names'])} shown as text:"
              f" {json.dumps(seen['names'], ensure_ascii=True)}")

        if arguments.screenshot:
            target = os.path.abspath(arguments.screenshot)
            subprocess.run(
                chromium_arguments(arguments.chromium, profile)
                + ["--window-size=1100,1500", "--virtual-time-budget=10000",
                   f"--screenshot={target}", "file://" + os.path.join(page, "index.html")],
                capture_output=True, timeout=180, check=True)
            print(f"check-page: screenshot {target}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for failure in failures:
        print("check-page: FAIL " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
