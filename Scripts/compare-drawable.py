#!/usr/bin/env python3
"""Which corpus assets the field's tools can draw, and whether the Demo's page draws them.

For every asset of the shared corpus outside `bad/` (the Demo's JSON listing names them and
their first file), this runs what the pictures issue measures against:

- a still (a photo, a Live Photo's still): `vipsthumbnail -s 80`, once with libvips's
  untrusted loaders blocked (`VIPS_BLOCK_UNTRUSTED=1`, the rule the package draws by:
  no ImageMagick, PDF, SVG, …) and once as the command comes;
- a movie: `ffmpeg -ss 1 -i MOVIE -frames:v 1 -vf scale=80:-1`, and without `-ss 1` when
  that gives no frame (a movie shorter than a second);

then makes the Demo's page of the corpus (`--no-cache`: every picture drawn now) and reads
which rows have a picture. It prints the counts, every asset a tool draws and the page
does not (with the page's reason), and every asset the page draws and no tool does.

Exit status: 1 when an asset the tools draw with the untrusted loaders blocked has no
picture on the page (but for one refused by the page's memory budget: "too large to
draw", an image decoded whole past 320 MiB, which the tools decode at any cost), else 0;
2 on a usage error.

usage: compare-drawable.py --demo DEMO --shared SHARED [--verbose]
"""

import argparse
import html
import json
import os
import re
import subprocess
import sys
import tempfile

MOVIES = {"video"}


def tool_draws(command, output, env=None):
    """Whether `command` exits 0 and leaves a non-empty `output`."""
    if os.path.exists(output):
        os.remove(output)
    try:
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=env, timeout=60)
    except subprocess.TimeoutExpired:
        return False
    return result.returncode == 0 and os.path.exists(output) and os.path.getsize(output) > 0


def still(path, scratch, blocked):
    output = os.path.join(scratch, "still.jpg")
    env = dict(os.environ)
    env.pop("VIPS_BLOCK_UNTRUSTED", None)
    if blocked:
        env["VIPS_BLOCK_UNTRUSTED"] = "1"
    return tool_draws(["vipsthumbnail", "-s", "80", "-o", output, path], output, env)


def movie(path, scratch):
    output = os.path.join(scratch, "movie.jpg")
    base = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y"]
    tail = ["-i", path, "-frames:v", "1", "-vf", "scale=80:-1", output]
    return tool_draws(base + ["-ss", "1"] + tail, output) or tool_draws(base + tail, output)


def page_rows(demo, corpus, scratch):
    """Each row of the page as (has a picture, the Problems cell's text), in order."""
    folder = os.path.join(scratch, "page")
    subprocess.run([demo, corpus, "--format", "html", "--output", folder, "--no-progress",
                    "--no-cache"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    with open(os.path.join(folder, "index.html"), encoding="utf-8") as page:
        text = page.read()
    rows = []
    for row in text.split('<tr class="asset">')[1:]:
        row = row.split("</tr>", 1)[0]
        problems = re.search(r'<td class="problems">(.*?)</td>', row, re.S)
        reason = re.sub(r"<[^>]+>", "", problems.group(1)) if problems else ""
        rows.append(("<img " in row, html.unescape(reason).strip()))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", required=True)
    parser.add_argument("--shared", required=True)
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    corpus = os.path.join(arguments.shared, "corpus")
    if not os.path.isdir(corpus):
        sys.exit(f"compare-drawable: no corpus at {corpus}")
    listing = subprocess.run([arguments.demo, corpus, "--format", "json", "--no-progress"],
                             capture_output=True, check=True).stdout
    assets = json.loads(listing)
    with tempfile.TemporaryDirectory(prefix="compare-drawable-") as scratch:
        rows = page_rows(arguments.demo, corpus, scratch)
        if len(rows) != len(assets):
            sys.exit(f"compare-drawable: the page has {len(rows)} rows for {len(assets)} assets")
        counts = {"assets": 0, "page": 0, "tools (untrusted blocked)": 0, "tools (as they come)": 0}
        missed, beyond, missed_loose, budget = [], [], [], []
        for asset, (pictured, reason) in zip(assets, rows):
            path = asset["path"]
            if path.startswith("bad/"):
                continue
            counts["assets"] += 1
            first = os.path.join(corpus, asset["resources"][0]["path"])
            if asset["type"] in MOVIES:
                strict = loose = movie(first, scratch)
            else:
                strict = still(first, scratch, blocked=True)
                loose = strict or still(first, scratch, blocked=False)
            counts["page"] += pictured
            counts["tools (untrusted blocked)"] += strict
            counts["tools (as they come)"] += loose
            if strict and not pictured and "is too large to draw" in reason:
                budget.append((path, reason))
            elif strict and not pictured:
                missed.append((path, reason))
            elif loose and not pictured:
                missed_loose.append((path, reason))
            if pictured and not loose:
                beyond.append(path)
            if arguments.verbose:
                print(f"{path}\tpage={int(pictured)}\ttools={int(strict)}/{int(loose)}")
    for name, value in counts.items():
        print(f"{name}: {value}")
    print(f"drawn by the tools (untrusted loaders blocked), not by the page: {len(missed)}")
    for path, reason in missed:
        print(f"  {path}: {reason}")
    print(f"drawn by the tools, refused by the page's memory budget: {len(budget)}")
    for path, reason in budget:
        print(f"  {path}: {reason}")
    print(f"drawn only by an untrusted loader (ImageMagick…), not by the page: {len(missed_loose)}")
    for path, reason in missed_loose:
        print(f"  {path}: {reason}")
    print(f"drawn by the page, by no tool: {len(beyond)}")
    for path in beyond:
        print(f"  {path}")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
