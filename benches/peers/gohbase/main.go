// gohbase-bench: PE-style workloads against a real HBase through gohbase (github.com/tsuna/gohbase),
// the Go peer of hbclient-bench (benches/README.md, section "Peers"): randomWrite, sequentialWrite,
// randomRead, sequentialRead, scanRange10/100/1000 (one op = a scan of that many rows from a random
// key), scan and filterScan (each goroutine scans its share of the key space once, with -caching rows
// and -max-result-size bytes per RPC; filterScan adds a server-side RowFilter keeping keys that end in
// "00", i.e. dropping 99% of the rows). Batched writes are the write workloads with -rpc-queue-size > 1
// (gohbase groups queued Puts per region server into Multi RPCs) and many -clients.
//
// Same shape as PerformanceEvaluation and hbclient-bench: 26-digit zero-padded decimal row keys, family
// info0, qualifier "0", one value of -value-size random bytes per row. -clients goroutines share ONE
// gohbase client; each has one operation in flight. Client-side batching is off (gohbase.RpcQueueSize(1):
// every Get/Put is sent at once as its own RPC instead of waiting up to 20 ms to fill a Multi), so the
// latencies are per request.
//
// -rows is the key space AND the number of measured operations (as hbclient-bench without --duration),
// spread evenly over the goroutines. With -duration the goroutines instead repeat operations until it
// has passed (scan and filterScan: whole passes over their shares, as hbclient-bench --duration does),
// so that a pass over a small, cache-resident table still makes a phase long enough to measure.
// Latencies go into one sorted slice (exact percentiles). CPU is getrusage(RUSAGE_SELF) over the
// measured phase only; with HBCLIENT_BENCH_SERVER_PID set (compare.sh sets it to the HBase process), that
// process's CPU over the same phase too, from /proc/PID/stat, as hbclient-bench reads it. The JSON result has the same key fields as
// hbclient-bench's (result.ops_per_sec, result.latency.p50_us/p99_us, cpu.process_cpu_us_per_op).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/filter"
	"github.com/tsuna/gohbase/hrpc"
)

type latency struct {
	Count    int     `json:"count"`
	MeanUs   float64 `json:"mean_us"`
	StddevUs float64 `json:"stddev_us"`
	MinUs    int64   `json:"min_us"`
	P50Us    int64   `json:"p50_us"`
	P90Us    int64   `json:"p90_us"`
	P99Us    int64   `json:"p99_us"`
	P999Us   int64   `json:"p999_us"`
	MaxUs    int64   `json:"max_us"`
}

type phase struct {
	Ops        int     `json:"ops"`
	Errors     int     `json:"errors"`
	FirstError *string `json:"first_error"`
	Rows       int     `json:"rows"`
	Misses     int     `json:"misses"`
	ElapsedS   float64 `json:"elapsed_s"`
	OpsPerSec  float64 `json:"ops_per_sec"`
	RowsPerSec float64 `json:"rows_per_sec"`
	// scan and filterScan: rows in the scanned key space (the server reads them all)
	ScannedRows       int     `json:"scanned_rows,omitempty"`
	ScannedRowsPerSec float64 `json:"scanned_rows_per_sec,omitempty"`
	Latency           latency `json:"latency"`
}

type cpu struct {
	UserS    float64 `json:"process_user_s"`
	SysS     float64 `json:"process_sys_s"`
	UsPerOp  float64 `json:"process_cpu_us_per_op"`
	UsPerRow float64 `json:"process_cpu_us_per_row"`
	// The server process named by HBCLIENT_BENCH_SERVER_PID, over the measured phase.
	ServerUsPerOp  *float64 `json:"server_process_cpu_us_per_op,omitempty"`
	ServerUsPerRow *float64 `json:"server_process_cpu_us_per_row,omitempty"`
	Note           string   `json:"note"`
}

