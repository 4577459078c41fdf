#!/bin/bash
cd /work/wt/blocking
for r in 1 2; do
  for lib in base new; do
    if [ $lib = base ]; then p=/tmp/ffi-base; else p=/work/wt/blocking/target/ffi-bench/prefix; fi
    LIB_PREFIX=$p bash benches/ffi/run.sh 1 8 1 100 1000 2>/dev/null | grep -v "^mode" | sed "s/^/$lib\t$r\t/"
  done
done
