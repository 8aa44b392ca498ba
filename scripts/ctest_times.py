#!/usr/bin/env python3
"""Times of the tests of one configuration, from ctest's JUnit reports.

  ctest_times.py --build-dir DIR --budget 20 --top 10 report.xml [report.xml ...]

Prints the `--top` slowest tests (seconds, name) and checks the time budget:
every test that ran longer than `--budget` seconds must carry the label
`slow` (read from `ctest --show-only=json-v1` in DIR). Exit status 1 when a
test without it is over the budget, naming them, and 2 when a report cannot
be read or holds no test (the budget would go unchecked); 0 otherwise.
"""
import argparse
import json
import subprocess
import sys
import xml.etree.ElementTree as ET


def labels_by_test(build_dir):
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build_dir, check=True,
                         capture_output=True, text=True).stdout
    labels = {}
    for test in json.loads(out).get("tests", []):
        names = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                names = prop.get("value", [])
        labels[test["name"]] = set(names)
    return labels


def unreadable(message):
    """A report that cannot be read stops the check loudly (exit 2): skipping it would
    skip the time budget of its tests."""
    print(f"ctest_times.py: {message}; the time budget is not checked", file=sys.stderr)
    sys.exit(2)


def times(reports):
    rows = []
    for path in reports:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            unreadable(f"cannot read the JUnit report {path}: {e}")
        cases = list(root.iter("testcase"))
        if not cases:
            unreadable(f"the JUnit report {path} holds no test")
        for case in cases:
            try:
                secs = float(case.get("time") or "nan")
            except ValueError:
                secs = float("nan")
            if secs != secs:
                unreadable(f"{path}: test {case.get('name', '?')} has no readable time ({case.get('time')!r})")
            rows.append((secs, case.get("name", "?")))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--budget", type=float, default=20.0)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--label", default="", help="configuration name for the headings")
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()

    rows = sorted(times(args.reports), reverse=True)
    print(f"== ten slowest tests of {args.label} (seconds)" if args.top == 10
          else f"== {args.top} slowest tests of {args.label} (seconds)")
    for secs, name in rows[: args.top]:
        print(f"  {secs:7.2f}  {name}")

    labels = labels_by_test(args.build_dir)
    over = [(s, n) for s, n in rows if s > args.budget and "slow" not in labels.get(n, set())]
    if over:
        print(f"ctest_times.py: over the {args.budget:g} s budget without the label 'slow': "
              + ", ".join(f"{n} ({s:.1f} s)" for s, n in over), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
