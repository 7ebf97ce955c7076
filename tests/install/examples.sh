# tests/install/examples.sh - what the two installed examples must print,
# from values worked out outside libcidkit; sourced by install.sh (the
# examples linked with the full build's libcidkit.so) and libonly.sh (a
# library-only build's, linked shared and static).  Needs tests/cli/tap.sh
# (ok, $tmp) and $SRC.
#   examples_check PERCPU_COUNTER TOPO_WALK LABEL
# LABEL prefixes each test's name ("" or e.g. "static: ").
examples_check() {
	ex_pc=$1 ex_tw=$2 ex_label=$3
	ex_tag=$(printf %s "$3" | tr -cd a-z)
	# The counter: 4 threads x 200000 increments, the sum exact.
	"$ex_pc" 4 200000 >"$tmp/pc$ex_tag.out" 2>&1
	rc=$?
	grep -qx "total 800000 (expected 800000)" "$tmp/pc$ex_tag.out" && [ $rc -eq 0 ]
	ok $? "${ex_label}percpu_counter: 4 x 200000 increments sum to exactly 800000" "$tmp/pc$ex_tag.out"
	grep -Eq "^path (rseq|atomic) \(" "$tmp/pc$ex_tag.out"
	ok $? "${ex_label}percpu_counter names its path ($(sed -n 's/^path //p' "$tmp/pc$ex_tag.out"))" "$tmp/pc$ex_tag.out"
	CIDK_PERCPU=atomic "$ex_pc" 3 100000 >"$tmp/pc2$ex_tag.out" 2>&1
	grep -qx "total 300000 (expected 300000)" "$tmp/pc2$ex_tag.out" &&
		grep -q "^path atomic " "$tmp/pc2$ex_tag.out"
	ok $? "${ex_label}percpu_counter with CIDK_PERCPU=atomic: 300000, atomic path" "$tmp/pc2$ex_tag.out"
	"$ex_pc" 0 >"$tmp/pc3$ex_tag.out" 2>&1
	[ $? -eq 2 ]
	ok $? "${ex_label}percpu_counter 0: refused, exit 2" "$tmp/pc3$ex_tag.out"

	# The topology walk against expected values from outside libcidkit (issue
	# 23: comparing it with `cidkit topo --json` compared the library with
	# itself, and an LLC read from the wrong cache level passed).  For each
	# saved tree of tests/data/sysfs that is span-sane, the lines topo_walk
	# must print come from the tree's hand-worked <tree>.groups.json
	# (make-trees.py; not captured from cidkit): one line per llc group in
	# order of lowest CPU, its CPU count, and its cores = the smt groups inside
	# it; "llc: none (N online CPUs)" for a tree without an llc level.  For
	# this machine, from /sys read here in Python (the kernel's ABI: the
	# highest-level Data or Unified cache index, Unified winning a tie, its
	# shared_cpu_list; the core from core_cpus_list or thread_siblings_list).
	trees=""
	for g in "$SRC"/tests/data/sysfs/*.groups.json; do
		name=$(basename "$g" .groups.json)
		[ "$name" = insane-llc ] || trees="$trees $SRC/tests/data/sysfs/$name"
	done
	# shellcheck disable=SC2086
	python3 - "$ex_tw" /sys $trees >"$tmp/walks$ex_tag" 2>&1 <<-'PY'
	import glob, json, os, subprocess, sys
	walk_exe = sys.argv[1]
	def cpus(lst):
	    s = set()
	    for part in filter(None, lst.strip().split(",")):
	        a, _, b = part.partition("-")
	        s.update(range(int(a), int(b or a) + 1))
	    return s
	def cpulist(s):
	    s, out, i = sorted(s), [], 0
	    while i < len(s):
	        j = i
	        while j + 1 < len(s) and s[j + 1] == s[j] + 1:
	            j += 1
	        out.append(str(s[i]) if i == j else "%d-%d" % (s[i], s[j]))
	        i = j + 1
	    return ",".join(out)
	def lines(nr_online, llc, smt):
	    """What topo_walk prints, from llc and smt groups (sets of CPUs)."""
	    if llc is None:
	        return ["llc: none (%d online CPUs)" % nr_online]
	    llc = sorted(llc, key=min)
	    return ["llc %d: cpus %s (%d cpus, %d cores)" %
	            (i, cpulist(g), len(g), sum(1 for c in smt if c <= g))
	            for i, g in enumerate(llc)]
	def from_fixture(root):
	    d = json.load(open(root + ".groups.json"))
	    lv = {l["name"]: [cpus(g) for g in l["groups"]] for l in d["levels"]}
	    return lines(d["nr_cpus"], lv.get("llc"), lv["smt"])
	def from_sys(root):
	    base = root + "/devices/system/cpu"
	    online = cpus(open(base + "/online").read())
	    def rd(p):
	        with open(p) as f:
	            return f.read().strip()
	    llc, smt = set(), set()
	    for c in sorted(online):
	        t = base + "/cpu%d/topology/" % c
	        f = t + "core_cpus_list"
	        smt.add(frozenset(cpus(rd(f if os.path.exists(f) else t + "thread_siblings_list")) & online))
	        best = None
	        for idx in glob.glob(base + "/cpu%d/cache/index*" % c):
	            if not (os.path.exists(idx + "/type") and os.path.exists(idx + "/level")):
	                continue
	            typ, lvl = rd(idx + "/type"), int(rd(idx + "/level"))
	            if typ == "Instruction":
	                continue
	            key = (lvl, typ == "Unified")
	            if best is None or key > best[0]:
	                best = (key, idx)
	        if best:
	            llc.add(frozenset(cpus(rd(best[1] + "/shared_cpu_list")) & online))
	    return lines(len(online), [set(g) for g in llc] if llc else None,
	                 [set(g) for g in smt])
	for root in sys.argv[2:]:
	    want = from_sys(root) if root == "/sys" else from_fixture(root)
	    r = subprocess.run([walk_exe, root], capture_output=True, text=True)
	    got = r.stdout.splitlines()
	    if r.returncode == 0 and got == want:
	        print("PASS", root, "%d lines, first: %s" % (len(want), want[0]))
	    else:
	        print("FAIL", root, "exit %d, printed %r, expected %r" % (r.returncode, got, want))
	PY
	nroots=0
	while read -r verdict root what; do
		nroots=$((nroots + 1))
		echo "$verdict $root $what" >"$tmp/cmp$ex_tag"
		ok $([ "$verdict" = PASS ]; echo $?) "${ex_label}topo_walk $root: the expected LLC groups ($what)" "$tmp/cmp$ex_tag"
	done <"$tmp/walks$ex_tag"
	ok $([ $nroots -eq 13 ]; echo $?) "${ex_label}topo_walk compared on /sys and the 12 span-sane saved trees" "$tmp/walks$ex_tag"
	"$ex_tw" "$SRC/tests/data/sysfs/insane-llc" >"$tmp/walk$ex_tag.out" 2>"$tmp/walk$ex_tag.err"
	[ $? -eq 1 ] && grep -q "llc groups of cpus .* overlap" "$tmp/walk$ex_tag.err"
	ok $? "${ex_label}topo_walk refuses an insane tree" "$tmp/walk$ex_tag.err"
}
