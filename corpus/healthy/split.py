#!/usr/bin/env python3
"""Add sourced healthy node log lines to lines.tsv and give each new source a split, once.

    python3 corpus/healthy/split.py NEW.tsv      (NEW.tsv: header `source<TAB>program<TAB>line`)

Sources already in lines.tsv keep their split (frozen when committed); a new source's lines all go to the
same split, a third of the new sources (rounded up) to held-out, drawn with the operating system's randomness
so that nobody picks which. Exact duplicate lines are dropped.
"""
import os, random, sys

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "lines.tsv")
rows, split = [], {}
if os.path.exists(path):
    for line in open(path, encoding="utf-8").read().split("\n")[1:]:
        if line:
            src, prog, sp, text = line.split("\t", 3)
            rows.append((src, prog, sp, text))
            split[src] = sp
seen = {r[3] for r in rows}
new = []
for line in open(sys.argv[1], encoding="utf-8").read().split("\n")[1:]:
    if line:
        src, prog, text = line.split("\t", 2)
        if text not in seen:
            seen.add(text)
            new.append((src, prog, text))
fresh = sorted({s for s, _, _ in new if s not in split})
rng = random.SystemRandom()
rng.shuffle(fresh)
k = -(-len(fresh) // 3)
for n, s in enumerate(fresh):
    split[s] = "heldout" if n < k else "tuning"
rows += [(s, p, split[s], t) for s, p, t in new]
with open(path, "w", encoding="utf-8") as out:
    out.write("source\tprogram\tsplit\tline\n")
    for r in rows:
        out.write("\t".join(r) + "\n")
print(f"{len(new)} new lines, {len(fresh)} new sources ({k} held out)", file=sys.stderr)
