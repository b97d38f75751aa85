#!/usr/bin/env python3
"""Runs the example blocks of README.md and docs/*.md ("Docs that run",
docs/design.md) and fails when one fails.

A fenced block is an example when its info string has the word `example`
after the language: ```sh example. `example slow` blocks run only with
UTILSIM_DOCS_SLOW=1 (or --slow).

The blocks of one document run in order, with bash -e -o pipefail, in one
fresh temporary folder laid out like a checkout, as a reader pasting them
from the repository root would see it:

    TMP/shared/traces   -> $UTILSIM_TRACES (default ../shared/traces)
    TMP/repo/           the working folder of every block
    TMP/repo/build/tools/utilsim, TMP/bin/utilsim -> the built binary
    TMP/repo/tests      -> the source tree's tests/ (fixtures)

with TMP/bin first on PATH, so `utilsim`, `build/tools/utilsim` and
`../shared/traces/...` all resolve without rewriting the text. A block that
names a path under ../shared/traces that is absent is skipped with a
one-line reason. Standard library only.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(`{3,}|~{3,})\s*(.*)$")
TRACE_REF = re.compile(r"\.\./shared/traces/[^\s'\"$;,)]*")


def blocks(path):
    """Yields (line of the opening fence, info words, text) of every fenced block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start, body = m.group(1), m.group(2).split(), i + 1, []
        i += 1
        # A closing fence: the same character, at least as long, nothing after.
        while i < len(lines) and not (lines[i].startswith(fence) and
                                      lines[i].strip() == fence[0] * len(lines[i].strip())):
            body.append(lines[i])
            i += 1
        i += 1
        yield start, info, "\n".join(body) + "\n"


def missing_traces(text, traces):
    """The first ../shared/traces/... path the block names that does not exist, or None."""
    for ref in TRACE_REF.findall(text):
        rel = ref[len("../shared/traces/"):].rstrip("/.")
        if not os.path.exists(os.path.join(traces, rel)):
            return ref
    return None


def make_tree(tmp, binary, root, traces):
    """The checkout-like folder described above; returns the working folder."""
    work = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(work, "build", "tools"))
    os.makedirs(os.path.join(tmp, "bin"))
    os.makedirs(os.path.join(tmp, "shared"))
    os.symlink(binary, os.path.join(work, "build", "tools", "utilsim"))
    os.symlink(binary, os.path.join(tmp, "bin", "utilsim"))
    os.symlink(os.path.join(root, "tests"), os.path.join(work, "tests"))
    if os.path.isdir(traces):
        os.symlink(traces, os.path.join(tmp, "shared", "traces"))
    return work


# Prepended to each block: on the first failing command, say which one and on
# which line of the block ($LINENO counts from the line after this one).
PREAMBLE = ("trap 'echo \"docs-example: failed: line $((LINENO - 1)): $BASH_COMMAND\" >&2' ERR\n")


def run_block(text, work, env, timeout):
    """Runs one block; returns (status, seconds, stderr text)."""
    script = os.path.join(work, "..", "block.sh")
    with open(script, "w", encoding="utf-8") as f:
        f.write(PREAMBLE + text)
    t0 = time.monotonic()
    p = subprocess.Popen(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", script],
                         cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # the block's whole process group
        _, err = p.communicate()
        return "timeout", time.monotonic() - t0, err
    return ("ok" if p.returncode == 0 else "exit %d" % p.returncode), time.monotonic() - t0, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", help="the built utilsim (required unless --documents)")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."),
                    help="source tree (default: two folders above this script)")
    ap.add_argument("--timeout", type=float, default=150, help="seconds per block (default 150)")
    ap.add_argument("--slow-timeout", type=float, default=1800, help="seconds per slow block")
    ap.add_argument("--slow", action="store_true", help="also run `example slow` blocks")
    ap.add_argument("--list", action="store_true", help="list the example blocks, run nothing")
    ap.add_argument("--documents", action="store_true",
                    help="print the documents that have example blocks, one a line (relative to "
                         "--root; no --binary needed), run nothing: CMake adds a test for each")
    ap.add_argument("docs", nargs="*", help="documents (default README.md docs/*.md)")
    a = ap.parse_args()
    root = os.path.realpath(a.root)
    binary = os.path.realpath(a.binary) if a.binary else ""
    traces = os.path.realpath(os.environ.get("UTILSIM_TRACES") or
                              os.path.join(root, "..", "shared", "traces"))
    slow = a.slow or os.environ.get("UTILSIM_DOCS_SLOW") == "1"
    docs = a.docs or ["README.md"] + sorted(
        os.path.join("docs", n) for n in os.listdir(os.path.join(root, "docs")) if n.endswith(".md"))
    if a.documents:
        for doc in docs:
            if any("example" in info[1:] for _, info, _ in blocks(os.path.join(root, doc))):
                print(doc)
        return 0
    if not a.binary:
        ap.error("--binary is required (unless --documents)")
    if not os.access(binary, os.X_OK):
        sys.exit("docs-example: %s: not an executable (--binary)" % binary)

    failures, counts = [], {"ok": 0, "skip": 0}
    for doc in docs:
        examples = [(ln, info, text) for ln, info, text in blocks(os.path.join(root, doc))
                    if "example" in info[1:]]
        if a.list:
            for ln, info, _ in examples:
                print("%s:%d %s" % (doc, ln, " ".join(info)))
            continue
        if not examples:
            continue
        tmp = tempfile.mkdtemp(prefix="utilsim-docs-")
        try:
            work = make_tree(tmp, binary, root, traces)
            env = dict(os.environ, PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"])
            for ln, info, text in examples:
                where = "%s:%d" % (doc, ln)
                is_slow = "slow" in info[1:]
                absent = missing_traces(text, traces)
                if absent or (is_slow and not slow):
                    reason = ("needs %s (not in %s)" % (absent, traces) if absent
                              else "slow (UTILSIM_DOCS_SLOW=1 runs it)")
                    print("skip %s: %s" % (where, reason))
                    counts["skip"] += 1
                    continue
                limit = a.slow_timeout if is_slow else a.timeout
                status, secs, err = run_block(text, work, env, limit)
                if status == "ok":
                    print("ok   %s (%.1f s)" % (where, secs))
                    counts["ok"] += 1
                    continue
                # The failing command and its line in the document, from the trap.
                m = re.search(r"docs-example: failed: line (\d+): (.*)", err)
                what = ("line %d: %s" % (ln + int(m.group(1)), m.group(2)) if m
                        else "timeout %g s" % limit if status == "timeout" else "")
                lines = [l for l in err.strip().split("\n") if l and "docs-example:" not in l]
                failures.append(where)
                print("FAIL %s (block), %s: %s after %.1f s" % (where, what, status, secs))
                for l in lines[-15:]:
                    print("    " + l)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if a.docs and not a.list and counts["ok"] + counts["skip"] + len(failures) == 0:
        print("docs examples: no example block in %s" % ", ".join(a.docs))
        return 1
    if not a.list:
        print("docs examples: %d ok, %d skipped, %d failed%s" % (
            counts["ok"], counts["skip"], len(failures),
            (": " + ", ".join(failures)) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
