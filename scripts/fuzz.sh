#!/usr/bin/env bash
# Run every cargo-fuzz target for a bounded time (default 20 s each; FUZZ_SECONDS to change).
# Installs cargo-fuzz from crates.io if missing; needs the nightly toolchain (rustup).
# Corpora are seeded from the examples and fixtures; a crash leaves its input in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${FUZZ_SECONDS:-20}
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz >/dev/null
rustup toolchain list | grep -q nightly || { echo "fuzz: no nightly toolchain" >&2; exit 3; }
seed() { mkdir -p "fuzz/corpus/$1"; shift; for f in "$@"; do [ -f "$f" ] && cp "$f" "fuzz/corpus/$(basename "$(dirname "$f")")-$(basename "$f")" 2>/dev/null || true; done; }
mkdir -p fuzz/corpus/{log_line,log_scan,kubectl_output,dump_list,archive,signatures,container_hash,fix_plan,watch_line}
for f in examples/*/_nodes/*/*; do head -c 4096 "$f" > "fuzz/corpus/log_scan/$(echo "$f" | tr / _)"; head -n 1 "$f" > "fuzz/corpus/log_line/$(echo "$f" | tr / _)"; done
for f in examples/*/*/pods.json examples/*/*/events.json examples/*/nodes.json; do
  head -c 65536 "$f" > "fuzz/corpus/kubectl_output/$(echo "$f" | tr / _)"
  head -c 65536 "$f" > "fuzz/corpus/dump_list/$(echo "$f" | tr / _)"
done
# kubectl describe pod/node text goes through the same reader (sniffed first).
for f in crates/unstuck/tests/fixtures/describe/*.txt; do cp "$f" "fuzz/corpus/kubectl_output/describe-$(basename "$f")"; done
# So do kubectl get tables and terminal sessions (a manifest between commands).
for f in crates/unstuck/tests/fixtures/tables/*.txt; do cp "$f" "fuzz/corpus/kubectl_output/tables-$(basename "$f")"; done
{ echo '$ kubectl get pod web-0 -o json'; head -c 2048 examples/mixed-cluster/shop/pods.json; printf '\n$ kubectl get nodes\nNAME   STATUS   ROLES   AGE   VERSION\nn1     Ready    <none>  9d    v1.30.1\n'; } > fuzz/corpus/kubectl_output/session.txt
cp crates/unstuck-logs/src/signatures.yaml fuzz/corpus/signatures/builtin.yaml
python3 -c "
import json
for i, c in enumerate(json.load(open('crates/unstuck-hash/tests/vectors/corpus.json'))):
    open(f'fuzz/corpus/container_hash/c{i}.json','w').write(json.dumps(c))"
tar czf fuzz/corpus/archive/healthy.tar.gz -C examples healthy-cluster
for e in seed-001-node-problems seed-002-node-lost-recreate mixed-cluster; do
  cargo run -q -p unstuck -- fix "examples/$e" --allow cordon --allow out-of-service --allow force-delete --allow remove-finalizers --allow delete \
    --allow remove-out-of-service --allow uncordon -o json > "fuzz/corpus/fix_plan/$e.json" || [ $? -eq 1 ]
done
python3 -c "
import json
for f in ['examples/mixed-cluster/shop/pods.json', 'examples/mixed-cluster/shop/events.json', 'examples/mixed-cluster/nodes.json']:
    items = json.load(open(f))['items']
    stem = f.split('/')[-1][:-5]
    k = ['nodes','pods','events'].index(stem)
    lines = [json.dumps({'type': t, 'object': o}) for o in items[:3] for t in ('ADDED', 'MODIFIED')]
    lines += [json.dumps({'type': 'DELETED', 'object': items[0]}), json.dumps({'type': 'BOOKMARK', 'object': {'metadata': {'resourceVersion': '9'}}})]
    lines.append(json.dumps({'type': 'ERROR', 'object': {'kind': 'Status', 'code': 410, 'reason': 'Expired', 'message': 'too old'}}))
    open(f'fuzz/corpus/watch_line/{stem}', 'wb').write(bytes([k]) + '\\n'.join(lines).encode())"
total=0
for t in log_line log_scan kubectl_output dump_list archive signatures container_hash fix_plan watch_line; do
  echo "== fuzz $t for ${SECS}s"
  out=$(cargo +nightly fuzz run "$t" "fuzz/corpus/$t" -- -max_total_time="$SECS" -rss_limit_mb=2048 -max_len=262144 2>&1) || { echo "$out" | tail -30; echo "fuzz: $t FAILED (input in fuzz/artifacts/$t)" >&2; exit 1; }
  runs=$(echo "$out" | grep -oE 'Done [0-9]+ runs' | grep -oE '[0-9]+' || echo 0)
  echo "fuzz $t: $runs executions in ${SECS}s, no crash"
  total=$((total + runs))
done
echo "fuzz: $total executions, 0 crashes"
