#!/usr/bin/env bash
# Checks the rule "only the store speaks SQL": no source file of a host module other than
# store/ holds SQL text, includes the SQLite layer or reaches for the store's connection. The
# fleet module is the PostgreSQL engine: its SQL is PostgreSQL's, and it must not touch SQLite
# (it reads the local store through the store's read API).
# usage: sql_stays_in_store.sh <host/lib directory>; exit 1 listing each offending line.
set -euo pipefail
lib=${1:?usage: sql_stays_in_store.sh <host/lib directory>}
sqlite='\bdatabase\(\)|#include "store/database\.hpp"|sqlite3'
pattern='R"sql\(|\b(SELECT|INSERT INTO|DELETE FROM|CREATE (TABLE|INDEX|TRIGGER|VIRTUAL TABLE)|PRAGMA)\b|\bUPDATE [a-z_]+ SET\b|'$sqlite
found=$(find "$lib" -mindepth 2 \( -name '*.cpp' -o -name '*.hpp' \) -not -path "$lib/store/*" \
          -not -path "$lib/fleet/*" -print0 | xargs -0 grep -HnE "$pattern" || true)
if [ -d "$lib/fleet" ]; then
  found+=$(find "$lib/fleet" \( -name '*.cpp' -o -name '*.hpp' \) -print0 |
             xargs -0 grep -HnE "$sqlite" || true)
fi
if [ -n "$found" ]; then
  echo "SQL outside host/lib/store (ask the store for it instead):"
  echo "$found"
  exit 1
fi
echo "no SQL outside $lib/store (and PostgreSQL's only in $lib/fleet)"
