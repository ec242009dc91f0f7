#!/usr/bin/env python3
"""Assign corpus cases to the tuning or held-out split, once.

Ids already in split.tsv keep their split (it is frozen when committed). New ids are drawn at random:
within each expected rule (and the look-alikes), a third of the new cases, rounded up, go to
held-out. The draw uses the operating system's randomness, so nobody picks which cases are held out.

`split.py` draws for corpus/cases/*.yaml into corpus/split.tsv; `split.py pastes` for corpus/pastes/cases.yaml
into corpus/pastes/split.tsv.
"""
import glob, os, random, sys, yaml

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 1:
    here = os.path.join(here, sys.argv[1])
path = os.path.join(here, "split.tsv")
split = {}
header = None
if os.path.exists(path):
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("#") and header is None:
            header = [line]
        if line and not line.startswith("#"):
            i, s = line.split("\t")
            split[i] = s
cases = []
for f in sorted(glob.glob(os.path.join(here, "cases", "*.yaml"))) + glob.glob(os.path.join(here, "cases.yaml")):
    cases += yaml.safe_load(open(f)) or []
new = {}
for c in cases:
    if c["id"] not in split:
        new.setdefault(c["expect"], []).append(c["id"])
rng = random.SystemRandom()
for rule, ids in sorted(new.items()):
    rng.shuffle(ids)
    k = -(-len(ids) // 3)
    for n, i in enumerate(ids):
        split[i] = "heldout" if n < k else "tuning"
    print(f"{rule}: {len(ids)} new, {k} held out", file=sys.stderr)
header = header or ["# id<TAB>split: frozen when committed; new ids are appended by corpus/split.py"]
with open(path, "w") as out:
    out.write("\n".join(header) + "\n")
    for i in sorted(split):
        out.write(f"{i}\t{split[i]}\n")
