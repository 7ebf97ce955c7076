#!/bin/sh
# cidkit bench percpu: JSON shape, the human table, --help, the fallback
# forced on, and every bad input path.
CIDKIT=${1:?usage: bench_percpu.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

check_json='
import json, sys
r = json.load(sys.stdin)["results"]
whats = [x["what"] for x in r]
want = ["rseq-add:cpu", "rseq-add:mm_cid", "rseq-counter:cpu", "rseq-counter:mm_cid",
        "atomic-fallback", "mm_cid+atomic"]
want += ["lease:" + p for p in ("bitmap", "lazy", "lazy-batched", "cache-local", "inherit", "ownership")]
want += ["shared-atomic", "mutex"]
want += [op + ":" + ix for op in ("add_on", "cmpeqv_relaxed_on", "cmpeqv_cmpeqv_on", "trystorev_on")
         for ix in ("cpu", "mm_cid")] + ["trystorev_release_on:cpu"]
want += ["trymemcpy16_on:cpu", "trymemcpy16_on:mm_cid", "trymemcpy16_release_on:cpu"]
want += [op + ":" + ix for op in ("pop+push", "deref_addv") for ix in ("cpu", "mm_cid")]
want += ["atomic:" + op for op in ("cmpeqv_cmpeqv", "trystorev", "trymemcpy16", "deref_addv")]
assert whats == want, whats
for x in r:
    assert set(x) == {"what", "threads", "ns_per_op", "aborts", "path"}, x
    assert x["threads"] == 2 and x["ns_per_op"] > 0, x
    assert isinstance(x["aborts"], int) and x["aborts"] >= 0, x
    assert x["path"] in ("rseq", "atomic", "-"), x
path = {x["what"]: x["path"] for x in r}
assert path["atomic-fallback"] == "atomic"
assert all(path[w] == "atomic" for w in whats if w.startswith("atomic"))
if len(sys.argv) > 1:
    assert path["rseq-add:cpu"] == sys.argv[1] == path["rseq-add:mm_cid"], path
    assert path["rseq-counter:cpu"] == sys.argv[1] == path["rseq-counter:mm_cid"], path
    assert all(path[w] == sys.argv[1] for w in whats if w.endswith((":cpu", ":mm_cid"))
               and not w.startswith("lease")), path
'

run bench percpu --threads 2 --iters 2000 --reps 3 --json
[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s' "$out" | python3 -c "$check_json"
ok $? "--json: every row in order, {what, threads, ns_per_op, aborts, path}"

out=$(CIDK_PERCPU=atomic "$CIDKIT" bench percpu --threads 2 --iters 2000 --reps 2 --json)
rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c "$check_json" atomic
ok $? "CIDK_PERCPU=atomic: the rseq rows run the fallback and say so"

run bench percpu --threads 1 --iters 1000 --reps 2
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^rseq-add:cpu *1 .* 1.00x' &&
	printf '%s\n' "$out" | grep -q '^mutex *1 '
ok $? "human table: ratios to rseq-add:cpu, one thread"

run bench percpu --help
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^usage: cidkit bench percpu'
ok $? "--help: usage on stdout, exit 0"

expect_usage_error "--threads 0" bench percpu --threads 0
expect_usage_error "--threads x" bench percpu --threads x
expect_usage_error "--iters 0" bench percpu --iters 0
expect_usage_error "--reps -1" bench percpu --reps -1
expect_usage_error "--iters without value" bench percpu --iters
expect_usage_error "unknown option" bench percpu --bogus
expect_usage_error "extra argument" bench percpu extra
done_testing
