#!/usr/bin/env bash
# benches/peers/compare.sh run of 2026-11-30T11:39:43Z, the exact commands in the order they ran, from the repo root
# invoked as: bash benches/peers/compare.sh --rows 2000 --threads 4 --value-size 1000 --zk 127.0.0.1:2181 --table peer_bench --presplit 0 --tools hbclient-async\,hbclient-blocking\,pe\,pe-async\,gohbase --warmup 0 
target/release/hbclient-bench run sequentialWrite --mode buffered --target zk:127.0.0.1:2181 --table peer_bench --rows 2000 --concurrency 8 --value-size 1000 --warmup 0 --recreate --no-progress --output benches/results/2026-11-30/peers-113943/load 
target/release/hbclient-bench run randomWrite --mode async --target zk:127.0.0.1:2181 --table peer_bench --rows 2000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-113943/hbclient-async-randomWrite 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
target/release/hbclient-bench run randomRead --mode async --target zk:127.0.0.1:2181 --table peer_bench --rows 2000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-113943/hbclient-async-randomRead --skip-load --compare-raw false 
target/release/hbclient-bench run randomWrite --mode blocking --target zk:127.0.0.1:2181 --table peer_bench --rows 2000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-113943/hbclient-blocking-randomWrite 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
target/release/hbclient-bench run randomRead --mode blocking --target zk:127.0.0.1:2181 --table peer_bench --rows 2000 --concurrency 4 --value-size 1000 --warmup 0 --no-progress --output benches/results/2026-11-30/peers-113943/hbclient-blocking-randomRead --skip-load --compare-raw false 
bash benches/peers/pe.sh run randomWrite --zk 127.0.0.1:2181 --table peer_bench --rows 2000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-113943/pe-randomWrite.json 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
bash benches/peers/pe.sh run randomRead --zk 127.0.0.1:2181 --table peer_bench --rows 2000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-113943/pe-randomRead.json 
bash benches/peers/pe.sh run asyncRandomWrite --zk 127.0.0.1:2181 --table peer_bench --rows 2000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-113943/pe-async-randomWrite.json 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
bash benches/peers/pe.sh run asyncRandomRead --zk 127.0.0.1:2181 --table peer_bench --rows 2000 --threads 4 --value-size 1000 --output benches/results/2026-11-30/peers-113943/pe-async-randomRead.json 
benches/peers/gohbase/gohbase-bench -zk 127.0.0.1:2181 -table peer_bench -workload randomWrite -rows 2000 -clients 4 -value-size 1000 -warmup 0 -output benches/results/2026-11-30/peers-113943/gohbase-randomWrite.json 
bash benches/peers/pe.sh settle peer_bench --zk 127.0.0.1:2181 
benches/peers/gohbase/gohbase-bench -zk 127.0.0.1:2181 -table peer_bench -workload randomRead -rows 2000 -clients 4 -value-size 1000 -warmup 0 -output benches/results/2026-11-30/peers-113943/gohbase-randomRead.json 
bash benches/peers/pe.sh drop peer_bench --zk 127.0.0.1:2181 
