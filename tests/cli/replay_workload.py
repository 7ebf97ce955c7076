#!/usr/bin/env python3
"""What a recorded `cidkit cid --churn/--affinity` did, read from the trace
text alone (an independent reader, not cidkit's): the group's users over
time and the forced moves.

usage: replay_workload.py TRACE    prints one line
  threads=T waves=W peak=P trough=U forced_moves=M

threads: forks of a thread of the group (the header's thread list);
waves: times the users rose from 1 (the main thread alone) to their peak;
peak, trough: the largest users count, the smallest after the first fork;
forced_moves: sched_migrate_task lines of a worker thread that the main
thread itself executed (sched_setaffinity moving a queued thread; its only
other moves are the wake-ups of the first wave, at most one per thread),
or that a migration/N task (the stopper) executed on the thread's
orig_cpu right after preempting it there (a running thread moved).
"""
import re
import sys

LINE = re.compile(r'^\s*(?P<comm>.+)-(?P<pid>\d+)\s+(\(\s*[-\d]+\)\s+)?'
                  r'\[(?P<cpu>\d+)\]\s+(\S+\s+)?[\d.]+:\s+(?P<ev>\w+):\s*(?P<f>.*)$')


def fields(s):
    return dict(re.findall(r'(\w+)=(\S+)', s))


def main():
    tgid, threads = None, set()
    users, peak, trough, waves, forks, moves = 1, 1, None, 0, 0, 0
    curr = {}        # cpu -> (comm, pid) running
    preempted = {}   # cpu -> pid the stopper preempted there
    at_one = True
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith('# cidkit-trace: kernel='):
                h = fields(line)
                tgid = int(h['tgid'])
                threads = {int(p) for p in h['threads'].split(',')}
                continue
            m = LINE.match(line)
            if not m:
                continue
            cpu, ev, f_ = int(m['cpu']), m['ev'], fields(m['f'])
            if ev == 'sched_switch':
                nxt = (re.search(r'next_comm=(.*) next_pid=', m['f']).group(1),
                       int(f_['next_pid']))
                prev = int(f_['prev_pid'])
                if nxt[0].startswith('migration/') and prev in threads:
                    preempted[cpu] = prev
                else:
                    preempted.pop(cpu, None)
                curr[cpu] = nxt
            elif ev == 'sched_process_fork':
                child = int(f_['child_pid'])
                if child in threads and child != tgid:
                    forks += 1
                    users += 1
                    if at_one and users > 1:
                        waves += 1
                    at_one = False
                    peak = max(peak, users)
            elif ev == 'sched_process_exit':
                pid = int(f_['pid'])
                if pid in threads and pid != tgid:
                    users -= 1
                    trough = users if trough is None else min(trough, users)
                    at_one = users == 1
            elif ev == 'sched_migrate_task':
                pid = int(f_['pid'])
                if pid not in threads or pid == tgid:
                    continue
                if int(m['pid']) == tgid:
                    moves += 1
                elif (int(f_['orig_cpu']) == cpu
                        and curr.get(cpu, ('', 0))[0].startswith('migration/')
                        and preempted.get(cpu) == pid):
                    moves += 1
    print('threads=%d waves=%d peak=%d trough=%d forced_moves=%d'
          % (forks, waves, peak, trough if trough is not None else 0, moves))


main()
