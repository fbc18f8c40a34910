"""Talking to doctest: the --test-case filter for one test case by name, and
its XML report (--reporters=xml; the same in doctest 2.4.9 and 2.4.11) read
back, also when a crash or a timeout cut it off, with the failed checks of a
test case put as the student should read them."""

import xml.etree.ElementTree as ET

from .sandbox import read_head

# How much of a test case's failure the feedback quotes.
TEST_MESSAGE_CHARS = 2000
# How much of a report is read: doctest writes a few KiB per test case.
REPORT_READ_BYTES = 16 * 1024 * 1024


def doctest_filter_escape(name):
    # doctest splits filters at commas unless escaped with a backslash (2.4.9+);
    # '*' and '?' are wildcards that also match themselves, and results are
    # matched by exact name afterwards.
    return name.replace("\\", "\\\\").replace(",", "\\,")


def parse_doctest_report(text):
    """Returns ({(suite, name): element}, ran: [(suite, name, element)], complete). Tolerates a cut-off report."""
    complete = "</doctest>" in text
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        # A crash or a timeout cut the file: close what was open and retry;
        # what is not well-formed by then counts as not reported.
        cut = text.rsplit("</TestCase>", 1)[0] + "</TestCase>" if "</TestCase>" in text else ""
        root = None
        for tail in ("</TestSuite></doctest>", "</doctest>"):
            try:
                root = ET.fromstring(cut + tail)
                break
            except ET.ParseError:
                continue
        if root is None:
            return {}, [], False
    cases, ran = {}, []
    for suite in root.iter("TestSuite"):
        for tc in suite.findall("TestCase"):
            key = (suite.get("name", ""), tc.get("name", ""))
            cases[key] = tc
            if tc.get("skipped") != "true":
                ran.append((key[0], key[1], tc))
    return cases, ran, complete


def parse_doctest_xml(path):
    """parse_doctest_report of the file at path (a missing file: nothing reported)."""
    return parse_doctest_report(read_head(path, REPORT_READ_BYTES))


def failure_text(tc):
    """The failed checks of one test case, as the student should read them."""
    out = []
    for el in tc.iter():
        if el.tag == "Expression" and el.get("success") == "false":
            where = f"{el.get('filename', '?')}:{el.get('line', '?')}"
            infos = [" ".join((i.text or "").split()) for i in el.findall("Info")]
            expr = " ".join((el.findtext("Original") or "").split())
            expanded = " ".join((el.findtext("Expanded") or "").split())
            exc = el.findtext("Exception")
            # The check's own message says what is wrong; without one, the
            # expression and where it is in the tests.
            msg = "; ".join(i for i in infos if i) or f"{el.get('type', 'CHECK')}({expr}) is {expanded or 'false'} [{where}]"
            if exc:
                msg += f" (threw: {' '.join(exc.split())})"
            out.append(msg)
        elif el.tag == "Message" and el.get("type", "").upper().find("FAIL") >= 0:
            out.append(" ".join((el.findtext("Text") or "").split()))
        elif el.tag == "Exception":
            what = "crashed" if el.get("crash") == "true" else "threw an exception"
            out.append(f"the test {what}: {' '.join((el.text or '').split())}")
    distinct = list(dict.fromkeys(out))  # a check repeated per thread count or subcase, once
    if len(distinct) > 5:
        distinct = distinct[:5] + [f"(and {len(distinct) - 5} more failed checks)"]
    text = "\n".join(distinct) or "failed (the test gave no message)"
    return text if len(text) <= TEST_MESSAGE_CHARS else text[:TEST_MESSAGE_CHARS] + " [...]"
