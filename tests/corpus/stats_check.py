#!/usr/bin/env python3
"""stats_check.py CASE STATS.json EXPECT MAIN...

Checks the SYMLAZY_STATS document of a lazy-mode perf run for corpus.sh.
MAIN is BUILD_ID or BUILD_ID=PATH (PATH: the file perf must have scanned the
.symtab from, e.g. a separate debug file). EXPECT is one of
  lazy       every scan of every MAIN DSO is "lazy", 0 < passed < scanned/2
  lazy|fallback  as lazy, or eager with one of the documented reasons for
             PLT samples and overlapping symbols (doc/reliability.md "When lazy mode falls
             back"): "is in the PLT", "covered by overlapping symbols",
             "reduced tree answers differently", "duplicate choice needs
             demangled names"
  off-dwarf  lazy mode is off for the whole run with a DWARF reason
Prints "INFO:" lines for every DSO scan that was not lazy (why), then one
"PASS: CASE/stats ..." or "FAIL: CASE/stats ..." line. Exit 0/1.
"""
import json
import sys

# fallback reasons for PLT-stub samples and overlapping symbols (shim/state.c,
# index/symindex.c; older shims named the cause, newer ones replay the tree)
DOCUMENTED = ("is in the PLT", "covered by overlapping symbols",
              "reduced tree answers differently", "duplicate choice needs demangled names")


def main():
    case, path, expect = sys.argv[1:4]
    mains = []
    for m in sys.argv[4:]:
        bid, _, want_path = m.partition("=")
        mains.append((bid, want_path))
    try:
        with open(path) as f:
            d = json.load(f)
    except Exception as e:  # no stats: the shim did not run or crashed
        print("FAIL: %s/stats: cannot read %s: %s" % (case, path, e))
        return 1
    dsos = d.get("dsos", [])
    for s in dsos:
        if s.get("mode") != "lazy":
            print("INFO: %s: %s scan of %s [%s] mode=%s reason=%s" % (
                case, s.get("table"), s.get("path"), s.get("build_id", "")[:12],
                s.get("mode"), s.get("reason") or "-"))
    if expect == "off-dwarf":
        reason = d.get("lazy_reason", "")
        if d.get("lazy") == "off" and "DWARF" in reason:
            print("PASS: %s/stats (lazy off: %s)" % (case, reason))
            return 0
        print("FAIL: %s/stats (want lazy off with a DWARF reason, got lazy=%s reason=%r)" % (
            case, d.get("lazy"), reason))
        return 1
    if d.get("lazy") != "on":
        print("FAIL: %s/stats (lazy=%s reason=%r, want on)" % (case, d.get("lazy"), d.get("lazy_reason")))
        return 1
    bad, notes = [], []
    for bid, want_path in mains:
        scans = [s for s in dsos if s.get("build_id") == bid]
        if not scans:
            bad.append("no scan of build-id %s" % bid[:12])
            continue
        name = scans[0].get("path", "").rsplit("/", 1)[-1] or bid[:12]
        if want_path:
            symtab = [s for s in scans if s.get("table") == "symtab"]
            if not symtab or any(s.get("path") != want_path for s in symtab):
                bad.append("%s: .symtab scanned from %s, want %s" % (
                    bid[:12], [s.get("path") for s in symtab], want_path))
        modes = set(s.get("mode") for s in scans)
        reasons = " / ".join(sorted(set(s.get("reason", "") for s in scans if s.get("reason"))))
        scanned = sum(s.get("scanned", 0) for s in scans)
        passed = sum(s.get("passed", 0) for s in scans)
        what = "%s [%s]: mode %s, passed %d of %d scanned" % (
            name, bid[:12], "/".join(sorted(modes)), passed, scanned)
        lazy_ok = modes == {"lazy"} and 0 < passed and 2 * passed < scanned
        fb_ok = modes == {"eager"} and any(r in reasons for r in DOCUMENTED)
        ok = {"lazy": lazy_ok, "lazy|fallback": lazy_ok or fb_ok}.get(expect)
        if ok is None:
            bad.append("unknown expectation %s" % expect)
        elif ok:
            notes.append(what + (" (%s)" % reasons if reasons else ""))
        else:
            bad.append(what + (" (reason: %s)" % reasons if reasons else "") + ", want " + expect)
    if bad:
        print("FAIL: %s/stats (%s)" % (case, "; ".join(bad)))
        return 1
    print("PASS: %s/stats (%s)" % (case, "; ".join(notes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
