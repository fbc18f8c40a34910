#!/usr/bin/env python3
"""Unit tests of tools/grading/doctest_xml.py on XML reports written here in
doctest's format (as build/bin/mmlab-tests --reporters=xml writes them):
whole reports, reports cut off by a crash or a timeout, garbage; the failed
checks put as a student reads them; the --test-case filter escape. No build."""
import sys
sys.dont_write_bytecode = True
import xml.etree.ElementTree as ET

import checks
from checks import Scratch, check
from grading import doctest_xml

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<doctest binary="build/bin/mmlab-tests" version="2.4.9">\n'
FAILED_CASE = """    <TestCase name="lab1.ijk: the baseline" filename="tests/test_lab1.cpp" line="8">
      <Expression success="false" type="CHECK" filename="./tests/stage_check.h" line="71">
        <Original>
          r.passed
        </Original>
        <Expanded>
          false
        </Expanded>
        <Info>
          lab1.ijk (student) is wrong at M x N x K = 1^3:   C[0][0] was never written
        </Info>
      </Expression>
      <OverallResultsAsserts successes="2" failures="1" test_case_success="false"/>
    </TestCase>
"""
PASSED_CASE = """    <TestCase name="lab1.ikj" filename="tests/test_lab1.cpp" line="9">
      <OverallResultsAsserts successes="3" failures="0" test_case_success="true"/>
    </TestCase>
"""
SKIPPED_CASE = '    <TestCase name="lab1.jik" filename="tests/test_lab1.cpp" line="10" skipped="true"/>\n'
WHOLE = (HEAD + '  <TestSuite name="lab1">\n' + FAILED_CASE + PASSED_CASE + SKIPPED_CASE + "  </TestSuite>\n"
         + '  <TestSuite name="gpu-lab1">\n' + SKIPPED_CASE + "  </TestSuite>\n"
         + '  <OverallResultsAsserts successes="5" failures="1"/>\n</doctest>\n')


def reports(tmp):
    cases, ran, complete = doctest_xml.parse_doctest_report(WHOLE)
    check(complete and set(cases) == {("lab1", "lab1.ijk: the baseline"), ("lab1", "lab1.ikj"), ("lab1", "lab1.jik"),
                                      ("gpu-lab1", "lab1.jik")},
          "a whole report: every test case by (suite, name), skipped ones too", str(sorted(cases)))
    check([(s, n) for s, n, _ in ran] == [("lab1", "lab1.ijk: the baseline"), ("lab1", "lab1.ikj")],
          "ran: the test cases not skipped, in order", str([(s, n) for s, n, _ in ran]))
    # A crash in the middle of the second test case: what finished before it still counts.
    cut = WHOLE[:WHOLE.index(PASSED_CASE) + 60]
    cases, ran, complete = doctest_xml.parse_doctest_report(cut)
    check(not complete and [n for _, n, _ in ran] == ["lab1.ijk: the baseline"],
          "a report cut inside a test case: the test cases before it are read, the report is not complete",
          str([n for _, n, _ in ran]))
    cases, ran, complete = doctest_xml.parse_doctest_report(HEAD + '  <TestSuite name="lab1">\n    <TestCase name="x"')
    check(cases == {} and ran == [] and not complete, "a report cut before any test case finished: nothing reported")
    check(doctest_xml.parse_doctest_report("") == ({}, [], False), "an empty report: nothing reported")
    check(doctest_xml.parse_doctest_report("segfault \x00 garbage </TestCase> <<<") == ({}, [], False),
          "garbage (even with a closing tag in it): nothing reported")
    f = tmp / "report.xml"
    f.write_text(WHOLE)
    check(doctest_xml.parse_doctest_xml(f)[2] and doctest_xml.parse_doctest_xml(tmp / "missing.xml") == ({}, [], False),
          "from a file; a missing file: nothing reported")


def element(xml):
    return ET.fromstring(xml)


def failures():
    tc = element(FAILED_CASE)
    check(doctest_xml.failure_text(tc) == "lab1.ijk (student) is wrong at M x N x K = 1^3: C[0][0] was never written",
          "a failed check with a message: the message, whitespace collapsed", doctest_xml.failure_text(tc))
    bare = element('<TestCase name="t"><Expression success="false" type="REQUIRE" filename="t.cpp" line="5">'
                   "<Original>a == b</Original><Expanded>1 == 2</Expanded></Expression></TestCase>")
    check(doctest_xml.failure_text(bare) == "REQUIRE(a == b) is 1 == 2 [t.cpp:5]",
          "a check without a message: the expression, its values and where", doctest_xml.failure_text(bare))
    threw = element('<TestCase name="t"><Expression success="false" type="CHECK" filename="t.cpp" line="5">'
                    "<Original>f()</Original><Exception>bad_alloc</Exception></Expression></TestCase>")
    # (Its <Exception> is read a second time as the test's own: "the test threw an exception: bad_alloc".)
    check(doctest_xml.failure_text(threw).splitlines()[0] == "CHECK(f()) is false [t.cpp:5] (threw: bad_alloc)",
          "a check whose expression threw: the expression and what it threw", doctest_xml.failure_text(threw))
    crash = element('<TestCase name="t"><Exception crash="true">SIGSEGV - Segmentation violation signal</Exception>'
                    "</TestCase>")
    check(doctest_xml.failure_text(crash) == "the test crashed: SIGSEGV - Segmentation violation signal",
          "a crash doctest caught", doctest_xml.failure_text(crash))
    fail_msg = element('<TestCase name="t"><Message type="FAIL" filename="t.cpp" line="3"><Text>no GPU kernel ran'
                       "</Text></Message></TestCase>")
    check(doctest_xml.failure_text(fail_msg) == "no GPU kernel ran", "a FAIL message", doctest_xml.failure_text(fail_msg))
    info = '<Expression success="false" type="CHECK"><Info>wrong at {}</Info></Expression>'
    repeated = element('<TestCase name="t">' + "".join(info.format(n % 7) for n in range(20)) + "</TestCase>")
    lines = doctest_xml.failure_text(repeated).splitlines()
    check(len(lines) == 6 and lines[-1] == "(and 2 more failed checks)" and len(set(lines)) == 6,
          "a check repeated per thread count: once each; more than five distinct: five and a count", str(lines))
    long = element('<TestCase name="t"><Expression success="false"><Info>' + "x" * 5000 + "</Info></Expression></TestCase>")
    text = doctest_xml.failure_text(long)
    check(len(text) == doctest_xml.TEST_MESSAGE_CHARS + 6 and text.endswith(" [...]"), "a long message is cut")
    check(doctest_xml.failure_text(element('<TestCase name="t"/>')) == "failed (the test gave no message)",
          "a failure with nothing to quote says so")


def filter_escape():
    check(doctest_xml.doctest_filter_escape("lab5.tile: 6x16, AVX2") == "lab5.tile: 6x16\\, AVX2",
          "a comma in a test case's name is escaped (doctest splits filters at commas)")
    check(doctest_xml.doctest_filter_escape("a\\b") == "a\\\\b", "a backslash is escaped first")


with Scratch() as tmp:
    reports(tmp)
failures()
filter_escape()
checks.finish("doctest_xml")