func main() {
	zk := flag.String("zk", "127.0.0.1:2181", "ZooKeeper quorum (hbase.zookeeper.quorum)")
	table := flag.String("table", "TestTable", "table")
	family := flag.String("family", "info0", "column family")
	workload := flag.String("workload", "randomWrite", "randomWrite | sequentialWrite | randomRead | sequentialRead | scanRange10 | scanRange100 | scanRange1000 | scan | filterScan")
	caching := flag.Int("caching", 1000, "scans: rows per scan RPC (hrpc.NumberOfRows)")
	maxResult := flag.Uint64("max-result-size", 2<<20, "scans: bytes per scan RPC (hrpc.MaxResultSize)")
	rows := flag.Int("rows", 100000, "key space, and number of measured operations unless -ops is given")
	opsFlag := flag.Int("ops", 0, "measured operations (0: -rows); e.g. -rows/100 for scanRange100")
	clients := flag.Int("clients", 1, "goroutines sharing one client, one operation in flight each")
	valueSize := flag.Int("value-size", 1000, "bytes per value")
	warmup := flag.Float64("warmup", 0, "unmeasured seconds of the same workload before the measured phase")
	seed := flag.Int64("seed", 42, "random seed (keys and values)")
	create := flag.Bool("create", false, "create the table (family -family) if it does not exist")
	queue := flag.Int("rpc-queue-size", 1, "gohbase.RpcQueueSize: 1 = no client-side batching (per-request latency)")
	codec := flag.String("compression", "", "cellblock compression codec (gohbase.CompressionCodec; gohbase knows \"snappy\"); default none")
	output := flag.String("output", "", "write the JSON result to this file (else only stdout)")
	timeout := flag.Duration("op-timeout", 30*time.Second, "per-operation context timeout")
	duration := flag.Duration("duration", 0, "measured phase length: repeat operations (scans: whole passes) until it has passed; 0 = -rows/-ops operations")
	flag.Parse()

	scanRange := map[string]int{"scanRange10": 10, "scanRange100": 100, "scanRange1000": 1000}[*workload]
	fullScan := *workload == "scan" || *workload == "filterScan"
	switch *workload {
	case "randomWrite", "sequentialWrite", "randomRead", "sequentialRead", "scanRange10", "scanRange100",
		"scanRange1000", "scan", "filterScan":
	default:
		fatal("unknown -workload %q (-h lists them)", *workload)
	}
	if *rows <= 0 || *clients <= 0 {
		fatal("-rows and -clients must be positive")
	}
	started := time.Now()

	if *create {
		if err := createTable(*zk, *table, *family); err != nil {
			fatal("create table: %v", err)
		}
	}

	opts := []gohbase.Option{gohbase.RpcQueueSize(*queue)}
	if *codec != "" {
		opts = append(opts, gohbase.CompressionCodec(*codec))
	}
	client := gohbase.NewClient(*zk, opts...)
	defer client.Close()

	val := make([]byte, *valueSize)
	rand.New(rand.NewSource(*seed)).Read(val)
	fam := map[string][]string{*family: {"0"}}

	keyOf := func(i int) string { return fmt.Sprintf("%026d", i) }
	// scanRows: one scan from start (inclusive) to stop (exclusive, "" = table end); returns rows read.
	scanRows := func(ctx context.Context, start, stop string, filtered bool) (int, error) {
		opts := []func(hrpc.Call) error{hrpc.Families(fam), hrpc.NumberOfRows(uint32(*caching)),
			hrpc.MaxResultSize(*maxResult)}
		if filtered {
			opts = append(opts, hrpc.Filters(filter.NewRowFilter(filter.NewCompareFilter(filter.Equal,
				filter.NewRegexStringComparator(".*00$", 0, "UTF-8", "JAVA")))))
		}
		sc, err := hrpc.NewScanRangeStr(ctx, *table, start, stop, opts...)
		if err != nil {
			return 0, err
		}
		scanner := client.Scan(sc)
		defer scanner.Close()
		n := 0
		for {
			res, err := scanner.Next()
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			if len(res.Cells) > 0 {
				n++
			}
		}
	}
	// One operation of worker w (its i-th): returns (rows read or written, miss, error).
	op := func(r *rand.Rand, v []byte, w, i int) (int, bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		switch {
		case scanRange > 0:
			start := r.Intn(*rows)
			n, err := scanRows(ctx, keyOf(start), keyOf(start+scanRange), false)
			return n, n == 0, err
		case fullScan:
			lo, hi := w**rows / *clients, (w+1)**rows / *clients
			stop := keyOf(hi)
			if w == *clients-1 {
				stop = ""
			}
			n, err := scanRows(ctx, keyOf(lo), stop, *workload == "filterScan")
			return n, n == 0, err
		}
		var key string
		if strings.HasPrefix(*workload, "sequential") {
			key = keyOf((w*(*rows / *clients) + i) % *rows)
		} else {
			key = keyOf(r.Intn(*rows))
		}
		if strings.HasSuffix(*workload, "Write") {
			r.Read(v[:min(8, len(v))]) // vary the value a little, as PE writes random values
			p, err := hrpc.NewPutStr(ctx, *table, key, map[string]map[string][]byte{*family: {"0": v}})
			if err != nil {
				return 0, false, err
			}
			_, err = client.Put(p)
			return 1, false, err
		}
		g, err := hrpc.NewGetStr(ctx, *table, key, hrpc.Families(fam))
		if err != nil {
			return 0, false, err
		}
		res, err := client.Get(g)
		if err != nil {
			return 0, false, err
		}
		return 1, len(res.Cells) == 0, nil
	}

	// Warm-up: the same workers for -warmup seconds, not measured (also does the region lookup).
	if *warmup > 0 {
		deadline := time.Now().Add(time.Duration(*warmup * float64(time.Second)))
		var wg sync.WaitGroup
		for w := 0; w < *clients; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				r := rand.New(rand.NewSource(*seed + 1000003*int64(w+1)))
				v := append([]byte(nil), val...)
				for i := 0; time.Now().Before(deadline); i++ {
					_, _, _ = op(r, v, w, i)
					if fullScan {
						break // one pass warms the whole share
					}
				}
			}(w)
		}
		wg.Wait()
	}

	type workerOut struct {
		lat                []int64 // ns
		errs, misses, rows int
		scanned            int // scan and filterScan: rows in the shares of the completed passes
		firstErr           error
	}
	outs := make([]workerOut, *clients)
	runtime.GC()
	srv0, srvOK0 := serverCPU()
	ru0 := rusage()
	t0 := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < *clients; w++ {
		total := *rows
		if *opsFlag > 0 {
			total = *opsFlag
		}
		n := total / *clients
		if w < total%*clients {
			n++
		}
		if fullScan {
			n = 1 // one scan of the worker's share of the key space
		}
		if *duration > 0 {
			n = math.MaxInt // until the deadline below
		}
		wg.Add(1)
		go func(w, n int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(*seed + 7919*int64(w+1)))
			v := append([]byte(nil), val...)
			o := &outs[w]
			o.lat = make([]int64, 0, min(n, 1<<20))
			share := (w+1)**rows / *clients - w**rows / *clients
			if w == *clients-1 {
				share = *rows - w**rows / *clients
			}
			for i := 0; i < n; i++ {
				if *duration > 0 && time.Since(t0) >= *duration {
					break
				}
				s := time.Now()
				rowsDone, miss, err := op(r, v, w, i)
				o.rows += rowsDone
				d := time.Since(s)
				if err != nil {
					o.errs++
					if o.firstErr == nil {
						o.firstErr = err
					}
					continue
				}
				if miss {
					o.misses++
				}
				if fullScan {
					o.scanned += share
				}
				o.lat = append(o.lat, d.Nanoseconds())
			}
		}(w, n)
	}
	wg.Wait()
	elapsed := time.Since(t0).Seconds()
	ru1 := rusage()
	srv1, srvOK1 := serverCPU()

	var all []int64
	ph := phase{ElapsedS: elapsed}
	for _, o := range outs {
		all = append(all, o.lat...)
		ph.Errors += o.errs
		ph.Misses += o.misses
		ph.Rows += o.rows
		ph.ScannedRows += o.scanned
		if o.firstErr != nil && ph.FirstError == nil {
			s := o.firstErr.Error()
			ph.FirstError = &s
		}
	}
	ph.Ops = len(all)
	ph.OpsPerSec = round2(float64(ph.Ops) / elapsed)
	ph.RowsPerSec = round2(float64(ph.Rows) / elapsed)
	if fullScan {
		// Rows the server went through (filterScan returns 1% of them).
		ph.ScannedRowsPerSec = round2(float64(ph.ScannedRows) / elapsed)
	}
	ph.Latency = summarize(all)

	user := tv(ru1.Utime) - tv(ru0.Utime)
	sys := tv(ru1.Stime) - tv(ru0.Stime)
	c := cpu{UserS: round3(user), SysS: round3(sys), Note: "getrusage(RUSAGE_SELF) over the measured phase: the client alone (the server is another process)"}
	if ph.Ops > 0 {
		c.UsPerOp = round2((user + sys) * 1e6 / float64(ph.Ops))
	}
	if ph.Rows > 0 {
		c.UsPerRow = round2((user + sys) * 1e6 / float64(ph.Rows))
	}
	if srvOK0 && srvOK1 && ph.Ops > 0 {
		perOp := round2((srv1 - srv0) * 1e6 / float64(ph.Ops))
		c.ServerUsPerOp = &perOp
		if ph.Rows > 0 {
			perRow := round2((srv1 - srv0) * 1e6 / float64(ph.Rows))
			c.ServerUsPerRow = &perRow
		}
	}

	host, _ := os.Hostname()
	gv := gohbaseVersion()
	out := map[string]any{
		"tool":           "gohbase-bench",
		"tool_version":   "gohbase " + gv,
		"command_line":   os.Args,
		"started_unix_s": started.Unix(),
		"machine": map[string]any{
			"nproc": runtime.NumCPU(), "hostname": host, "os": runtime.GOOS, "arch": runtime.GOARCH,
			"go_version": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0), "loadavg_at_start": loadavg(),
		},
		"target": map[string]any{"kind": "zk", "address": *zk},
		"params": map[string]any{
			"workload": *workload, "mode": "goroutines", "concurrency": *clients, "rows": *rows,
			"value_size": *valueSize, "columns": 1, "table": *table, "family": *family, "warmup_s": *warmup,
			"seed": *seed, "duration_s": duration.Seconds(), "rpc_queue_size": *queue, "compression": *codec, "caching": *caching, "max_result_size": *maxResult,
		},
		"result":       ph,
		"cpu":          c,
		"peak_rss_kib": ru1.Maxrss,
		"summary": map[string]any{
			"ops_per_sec": ph.OpsPerSec, "p50_us": ph.Latency.P50Us, "p99_us": ph.Latency.P99Us,
			"mean_us": ph.Latency.MeanUs, "client_cpu_us_per_op": c.UsPerOp,
			"rows_per_sec": ph.RowsPerSec, "client_cpu_us_per_row": c.UsPerRow,
		},
	}
	js, _ := json.MarshalIndent(out, "", "  ")
	fmt.Printf("%s %s clients=%d: %d ops (%d errors, %d misses) in %.2f s = %.1f ops/s, %d rows = %.1f rows/s\n",
		"gohbase", *workload, *clients, ph.Ops, ph.Errors, ph.Misses, elapsed, ph.OpsPerSec, ph.Rows, ph.RowsPerSec)
	fmt.Printf("  latency us: mean %.1f p50 %d p90 %d p99 %d p99.9 %d max %d\n", ph.Latency.MeanUs,
		ph.Latency.P50Us, ph.Latency.P90Us, ph.Latency.P99Us, ph.Latency.P999Us, ph.Latency.MaxUs)
	fmt.Printf("  process CPU: %.2f us/op (user %.3f s, sys %.3f s); peak RSS %d KiB\n", c.UsPerOp, user, sys, ru1.Maxrss)
	if ph.FirstError != nil {
		fmt.Printf("  first error: %s\n", *ph.FirstError)
	}
	if *output != "" {
		if err := os.WriteFile(*output, append(js, '\n'), 0o644); err != nil {
			fatal("write %s: %v", *output, err)
		}
		fmt.Printf("  wrote %s\n", *output)
	} else {
		fmt.Println(string(js))
	}
	if ph.Ops == 0 {
		os.Exit(1)
	}
}

