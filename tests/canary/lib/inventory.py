#!/usr/bin/env python3
"""The shape of what an agent CLI wrote: its files (ids masked), record types and their fields.

    inventory.py FLAVOR DIR...          prints the inventory of the agents' files under DIR/home
    inventory.py --diff OLD.json NEW.json   what changed between two inventories

A record type is named from the record itself: Claude `type` (+ `subtype`, attachment type,
content block types), Codex `type` + `payload.type` (+ the `item_completed` item type), Grok the
file it is in + `type` / `sessionUpdate`. Its fields are the keys of the record (Claude, Grok)
or of its payload (Codex), one level deep.
"""
import json
import os
import re
import sys

AGENT_DIRS = {"claude": ".claude", "codex": ".codex", "grok": ".grok", "gemini": ".gemini"}
# where each agent keeps its transcripts, under its directory; the rest (caches, skills, docs,
# credentials) is not looked at
SESSION_TREES = {"claude": ["projects"], "codex": ["sessions", "archived_sessions", "history.jsonl",
                                                   "session_index.jsonl"],
                 "grok": ["sessions"], "gemini": ["tmp"]}
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|agent-a[0-9a-f]{6,}"
                r"|\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2}|%2F[^/]*"
                r"|toolu_\w+|call_\w+|\d{6,}(-\d+)?")


def claude_types(record, path):
    kind = record.get("type", "?")
    names = [kind]
    if record.get("subtype"):
        names = [kind + "/" + record["subtype"]]
    if kind == "attachment":
        names = ["attachment/" + str((record.get("attachment") or {}).get("type"))]
    message = record.get("message")
    if isinstance(message, dict) and isinstance(message.get("content"), list):
        names += ["%s.content/%s" % (kind, b.get("type")) for b in message["content"]
                  if isinstance(b, dict)]
    return names, record


def codex_types(record, path):
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return [record.get("type", "?")], record
    name = record.get("type", "?")
    if payload.get("type"):
        name += "/" + payload["type"]
    if payload.get("type") == "item_completed":
        name += "/" + str((payload.get("item") or {}).get("type"))
    return [name], payload


def grok_types(record, path):
    base = os.path.basename(path)
    if base == "updates.jsonl":
        update = (record.get("params") or {}).get("update") or {}
        return ["updates/%s/%s" % (record.get("method"), update.get("sessionUpdate"))], update
    return ["%s/%s" % (base.split(".")[0], record.get("type") or record.get("role") or "?")], record


TYPES = {"claude": claude_types, "codex": codex_types, "grok": grok_types}


def mask(path):
    """The path with ids, dates and project names masked: the same on every run."""
    return ID.sub("<id>", re.sub(r"^projects/[^/]+", "projects/<project>", path))


def session_files(root, trees):
    for tree in trees:
        top = os.path.join(root, tree)
        if os.path.isfile(top):
            yield top
        for folder, _, names in os.walk(top):
            for name in sorted(names):
                yield os.path.join(folder, name)


def inventory(flavor, dirs):
    files, records = {}, {}
    typer = TYPES.get(flavor, lambda r, p: ([str(r.get("type", "?"))], r))
    for out in dirs:
        root = os.path.join(out, "home", AGENT_DIRS.get(flavor, "." + flavor))
        for path in session_files(root, SESSION_TREES.get(flavor, [""])):
            name = os.path.basename(path)
            if True:
                rel = mask(os.path.relpath(path, root))
                files[rel] = files.get(rel, 0) + 1
                if name.endswith(".jsonl"):
                    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
                elif name.endswith(".json"):
                    lines = [open(path, encoding="utf-8", errors="replace").read()]
                else:
                    continue
                for line in lines:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(record, dict):
                        continue
                    if name.endswith(".json"):
                        types, fields = ["file:" + mask(name)], record
                    else:
                        types, fields = typer(record, path)
                    for t in types:
                        entry = records.setdefault(t, {"count": 0, "fields": set()})
                        entry["count"] += 1
                        entry["fields"].update(fields.keys() if isinstance(fields, dict) else [])
    return {"files": dict(sorted(files.items())),
            "records": {t: {"count": e["count"], "fields": sorted(e["fields"])}
                        for t, e in sorted(records.items())}}


def diff(old, new):
    """Lines saying what is new, gone or has new or lost fields, from old to new."""
    lines = []
    for t in sorted(set(new["records"]) - set(old["records"])):
        lines.append("new record type %s (%d): fields %s" % (
            t, new["records"][t]["count"], ", ".join(new["records"][t]["fields"])))
    for t in sorted(set(old["records"]) - set(new["records"])):
        lines.append("record type no longer written: %s" % t)
    for t in sorted(set(old["records"]) & set(new["records"])):
        added = sorted(set(new["records"][t]["fields"]) - set(old["records"][t]["fields"]))
        gone = sorted(set(old["records"][t]["fields"]) - set(new["records"][t]["fields"]))
        if added:
            lines.append("%s: new fields %s" % (t, ", ".join(added)))
        if gone:
            lines.append("%s: fields no longer written %s" % (t, ", ".join(gone)))
    for f in sorted(set(new["files"]) - set(old["files"])):
        lines.append("new file %s" % f)
    for f in sorted(set(old["files"]) - set(new["files"])):
        lines.append("file no longer written: %s" % f)
    return lines


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--diff":
        with open(sys.argv[2]) as a, open(sys.argv[3]) as b:
            print("\n".join(diff(json.load(a), json.load(b))) or "no change")
        return 0
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    json.dump(inventory(sys.argv[1], sys.argv[2:]), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
