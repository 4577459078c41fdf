#!/usr/bin/env bash
# benches/peers/compare.sh run of 2026-11-30T12:10:01Z, the exact commands in the order they ran, from the repo root
# invoked as: bash benches/peers/compare.sh --rows 100000 --threads 4 --value-size 1000 --zk 127.0.0.1:2181 --table peer_bench --presplit 0 --tools hbclient-async\,hbclient-blocking\,pe\,pe-async\,gohbase --warmup 0 
target/release/hbclient-bench run sequentialWrite --mode buffered --target zk:127.0.0.1:2181 --table peer_bench --rows 100000 --concurrency 8 --value-size 1000 --warmup 0 --recreate --no-progress --output benches/results/2026-11-30/peers-121001/load 
target/release/hbclient-bench run randomWrite --mode async --target zk:127.0.0.1:2181 --table peer_bench --rows 100000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-121001/hbclient-async-randomWrite 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
target/release/hbclient-bench run randomRead --mode async --target zk:127.0.0.1:2181 --table peer_bench --rows 100000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-121001/hbclient-async-randomRead --skip-load --compare-raw false 
target/release/hbclient-bench run randomWrite --mode blocking --target zk:127.0.0.1:2181 --table peer_bench --rows 100000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-121001/hbclient-blocking-randomWrite 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
target/release/hbclient-bench run randomRead --mode blocking --target zk:127.0.0.1:2181 --table peer_bench --rows 100000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-121001/hbclient-blocking-randomRead --skip-load --compare-raw false 
bash benches/peers/pe.sh run randomWrite --zk 127.0.0.1:2181 --table peer_bench --rows 100000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-121001/pe-randomWrite.json 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
bash benches/peers/pe.sh run randomRead --zk 127.0.0.1:2181 --table peer_bench --rows 100000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-121001/pe-randomRead.json 
bash benches/peers/pe.sh run asyncRandomWrite --zk 127.0.0.1:2181 --table peer_bench --rows 100000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-121001/pe-async-randomWrite.json 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
bash benches/peers/pe.sh run asyncRandomRead --zk 127.0.0.1:2181 --table peer_bench --rows 100000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-121001/pe-async-randomRead.json 
benches/peers/gohbase/gohbase-bench -zk 127.0.0.1:2181 -table peer_bench -workload randomWrite -rows 100000 -clients 4 -value-size 1000 -warmup 0 -output benches/results/2026-11-30/peers-121001/gohbase-randomWrite.json 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
benches/peers/gohbase/gohbase-bench -zk 127.0.0.1:2181 -table peer_bench -workload randomRead -rows 100000 -clients 4 -value-size 1000 -warmup 0 -output benches/results/2026-11-30/peers-121001/gohbase-randomRead.json 
