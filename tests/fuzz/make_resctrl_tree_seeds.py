#!/usr/bin/env python3
# Seeds for fuzz_resctrl_tree (the format is in fuzz_resctrl_tree.c): two
# header bytes (event mask | resource << 3, domain id), then NUL-separated
# "path\x01content" records under r/ (resctrl root) and s/ (sysfs root);
# a record "\x03" ends what the first sample sees.  Run from the
# repository root:  python3 tests/fuzz/make_resctrl_tree_seeds.py
# The records are tests/support/fake_tree.py's descriptions.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import fake_tree  # noqa: E402
from fake_tree import DIR, FIFO, PHASE2, RM  # noqa: E402

OUT = "tests/fuzz/corpus/resctrl_tree"
CPU = "s/devices/system/cpu"
EV = ("mbm_total_bytes", "mbm_local_bytes", "llc_occupancy")
L3, L2, PKG, MB = 0, 1, 2, 3


def sysfs(ncpus, l3=lambda c: 0, online=None):
    """CPU c: an L2 of id c (index0), an L3 of id l3(c) (index1)."""
    return fake_tree.sysfs(ncpus, [(0, 2, lambda c: c), (1, 3, l3)],
                           online=online, prefix=CPU)


def group(prefix, dom, vals, res="L3"):
    return [("r/%smon_data/mon_%s_%s/%s" % (prefix, res, dom, e), v)
            for e, v in zip(EV, vals)]


def seed(name, recs, events=0, res=L3, dom=0):
    out = bytes([events | res << 3, dom]) + fake_tree.encode(recs)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(out)


os.makedirs(OUT, exist_ok=True)
seed("minimal", sysfs(1) + group("", "00", ("1000\n", "500\n", "65536\n")))
two = (sysfs(4, lambda c: c // 2)
       + group("", "00", ("1000\n", "400\n", "8192\n"))
       + group("", "01", ("2000\n", "800\n", "4096\n"))
       + group("mon_groups/g1/", "00", ("10\n", "5\n", "0\n"))
       + group("mon_groups/g1/", "01", ("20\n", "7\n", "0\n"))
       + group("c1/", "00", ("30\n", "3\n", "64\n"))
       + group("c1/mon_groups/m1/", "01", ("40\n", "4\n", "128\n")))
seed("two-groups-two-domains", two, dom=1)
seed("two-samples", two + [PHASE2]
     + group("", "00", ("3000\n", "300\n", "8192\n"))  # local went back
     + group("mon_groups/g1/", "01", ("Unavailable\n", "9\n", "0\n"))
     + [("r/c1", RM)]
     + group("mon_groups/g2/", "00", ("1\n", "1\n", "1\n")))
seed("values", sysfs(2) + group("", "00", ("Unavailable\n", "Error\n",
                                             "Unassigned\n"))
     + group("", "01", ("18446744073709551615\n", "18446744073709551616\n",
                        "\n"))
     + group("", "02", ("12 \n", "0x10\n", "00000000000000000000007"))
     + group("", "03", ("1" * 70, "Unavailable\n\n", "-1\n"))
     + group("", "04", ("0000000000000000007\n", "007", "0\n"))
     + group("", "05", ("000000000000000000001", "00000000000000000001\n",
                        "000000000000000000001\n")))
seed("values-two-events", sysfs(1) + group("", "00", ("1\n", "2\n", "3\n"))
     + [PHASE2] + group("", "00", ("0\n", "5\n", "Error\n")), events=5)
seed("fifo-counter", sysfs(1) + [("r/mon_data/mon_L3_00/mbm_total_bytes",
                                  FIFO),
                                 ("r/mon_data/mon_L3_00/mbm_total_bytes",
                                  "5\n")]
     + [("r/mon_data/mon_L3_00/llc_occupancy", "7\n")])
seed("dir-counter", sysfs(1) + [("r/mon_data/mon_L3_00/mbm_total_bytes/x",
                                 "1\n"),
                                ("r/mon_data/mon_L3_01", "not a dir\n"),
                                ("r/mon_groups/g", "a file\n"),
                                ("r/c9/mon_data", "a file\n"),
                                ("r/mon_data/mon_L3_00/mbm_local_bytes",
                                 DIR)])
seed("online-fifo", [(CPU + "/online", FIFO)] + group("", "00", ("1\n",) * 3))
seed("online-dir", [(CPU + "/online", DIR)] + group("", "00", ("1\n",) * 3))
seed("online-missing", [(CPU + "/cpu0/cache/index0/level", "3\n")]
     + group("", "00", ("1\n",) * 3))
seed("online-huge", sysfs(1, online="0-9999999\n")
     + group("", "00", ("1\n",) * 3))
seed("online-garbled", sysfs(1, online="0-\x01,,zz\n")
     + group("", "00", ("1\n",) * 3))
seed("absurd-domain", sysfs(2, lambda c: [4294967296, 99999999999999999999][c])
     + group("", "4294967296", ("1\n",) * 3)
     + group("", "1000000009", ("2\n",) * 3)
     + group("", "1000000010", ("3\n",) * 3)
     + group("", "99999999999999999999999", ("4\n",) * 3)
     + group("", "", ("5\n",) * 3)
     + [("r/mon_data/mon__7/llc_occupancy", "6\n"),
        ("r/mon_data/mon_L3_-1/llc_occupancy", "6\n")], dom=255)
seed("alias-domain", sysfs(1) + group("", "0", ("1\n",) * 3)
     + group("", "00", ("2\n",) * 3) + group("", "000", ("3\n",) * 3)
     + [PHASE2, ("r/mon_data/mon_L3_00", RM)])
seed("resources", sysfs(4, lambda c: c % 2)
     + group("", "00", ("1\n",) * 3, res="L2")
     + group("", "01", ("2\n",) * 3, res="PERF_PKG")
     + group("", "01", ("3\n",) * 3, res="MB")
     + group("", "00", ("4\n",) * 3, res="SNC_X_Y"), res=PKG, dom=1)
seed("mon-data-gone", sysfs(1) + group("", "00", ("1\n",) * 3)
     + [PHASE2, ("r/mon_data", RM)])
seed("no-mon-data", sysfs(1) + [("r/mon_groups/g/mon_data/mon_L3_00/"
                                 "llc_occupancy", "1\n")])
seed("root-is-file", sysfs(1) + [("r", "a file\n")])
seed("sysfs-is-file", [("s", "a file\n")] + group("", "00", ("1\n",) * 3))
seed("hidden-and-info", sysfs(1) + group("", "00", ("1\n",) * 3)
     + group(".hidden/", "00", ("2\n",) * 3)
     + group("info/", "00", ("3\n",) * 3)
     + group("mon_groups/.h/", "00", ("4\n",) * 3)
     + [("r/info/L3_MON/num_rmids", "128\n"),
        ("r/mon_data/mon_L3_00/mon_sub_L3_00/llc_occupancy", "9\n")])
deep = "/".join("d%d" % i for i in range(14))
seed("deep", sysfs(1)
     + [("r/mon_data/mon_L3_00/" + deep, "1\n"),
        ("r/" + deep, "1\n"),
        ("r/g/mon_groups/m/mon_data/mon_L3_00/a/b/c/d/e/f/g/h/i", "1\n"),
        ("s/devices/system/cpu/cpu0/cache/index0/" + deep[:30], "3\n"),
        ("r/a/" + deep + "/d14/d15/too-deep", "1\n")]
     + group("", "00", ("1\n",) * 3))