func createTable(zk, table, family string) error {
	ac := gohbase.NewAdminClient(zk)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ct := hrpc.NewCreateTable(ctx, []byte(table), map[string]map[string]string{family: {}})
	err := ac.CreateTable(ct)
	if err != nil && strings.Contains(err.Error(), "TableExistsException") {
		return nil
	}
	return err
}

// summarize: exact percentiles from the sorted samples, HdrHistogram's convention
// (the smallest value with at least p% of the samples at or below it).
func summarize(ns []int64) latency {
	if len(ns) == 0 {
		return latency{}
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	us := func(v int64) int64 { return (v + 500) / 1000 }
	pct := func(p float64) int64 {
		i := int(math.Ceil(p/100*float64(len(ns)))) - 1
		if i < 0 {
			i = 0
		}
		return us(ns[i])
	}
	var sum float64
	for _, v := range ns {
		sum += float64(v)
	}
	mean := sum / float64(len(ns))
	var sq float64
	for _, v := range ns {
		d := float64(v) - mean
		sq += d * d
	}
	return latency{
		Count: len(ns), MeanUs: round2(mean / 1000), StddevUs: round2(math.Sqrt(sq/float64(len(ns))) / 1000),
		MinUs: us(ns[0]), P50Us: pct(50), P90Us: pct(90), P99Us: pct(99), P999Us: pct(99.9), MaxUs: us(ns[len(ns)-1]),
	}
}

func rusage() syscall.Rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fatal("getrusage: %v", err)
	}
	return ru
}

// serverCPU: user+system CPU seconds of the process HBCLIENT_BENCH_SERVER_PID names, from
// /proc/PID/stat (fields 14 and 15, counted after the parenthesised command name).
func serverCPU() (float64, bool) {
	pid := strings.TrimSpace(os.Getenv("HBCLIENT_BENCH_SERVER_PID"))
	if pid == "" || pid == "0" {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	var utime, stime float64
	if _, err := fmt.Sscan(fields[11], &utime); err != nil {
		return 0, false
	}
	if _, err := fmt.Sscan(fields[12], &stime); err != nil {
		return 0, false
	}
	return (utime + stime) / clockTicks, true
}

// clockTicks: USER_HZ, the unit of /proc's CPU times: 100 on Linux for x86 and Arm (getconf CLK_TCK).
const clockTicks = 100.0

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
func round2(f float64) float64     { return math.Round(f*100) / 100 }
func round3(f float64) float64     { return math.Round(f*1000) / 1000 }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func gohbaseVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tsuna/gohbase" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func fatal(f string, a ...any) {
	fmt.Fprintf(os.Stderr, "gohbase-bench: "+f+"\n", a...)
	os.Exit(2)
}
