"""The failures the canary expects of Helix today (tests/canary/known_failures.json), each with why.

An entry names a flavor, a scenario and a check (the check's text as the findings print it;
fnmatch wildcards allowed, for checks that name a session or call id) and says why Helix fails
it. A failing finding an entry matches is reported as KNOWN and does not fail the run; an entry
whose scenario ran without a failing finding it matches fails the run ("known failure now
passes"), so that a fix also removes its entry. An entry with "version" applies to that CLI
version only.
"""
import fnmatch
import json
import os


class KnownFailures:
    def __init__(self, path):
        self.entries = []
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.entries = json.load(f)["known_failures"]
        for e in self.entries:
            for key in ("flavor", "scenario", "check", "reason"):
                if not e.get(key):
                    raise ValueError("%s: an entry without %s: %r" % (path, key, e))

    def apply(self, flavor, version, scenario, findings):
        """The findings with each known failure marked ("known": its reason), plus a failing
        finding for each entry of this scenario that matched no failing finding."""
        entries = [e for e in self.entries if e["flavor"] == flavor and e["scenario"] == scenario
                   and e.get("version", version) == version]
        matched = set()
        for f in findings:
            if f["ok"]:
                continue
            for i, e in enumerate(entries):
                if fnmatch.fnmatchcase(f["check"], e["check"]):
                    f["known"] = e["reason"]
                    matched.add(i)
                    break
        out = list(findings)
        for i, e in enumerate(entries):
            if i not in matched:
                out.append({"ok": False, "check": "known failure now passes: %s" % e["check"],
                            "detail": "remove it from tests/canary/known_failures.json (it was "
                                      "known because: %s)" % e["reason"]})
        return out


def unexpected(findings):
    """The failing findings no known failure explains."""
    return [f for f in findings if not f["ok"] and "known" not in f]
