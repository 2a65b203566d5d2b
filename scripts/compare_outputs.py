"""Compare every output of `swm-gis demo` between two versions of the code (issue 25).

A refactoring must not change what the tool writes. This runs the demo (screen, abutters,
applicability on the sample town) once per git revision, each from its own worktree, and compares
the two output folders file by file:

* CSV, TXT, HTML, QML, JSON: byte for byte, after blanking what differs between any two runs
  (the moment of the run, elapsed seconds, the output folder's own path);
* GeoPackages: every layer and table, row for row (attributes and WKB geometry);
* PDFs: the text of every page (pypdf), with the same blanking.

Usage::

    python scripts/compare_outputs.py REV_BEFORE [REV_AFTER]     # AFTER defaults to the work tree
    python scripts/compare_outputs.py --dirs BEFORE_OUT AFTER_OUT   # two demo folders made already

Exit code 0 when every file matches, 1 otherwise (each difference printed).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Text that differs between two runs of the same code: timestamps, durations, folders.
VOLATILE = [
    re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:?\d{2}|Z)?"),
    re.compile(r'"(?:elapsed|seconds|duration)[a-z_]*": [0-9.e-]+'),
    re.compile(r"D:\d{14}[^)]*"),            # PDF creation dates
    re.compile(r"\d{1,2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2} UTC"),   # the web map's "generated" line
    re.compile(r"mtime[^,}\n]*"),            # input modification times in provenance
]

#: This script's checkouts, whichever run wrote the path (blanked as the roots are).
CHECKOUT = re.compile(r"/\S*?swm-gis-compare-[^/\s]+/tree\d")


def _blank(text: str, roots: list[str]) -> str:
    for root in roots:
        text = text.replace(root, "<OUT>")
    text = CHECKOUT.sub("<OUT>", text)
    for rx in VOLATILE:
        text = rx.sub("<VOLATILE>", text)
    return text


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n\f".join(page.extract_text() or "" for page in PdfReader(path).pages)


def _gpkg_rows(path: Path) -> dict[str, list[tuple]]:
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM gpkg_contents ORDER BY table_name")]
        styles = "SELECT count(*) FROM sqlite_master WHERE name = 'layer_styles'"
        if con.execute(styles).fetchone()[0]:
            tables.append("layer_styles")
        out = {}
        for table in tables:
            cols = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')
                    if r[1] not in ("update_time",)]
            sel = ", ".join(f'"{c}"' for c in cols)
            out[table] = [tuple(cols)] + list(con.execute(f'SELECT {sel} FROM "{table}"'))
        return out
    finally:
        con.close()


def _lines_diff(before: str, after: str, show: int) -> list[str]:
    """The first ``show`` changed lines of a unified diff of two blanked texts, indented."""
    import difflib

    changed = [d for d in difflib.unified_diff(before.splitlines(), after.splitlines(),
                                               lineterm="", n=0)
               if d[:1] in "+-" and not d.startswith(("+++", "---"))]
    more = [f"    ... and {len(changed) - show} more changed line(s)"] if len(changed) > show \
        else []
    return [f"    {d[:240]}" for d in changed[:show]] + more


def _rows_text(rows: list[tuple] | None) -> str:
    return "\n".join(repr(r) for r in rows or [])


def compare_dirs(before: Path, after: Path, trees: tuple[Path, ...] = (), *,
                 show: int = 0) -> list[str]:
    """Every difference between two output folders, one line each (empty: identical); with
    ``show``, each difference followed by up to that many of its changed lines.

    ``trees``: the checkouts the runs read their inputs from (their paths are blanked)."""
    roots = sorted({str(p) for p in (before, after, *trees)}, key=len, reverse=True)
    diffs = []
    names_b = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    names_a = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    for name in sorted(names_b ^ names_a):
        diffs.append(f"only in {'before' if name in names_b else 'after'}: {name}")
    for name in sorted(names_b & names_a):
        b, a = before / name, after / name
        suffix = name.suffix.lower()
        if suffix == ".gpkg":
            rb, ra = _gpkg_rows(b), _gpkg_rows(a)
            for table in sorted(set(rb) | set(ra)):
                tb = _blank(_rows_text(rb.get(table)), roots)
                ta = _blank(_rows_text(ra.get(table)), roots)
                if tb != ta:
                    diffs.append(f"{name}: table {table} differs "
                                 f"({len(rb.get(table, []))} vs {len(ra.get(table, []))} rows)")
                    diffs += _lines_diff(tb, ta, show) if show else []
        elif suffix == ".pdf":
            tb, ta = _blank(_pdf_text(b), roots), _blank(_pdf_text(a), roots)
            if tb != ta:
                diffs.append(f"{name}: text differs")
                diffs += _lines_diff(tb, ta, show) if show else []
        elif suffix in {".xlsx", ".png"}:
            continue  # zipped XML with timestamps / pixels: the CSV and PDF text cover them
        else:
            tb = _blank(b.read_bytes().decode("utf-8", "replace"), roots)
            ta = _blank(a.read_bytes().decode("utf-8", "replace"), roots)
            if tb != ta:
                diffs.append(f"{name}: bytes differ")
                diffs += _lines_diff(tb, ta, show) if show else []
    return diffs


def run_demo(tree: Path, out: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(tree), QT_QPA_PLATFORM="offscreen",
               SWM_GIS_CACHE_DIR="off")
    subprocess.run([sys.executable, "-m", "swm_gis", "demo", "--out", str(out)], cwd=tree,
                   env=env, check=True, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="*", help="REV_BEFORE [REV_AFTER]")
    parser.add_argument("--dirs", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--show", type=int, default=0, metavar="N",
                        help="print up to N changed lines of each difference")
    args = parser.parse_args(argv)
    trees: list[Path] = []
    if args.dirs:
        before, after = args.dirs
        trees = [REPO]  # a demo run from the work tree names its inputs there
    else:
        if not 1 <= len(args.revs) <= 2:
            parser.error("give REV_BEFORE [REV_AFTER] or --dirs BEFORE AFTER")
        work = Path(tempfile.mkdtemp(prefix="swm-gis-compare-"))
        for i, rev in enumerate(args.revs):
            tree = work / f"tree{i}"
            subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), rev],
                           cwd=REPO, check=True)
            trees.append(tree)
        if len(trees) == 1:
            trees.append(REPO)
        before, after = work / "before", work / "after"
        try:
            run_demo(trees[0], before)
            run_demo(trees[1], after)
        finally:
            for tree in trees:
                if tree != REPO:
                    subprocess.run(["git", "worktree", "remove", "--force", str(tree)],
                                   cwd=REPO, check=False)
    diffs = compare_dirs(before, after, tuple(trees), show=args.show)
    n = sum(1 for p in before.rglob("*") if p.is_file())
    for line in diffs:
        print(line)
    count = sum(1 for line in diffs if not line.startswith("    "))
    print(f"{n} files compared, {count} differences ({before} vs {after})")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
