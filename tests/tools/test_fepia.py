#!/usr/bin/env python3
"""Tests of tools/fepia/lb4mpi_fepia.py on hand-made run summaries, the
expected numbers worked out by hand below (004 §4.1: r = T(pi) - T(orig),
rho = r / r_min(pi), T = median of the finished runs).

Usage: test_fepia.py <path of lb4mpi_fepia.py> <scratch directory>
"""
import json
import os
import subprocess
import sys
import unittest

TOOL = None
SCRATCH = None

# Three variants; T_par medians by hand:
#   GSS           baseline runs 10, 12, 11 -> 11;  fail-1: 15 -> r = 4;  latency: 13, 14 -> 13.5, r = 2.5
#   SS            baseline 20               -> 20;  fail-1: 22 -> r = 2;  latency: 30       -> r = 10
#   GSS robust    baseline 11.5, 12.5       -> 12;  fail-1: 17, null, 18 -> 17.5, r = 5.5
#                                                    latency: 13 -> r = 1
# r_min: fail-1 = min(4, 2, 5.5) = 2; latency = min(2.5, 10, 1) = 1
# rho_res(fail-1): GSS 2, SS 1, GSS robust 2.75
# rho_flex(latency): GSS 2.5, SS 10, GSS robust 1
BASELINE = [
    {"technique": "GSS", "t_par_s": 10, "robust": False},
    {"technique": "GSS", "t_par_s": 12, "robust": False},
    {"technique": "GSS", "t_par_s": 11, "robust": False},
    {"technique": "SS", "t_par_s": 20, "robust": False},
    {"technique": "GSS", "t_par_s": 11.5, "robust": True},
    {"technique": "GSS", "t_par_s": 12.5, "robust": True},
]
FAIL1 = [
    {"technique": "GSS", "t_par_s": 15, "robust": False},
    {"technique": "SS", "t_par_s": 22, "robust": False},
    {"technique": "GSS", "t_par_s": 17, "robust": True},
    {"technique": "GSS", "t_par_s": None, "robust": True},  # did not finish
    {"technique": "GSS", "t_par_s": 18, "robust": True},
]
LATENCY = [
    {"technique": "GSS", "t_par_s": 13, "robust": False},
    {"technique": "GSS", "t_par_s": 14, "robust": False},
    {"technique": "SS", "t_par_s": 30, "robust": False},
    {"technique": "GSS", "t_par_s": 13, "robust": True},
]


def write(name, records, scenario=None, extra_lines=()):
    path = os.path.join(SCRATCH, name)
    with open(path, "w", encoding="utf-8") as f:
        for line in extra_lines:
            f.write(line + "\n")
        for r in records:
            r = dict(r)
            if scenario is not None:
                r["scenario"] = scenario
            f.write(json.dumps(r) + "\n")
    return path


