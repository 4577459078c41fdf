# benches/scan_memory.sh run of 2026-12-02T03:53:17Z
target/release/hbclient-bench run sequentialWrite --mode buffered --target rpc:127.0.0.1:38893 --table scan_mem --rows 1000000 --concurrency 8 --value-size 1000 --warmup 0 --no-progress
target/release/hbclient-bench run scan --target rpc:127.0.0.1:38893 --table scan_mem --rows 1000000 --value-size 1000 --skip-load --concurrency 1 --warmup 0 --duration 200 --max-result-size 8388608 --prefetch 2 --consumer-delay-us 20 --no-progress --output /tmp/sm/long/json
target/release/hbclient-bench run scan --target rpc:127.0.0.1:38893 --table scan_mem --rows 1000000 --value-size 1000 --skip-load --concurrency 1 --warmup 0 --duration 200 --max-result-size 8388608 --prefetch 4 --consumer-delay-us 20 --no-progress --output /tmp/sm/long/json
