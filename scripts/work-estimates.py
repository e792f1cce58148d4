#!/usr/bin/env python3
"""The agent-sessions lab's work estimate against its native run time.

A benchmark that prints, never a test (wall-clock on a busy machine is
noise): random configurations over the lab's ranges, each estimated
(`lblab agents --estimate`) and, when the estimate is 100 ms or more and the
run is not refused, run and timed. Prints the ratio run/estimate per
configuration and a summary. Needs `cargo build --release -p lblab`.

    python3 scripts/work-estimates.py [seed] [configurations]
"""
import random, subprocess, time, re, sys
random.seed(int(sys.argv[1]) if len(sys.argv)>1 else 1)
L=str(__import__('pathlib').Path(__file__).resolve().parents[1] / 'target/release/lblab')
rows=[]
for i in range(int(sys.argv[2]) if len(sys.argv)>2 else 30):
    args=['agents','--rate',str(round(random.uniform(0.05,5),2)),'--fanout',str(random.randint(1,64)),
          '--replicas',str(random.randint(1,16)),'--slots',str(random.choice([1,4,12,32,64,128,256])),
          '--seconds',str(random.choice([30,180,600,1200,1800])),'--cap',str(random.choice([0,0,4,16])),
          '--system',str(random.choice([0,3000,32768])),'--prefill',str(random.choice([1000,20000,200000])),
          '--tpot',str(random.choice([1,20,200])),'--tool',str(random.choice([0,1,10,60])),
          '--cache',str(random.choice([1000,200000,4000000])),'--prompts',str(random.choice([1,4,64]))]
    e=subprocess.run([L]+args+['--estimate'],capture_output=True,text=True).stdout
    m=re.search(r'about (\d+) ms',e)
    if not m or 'refused' in e: continue
    est=int(m.group(1))
    if est<100: continue
    t=time.time(); subprocess.run([L]+args+['--json'],capture_output=True); dt=(time.time()-t)*1000
    rows.append((dt/max(est,1),est,dt,' '.join(args)))
rows.sort()
for r in rows: print('%.2f est %d ms, ran %.0f ms  %s'%r)
ratios = [r[0] for r in rows]
if ratios:
    outside = sum(1 for x in ratios if x < 0.5 or x > 2)
    print(f"{len(ratios)} runs: run/estimate min {min(ratios):.2f}, median {sorted(ratios)[len(ratios)//2]:.2f}, max {max(ratios):.2f}; {outside} outside 0.5-2")
