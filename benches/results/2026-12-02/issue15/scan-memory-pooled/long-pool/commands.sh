# benches/scan_memory.sh run of 2026-12-02T04:41:37Z
/tmp/sm/bench-pool run sequentialWrite --mode buffered --target rpc:127.0.0.1:35671 --table scan_mem --rows 1000000 --concurrency 8 --value-size 1000 --warmup 0 --no-progress
/tmp/sm/bench-pool run scan --target rpc:127.0.0.1:35671 --table scan_mem --rows 1000000 --value-size 1000 --skip-load --concurrency 1 --warmup 0 --duration 200 --max-result-size 8388608 --prefetch 2 --consumer-delay-us 20 --no-progress --output /tmp/sm/long-pool/json
/tmp/sm/bench-pool run scan --target rpc:127.0.0.1:35671 --table scan_mem --rows 1000000 --value-size 1000 --skip-load --concurrency 1 --warmup 0 --duration 200 --max-result-size 8388608 --prefetch 4 --consumer-delay-us 20 --no-progress --output /tmp/sm/long-pool/json