def run(*args, stdin=None):
    p = subprocess.run([sys.executable, TOOL, *args], input=stdin, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def rows_by_key(doc):
    return {(r["technique"], r["robust"], r["scenario"]): r for r in doc["rows"]}


class Metrics(unittest.TestCase):
    def check(self, doc):
        rows = rows_by_key(doc)
        self.assertEqual(len(rows), 9)
        g, s, gr = ("GSS", "false"), ("SS", "false"), ("GSS", "true")
        expect = {  # (variant, scenario): (median, radius, rho)
            (g, "baseline"): (11, 0, None), (s, "baseline"): (20, 0, None), (gr, "baseline"): (12, 0, None),
            (g, "fail-1"): (15, 4, 2), (s, "fail-1"): (22, 2, 1), (gr, "fail-1"): (17.5, 5.5, 2.75),
            (g, "latency"): (13.5, 2.5, 2.5), (s, "latency"): (30, 10, 10), (gr, "latency"): (13, 1, 1),
        }
        for ((tech, robust), scen), (median, radius, rho) in expect.items():
            r = rows[(tech, robust, scen)]
            with self.subTest(technique=tech, robust=robust, scenario=scen):
                self.assertAlmostEqual(r["median_t_par_s"], median)
                self.assertAlmostEqual(r["radius_s"], radius)
                if rho is None:
                    self.assertIsNone(r["rho"])
                else:
                    self.assertAlmostEqual(r["rho"], rho)
        self.assertEqual(rows[("GSS", "true", "fail-1")]["runs"], 3)
        self.assertEqual(rows[("GSS", "true", "fail-1")]["finished"], 2)
        self.assertEqual(rows[("GSS", "false", "fail-1")]["kind"], "failure")
        self.assertAlmostEqual(rows[("GSS", "false", "fail-1")]["rho_res"], 2)
        self.assertIsNone(rows[("GSS", "false", "fail-1")]["rho_flex"])
        self.assertEqual(rows[("SS", "false", "latency")]["kind"], "perturbation")
        self.assertAlmostEqual(rows[("SS", "false", "latency")]["rho_flex"], 10)
        self.assertAlmostEqual(rows[("SS", "false", "latency")]["ratio"], 1.5)
        self.assertAlmostEqual(doc["r_min_s"]["fail-1"], 2)
        self.assertAlmostEqual(doc["r_min_s"]["latency"], 1)

    def test_scenario_field(self):
        path = write("all.jsonl", [], extra_lines=[json.dumps(dict(r, scenario=s)) for s, rs in
                                                   (("baseline", BASELINE), ("fail-1", FAIL1), ("latency", LATENCY))
                                                   for r in rs])
        rc, out, err = run("--json", path)
        self.assertEqual(rc, 0, err)
        self.check(json.loads(out))

    def test_file_labels_and_stdin(self):
        # Labels on the command line win over the records' own (wrong) field;
        # stdin labelled with --scenario; non-JSON lines skipped.
        b = write("b.jsonl", BASELINE, scenario="something else", extra_lines=["lb4mpi: a log line", ""])
        f = write("f.jsonl", FAIL1)
        stdin = "\n".join(json.dumps(r) for r in LATENCY) + "\n"
        rc, out, err = run("--json", f"{b}=baseline", f"{f}=fail-1", "-", "--scenario", "latency", stdin=stdin)
        self.assertEqual(rc, 0, err)
        self.check(json.loads(out))

    def test_markdown(self):
        b = write("b.jsonl", BASELINE)
        f = write("f.jsonl", FAIL1)
        la = write("l.jsonl", LATENCY)
        rc, out, err = run(f"{b}=baseline", f"{f}=fail-1", f"{la}=latency")
        self.assertEqual(rc, 0, err)
        self.assertIn("| GSS | true | fail-1 | failure | 2 of 3 | 17.5 | 1.46 | 5.5 | ρ_res 2.75 |", out)
        self.assertIn("| SS | false | latency | perturbation | 1 | 30 | 1.5 | 10 | ρ_flex 10 |", out)
        self.assertIn("| technique | robust | ρ_res fail-1 | ρ_flex latency |", out)
        self.assertIn("| GSS | false | 2 | 2.5 |", out)
        self.assertIn("| GSS | true | 2.75 | 1 |", out)
        self.assertIn("r_min per scenario: fail-1 2 s, latency 1 s", out)

    def test_scenario_classes_and_baseline_name(self):
        # --baseline and explicit globs: "slow" is a perturbation, "kill*" failures, "other" neither.
        b = write("b.jsonl", BASELINE)
        f = write("f.jsonl", FAIL1)
        la = write("l.jsonl", LATENCY)
        rc, out, err = run("--json", "--baseline", "ref", "--failure-scenarios", "kill*",
                           "--perturbation-scenarios", "slow,lat*", f"{b}=ref", f"{f}=kill-1", f"{la}=slow")
        self.assertEqual(rc, 0, err)
        rows = rows_by_key(json.loads(out))
        self.assertEqual(rows[("GSS", "false", "kill-1")]["kind"], "failure")
        self.assertEqual(rows[("GSS", "false", "slow")]["kind"], "perturbation")
        self.assertEqual(rows[("GSS", "false", "ref")]["kind"], "baseline")
        rc, out, err = run("--json", "--perturbation-scenarios", "lat*", f"{b}=baseline", f"{f}=odd")
        rows = rows_by_key(json.loads(out))
        self.assertEqual(rows[("GSS", "false", "odd")]["kind"], "other")
        self.assertAlmostEqual(rows[("GSS", "false", "odd")]["rho"], 2)

    def test_group_by_technique_only(self):
        # Without "robust" in the key, GSS's runs with and without it are pooled:
        # baseline 10, 12, 11, 11.5, 12.5 -> 11.5; latency 13, 14, 13 -> 13, r = 1.5;
        # SS r = 10 -> r_min 1.5, rho_flex GSS 1, SS 10 / 1.5.
        b = write("b.jsonl", BASELINE)
        la = write("l.jsonl", LATENCY)
        rc, out, err = run("--json", "--group-by", "technique", f"{b}=baseline", f"{la}=latency")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        rows = {(r["technique"], r["scenario"]): r for r in doc["rows"]}
        self.assertAlmostEqual(rows[("GSS", "baseline")]["median_t_par_s"], 11.5)
        self.assertAlmostEqual(rows[("GSS", "latency")]["radius_s"], 1.5)
        self.assertAlmostEqual(rows[("GSS", "latency")]["rho_flex"], 1)
        self.assertAlmostEqual(rows[("SS", "latency")]["rho_flex"], 10 / 1.5)

    def test_nonpositive_min_radius(self):
        # GSS got faster under the "perturbation" (r = -1): r_min <= 0, rho n/a,
        # unless --min-radius 0.5 (r -> 0.5): GSS 1, SS 10 / 0.5 = 20.
        b = write("b.jsonl", [{"technique": "GSS", "t_par_s": 11}, {"technique": "SS", "t_par_s": 20}])
        p = write("p.jsonl", [{"technique": "GSS", "t_par_s": 10}, {"technique": "SS", "t_par_s": 30}])
        rc, out, err = run("--json", f"{b}=baseline", f"{p}=noise")
        self.assertEqual(rc, 0, err)
        rows = {(r["technique"], r["scenario"]): r for r in json.loads(out)["rows"]}
        self.assertIsNone(rows[("GSS", "noise")]["rho"])
        self.assertIsNone(rows[("SS", "noise")]["rho"])
        rc, out, err = run("--json", "--min-radius", "0.5", f"{b}=baseline", f"{p}=noise")
        rows = {(r["technique"], r["scenario"]): r for r in json.loads(out)["rows"]}
        self.assertAlmostEqual(rows[("GSS", "noise")]["rho"], 1)
        self.assertAlmostEqual(rows[("SS", "noise")]["rho"], 20)
        self.assertAlmostEqual(rows[("GSS", "noise")]["radius_s"], -1)  # the radius itself is reported as measured
        # A floor relative to each variant's baseline: 10 % of 11 s = 1.1 s for GSS; SS's r = 10 s is above
        # its floor of 2 s: GSS 1, SS 10 / 1.1.
        rc, out, err = run("--json", "--min-radius-pct", "10", f"{b}=baseline", f"{p}=noise")
        self.assertEqual(rc, 0, err)
        rows = {(r["technique"], r["scenario"]): r for r in json.loads(out)["rows"]}
        self.assertAlmostEqual(rows[("GSS", "noise")]["rho"], 1)
        self.assertAlmostEqual(rows[("SS", "noise")]["rho"], 10 / 1.1)
        self.assertEqual(json.loads(out)["min_radius_pct"], 10)
        # No record has "robust": no such column.
        self.assertNotIn("robust", json.loads(out)["rows"][0])
        self.assertEqual(json.loads(out)["group_by"], ["technique"])
        rc, out, err = run(f"{b}=baseline", f"{p}=noise")
        self.assertIn("| technique | scenario | kind |", out)


class Errors(unittest.TestCase):
    def expect_error(self, args, text, stdin=None):
        rc, out, err = run(*args, stdin=stdin)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(text, err)

    def test_bad_floors(self):
        f = write("f.jsonl", FAIL1)
        self.expect_error(["--min-radius-pct", "0", f], "--min-radius-pct must be a percentage")
        self.expect_error(["--min-radius", "1", "--min-radius-pct", "5", f], "not both")

    def test_no_baseline(self):
        f = write("f.jsonl", FAIL1)
        self.expect_error([f"{f}=fail-1"], "no run of the baseline scenario 'baseline'")

    def test_no_scenario(self):
        b = write("b.jsonl", BASELINE)
        self.expect_error([b], "no scenario: the record has no \"scenario\" field")

    def test_bad_json(self):
        path = os.path.join(SCRATCH, "bad.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write('{"technique": "GSS", "t_par_s": \n')
        self.expect_error([f"{path}=baseline"], "bad.jsonl:1: not valid JSON")

    def test_bad_time(self):
        self.expect_error(["--scenario", "baseline"], "\"t_par_s\" must be a number >= 0 or null",
                          stdin='{"technique": "GSS", "t_par_s": "fast"}\n')

    def test_missing_file(self):
        self.expect_error([os.path.join(SCRATCH, "no_such.jsonl") + "=baseline"], "cannot read")

    def test_empty_input(self):
        self.expect_error(["--scenario", "baseline"], "no run summaries in the input", stdin="hello\n")


if __name__ == "__main__":
    TOOL, SCRATCH = sys.argv[1], sys.argv[2]
    os.makedirs(SCRATCH, exist_ok=True)
    unittest.main(argv=[sys.argv[0], "-v"])
