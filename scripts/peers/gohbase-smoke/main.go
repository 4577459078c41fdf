// gohbase-smoke: the Go HBase client gohbase (github.com/tsuna/gohbase) against any HBase-compatible cluster,
// found through ZooKeeper (gohbase's only registry). scripts/smoke-official-clients.sh runs it against
// mini-hbase; pointing it at a real HBase checks the expectations themselves.
//
//	gohbase-smoke -zk 127.0.0.1:2182 [-root /hbase]
//
// Every check prints one line, "ok   <name>" or "FAIL <name>: <why>"; the exit code is 1 if any failed.
// gohbase has no API for table descriptors, namespaces, flush or split: those are covered by the Java smoke.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/filter"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"github.com/tsuna/gohbase/region"
)

var passed, failed, gaps int

// errGap marks a known gap of the target (README "Known gaps"): answered with an error, never a
// wrong result. It is reported as "gap", not as a pass or a failure.
type errGap struct{ err error }

func (g errGap) Error() string { return g.err.Error() }

func check(name string, body func() error) {
	t0 := time.Now()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return body()
	}()
	var gap errGap
	if errors.As(err, &gap) {
		gaps++
		fmt.Printf("gap  %s: %s\n", name, strings.SplitN(gap.Error(), "\n", 2)[0])
		return
	}
	if err != nil {
		failed++
		fmt.Printf("FAIL %s: %v\n", name, err)
		return
	}
	passed++
	fmt.Printf("ok   %s (%d ms)\n", name, time.Since(t0).Milliseconds())
}

func eq(want, got interface{}, what string) error {
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return fmt.Errorf("%s: want %v, got %v", what, want, got)
	}
	return nil
}

// cancels holds every call context's cancel function; main calls them at exit.
var cancels []context.CancelFunc

// ctx is a 30 s deadline for one call.
func ctx() context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cancels = append(cancels, cancel)
	return c
}

type smoke struct {
	c     gohbase.Client
	admin gohbase.AdminClient
	table string
}

// cells renders a result as "fam:qual=value" strings in the order the server sent them.
func cells(r *hrpc.Result) []string {
	out := []string{}
	for _, c := range r.Cells {
		out = append(out, fmt.Sprintf("%s:%s=%s", c.Family, c.Qualifier, c.Value))
	}
	return out
}

func (s *smoke) get(row string, opts ...func(hrpc.Call) error) (*hrpc.Result, error) {
	g, err := hrpc.NewGetStr(ctx(), s.table, row, opts...)
	if err != nil {
		return nil, err
	}
	return s.c.Get(g)
}

func (s *smoke) put(row string, values map[string]map[string][]byte, opts ...func(hrpc.Call) error) error {
	p, err := hrpc.NewPutStr(ctx(), s.table, row, values, opts...)
	if err != nil {
		return err
	}
	_, err = s.c.Put(p)
	return err
}

func (s *smoke) del(row string, values map[string]map[string][]byte, opts ...func(hrpc.Call) error) error {
	d, err := hrpc.NewDelStr(ctx(), s.table, row, values, opts...)
	if err != nil {
		return err
	}
	_, err = s.c.Delete(d)
	return err
}

// scan returns every result (partial ones separately) of a scan.
func (s *smoke) scanResults(table, start, stop string, opts ...func(hrpc.Call) error) ([]*hrpc.Result, error) {
	sc, err := hrpc.NewScanRangeStr(ctx(), table, start, stop, opts...)
	if err != nil {
		return nil, err
	}
	scanner := s.c.Scan(sc)
	defer scanner.Close()
	var out []*hrpc.Result
	for {
		r, err := scanner.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func (s *smoke) rows(start, stop string, opts ...func(hrpc.Call) error) ([]string, error) {
	rs, err := s.scanResults(s.table, start, stop, opts...)
	out := []string{}
	for _, r := range rs {
		if len(r.Cells) > 0 {
			row := string(r.Cells[0].Row)
			if len(out) == 0 || out[len(out)-1] != row {
				out = append(out, row)
			}
		}
	}
	return out, err
}

func (s *smoke) scanCells(start, stop string, opts ...func(hrpc.Call) error) ([]string, error) {
	rs, err := s.scanResults(s.table, start, stop, opts...)
	out := []string{}
	for _, r := range rs {
		for _, c := range r.Cells {
			out = append(out, fmt.Sprintf("%s/%s:%s=%s", c.Row, c.Family, c.Qualifier, c.Value))
		}
	}
	return out, err
}

func v(fam, qual, val string) map[string]map[string][]byte {
	return map[string]map[string][]byte{fam: {qual: []byte(val)}}
}

func long(n int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(n))
	return b
}

func cmp(op filter.CompareType, c filter.Comparator) *filter.CompareFilter {
	return filter.NewCompareFilter(op, c)
}

func bin(s string) filter.Comparator {
	return filter.NewBinaryComparator(filter.NewByteArrayComparable([]byte(s)))
}

func main() {
	zkq := flag.String("zk", "127.0.0.1:2181", "ZooKeeper quorum")
	root := flag.String("root", "/hbase", "zookeeper.znode.parent")
	flag.Parse()
	fmt.Printf("gohbase via zk %s%s\n", *zkq, *root)
	t0 := time.Now()
	opts := []gohbase.Option{gohbase.ZookeeperRoot(*root), gohbase.ZookeeperTimeout(20 * time.Second),
		gohbase.RegionLookupTimeout(20 * time.Second), gohbase.RegionReadTimeout(20 * time.Second)}
	s := &smoke{
		c:     gohbase.NewClient(*zkq, append(opts, gohbase.RpcQueueSize(100), gohbase.FlushInterval(5*time.Millisecond))...),
		admin: gohbase.NewAdminClient(*zkq, opts...),
		table: fmt.Sprintf("gosmoke_%d", time.Now().UnixNano()%1000000),
	}
	s.run()
	s.c.Close()
	for _, cancel := range cancels {
		cancel()
	}
	fmt.Printf("gohbase smoke via zk: %d passed, %d failed, %d known gaps (%d s)\n", passed, failed, gaps,
		int(time.Since(t0).Seconds()))
	if failed > 0 {
		os.Exit(1)
	}
}

func (s *smoke) run() {
	s.adminChecks()
	s.data()
	s.scans()
	s.filters()
	s.meta()
	s.concurrent()
	s.cleanup()
}

func (s *smoke) adminChecks() {
	check("admin: create table with split keys b, m, t", func() error {
		ct := hrpc.NewCreateTable(ctx(), []byte(s.table),
			map[string]map[string]string{"f": {"VERSIONS": "3"}, "g": {"VERSIONS": "1"}},
			hrpc.SplitKeys([][]byte{[]byte("b"), []byte("m"), []byte("t")}))
		return s.admin.CreateTable(ct)
	})
	check("admin: create an existing table fails", func() error {
		ct := hrpc.NewCreateTable(ctx(), []byte(s.table), map[string]map[string]string{"f": nil})
		err := s.admin.CreateTable(ct)
		if err == nil || !strings.Contains(err.Error(), "TableExistsException") {
			return fmt.Errorf("want TableExistsException, got %v", err)
		}
		return nil
	})
	check("admin: ListTableNames with a regex and by namespace", func() error {
		lt, _ := hrpc.NewListTableNames(ctx(), hrpc.ListRegex(s.table+".*"))
		names, err := s.admin.ListTableNames(lt)
		if err != nil {
			return err
		}
		got := []string{}
		for _, n := range names {
			got = append(got, string(n.Namespace)+":"+string(n.Qualifier))
		}
		if err := eq([]string{"default:" + s.table}, got, "regex"); err != nil {
			return err
		}
		lt, _ = hrpc.NewListTableNames(ctx(), hrpc.ListRegex(".*"), hrpc.ListNamespace("default"))
		names, err = s.admin.ListTableNames(lt)
		if err != nil {
			return err
		}
		found := false
		for _, n := range names {
			found = found || string(n.Qualifier) == s.table
		}
		if !found {
			return fmt.Errorf("table missing from namespace default listing")
		}
		lt, _ = hrpc.NewListTableNames(ctx(), hrpc.ListRegex("nothing_matches_.*"))
		names, err = s.admin.ListTableNames(lt)
		if err != nil {
			return err
		}
		return eq(0, len(names), "no match")
	})
	check("admin: disable, then a get fails with TableNotEnabledException, enable", func() error {
		if err := s.put("a0", v("f", "q", "x")); err != nil {
			return err
		}
		if err := s.admin.DisableTable(hrpc.NewDisableTable(ctx(), []byte(s.table))); err != nil {
			return err
		}
		c, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		g, _ := hrpc.NewGetStr(c, s.table, "a0")
		if _, err := s.c.Get(g); err == nil {
			return fmt.Errorf("get on a disabled table succeeded")
		}
		return s.admin.EnableTable(hrpc.NewEnableTable(ctx(), []byte(s.table)))
	})
	check("admin: ClusterStatus", func() error {
		st, err := s.admin.ClusterStatus()
		if err != nil && strings.Contains(err.Error(), "UnsupportedOperationException") {
			return errGap{err}
		}
		if err != nil {
			return err
		}
		if len(st.GetLiveServers()) == 0 {
			return fmt.Errorf("no live servers in %v", st)
		}
		return nil
	})
}

func (s *smoke) data() {
	check("put and get: several columns and families", func() error {
		if err := s.put("a1", map[string]map[string][]byte{"f": {"q1": []byte("v1"), "q2": []byte("v2")},
			"g": {"x": []byte("y")}}); err != nil {
			return err
		}
		r, err := s.get("a1")
		if err != nil {
			return err
		}
		return eq([]string{"f:q1=v1", "f:q2=v2", "g:x=y"}, cells(r), "cells")
	})
	check("get: families, missing row, exists only", func() error {
		r, err := s.get("a1", hrpc.Families(map[string][]string{"f": {"q2"}}))
		if err != nil {
			return err
		}
		if err := eq([]string{"f:q2=v2"}, cells(r), "one column"); err != nil {
			return err
		}
		r, err = s.get("a_missing")
		if err != nil {
			return err
		}
		if err := eq(0, len(r.Cells), "missing row"); err != nil {
			return err
		}
		g, _ := hrpc.NewGetStr(ctx(), s.table, "a1")
		g.ExistsOnly()
		r, err = s.c.Get(g)
		if err != nil {
			return err
		}
		if r.Exists == nil || !*r.Exists {
			return fmt.Errorf("exists: %v", r.Exists)
		}
		return nil
	})
	check("put with timestamps: versions and time range", func() error {
		for ts := uint64(1); ts <= 4; ts++ {
			if err := s.put("a2", v("f", "v", fmt.Sprintf("ts%d", ts)), hrpc.TimestampUint64(ts)); err != nil {
				return err
			}
		}
		r, err := s.get("a2", hrpc.MaxVersions(10))
		if err != nil {
			return err
		}
		if err := eq([]string{"f:v=ts4", "f:v=ts3", "f:v=ts2"}, cells(r), "VERSIONS=3"); err != nil {
			return err
		}
		r, err = s.get("a2", hrpc.MaxVersions(10), hrpc.TimeRangeUint64(2, 4))
		if err != nil {
			return err
		}
		return eq([]string{"f:v=ts3", "f:v=ts2"}, cells(r), "time range [2,4)")
	})
	check("delete: one version (latest), all versions of a column, a family, the row", func() error {
		for ts := uint64(1); ts <= 2; ts++ {
			if err := s.put("a3", map[string]map[string][]byte{"f": {"v": []byte(fmt.Sprint(ts)),
				"w": []byte("w")}, "g": {"z": []byte("z")}}, hrpc.TimestampUint64(ts)); err != nil {
				return err
			}
		}
		if err := s.del("a3", map[string]map[string][]byte{"f": {"v": nil}}, hrpc.DeleteOneVersion()); err != nil {
			return err
		}
		r, _ := s.get("a3", hrpc.Families(map[string][]string{"f": {"v"}}))
		if err := eq([]string{"f:v=1"}, cells(r), "latest version deleted"); err != nil {
			return err
		}
		if err := s.del("a3", map[string]map[string][]byte{"f": {"w": nil}}); err != nil {
			return err
		}
		r, _ = s.get("a3")
		if err := eq([]string{"f:v=1", "g:z=z"}, cells(r), "all versions of f:w deleted"); err != nil {
			return err
		}
		if err := s.del("a3", map[string]map[string][]byte{"f": nil}); err != nil {
			return err
		}
		r, _ = s.get("a3")
		if err := eq([]string{"g:z=z"}, cells(r), "family f deleted"); err != nil {
			return err
		}
		if err := s.del("a3", nil); err != nil {
			return err
		}
		r, _ = s.get("a3")
		return eq(0, len(r.Cells), "row deleted")
	})
	check("delete: a version at a timestamp", func() error {
		for ts := uint64(1); ts <= 2; ts++ {
			if err := s.put("a4", v("f", "v", fmt.Sprint(ts)), hrpc.TimestampUint64(ts)); err != nil {
				return err
			}
		}
		if err := s.del("a4", map[string]map[string][]byte{"f": {"v": nil}}, hrpc.TimestampUint64(2),
			hrpc.DeleteOneVersion()); err != nil {
			return err
		}
		r, _ := s.get("a4", hrpc.MaxVersions(5))
		return eq([]string{"f:v=1"}, cells(r), "version 2 deleted")
	})
	check("increment and append", func() error {
		inc, _ := hrpc.NewIncStrSingle(ctx(), s.table, "a_ctr", "f", "n", 5)
		n, err := s.c.Increment(inc)
		if err != nil {
			return err
		}
		if err := eq(5, n, "first increment"); err != nil {
			return err
		}
		inc, _ = hrpc.NewIncStrSingle(ctx(), s.table, "a_ctr", "f", "n", 2)
		if n, err = s.c.Increment(inc); err != nil {
			return err
		}
		if err := eq(7, n, "second increment"); err != nil {
			return err
		}
		app, _ := hrpc.NewAppStr(ctx(), s.table, "a_app", v("f", "s", "ab"))
		if _, err := s.c.Append(app); err != nil {
			return err
		}
		app, _ = hrpc.NewAppStr(ctx(), s.table, "a_app", v("f", "s", "cd"))
		r, err := s.c.Append(app)
		if err != nil {
			return err
		}
		return eq([]string{"f:s=abcd"}, cells(r), "append result")
	})
	check("CheckAndPut: absent, equal, not equal", func() error {
		p, _ := hrpc.NewPutStr(ctx(), s.table, "h1", v("f", "c", "v1"))
		ok, err := s.c.CheckAndPut(p, "f", "c", nil)
		if err != nil || !ok {
			return fmt.Errorf("put if absent: %v %v", ok, err)
		}
		p, _ = hrpc.NewPutStr(ctx(), s.table, "h1", v("f", "c", "v2"))
		if ok, err = s.c.CheckAndPut(p, "f", "c", nil); err != nil || ok {
			return fmt.Errorf("second put if absent must fail: %v %v", ok, err)
		}
		p, _ = hrpc.NewPutStr(ctx(), s.table, "h1", v("f", "c", "v3"))
		if ok, err = s.c.CheckAndPut(p, "f", "c", []byte("v1")); err != nil || !ok {
			return fmt.Errorf("put if equal: %v %v", ok, err)
		}
		p, _ = hrpc.NewPutStr(ctx(), s.table, "h1", v("f", "c", "v4"))
		if ok, err = s.c.CheckAndPut(p, "f", "c", []byte("v1")); err != nil || ok {
			return fmt.Errorf("put if equal to a stale value must fail: %v %v", ok, err)
		}
		r, _ := s.get("h1")
		return eq([]string{"f:c=v3"}, cells(r), "value")
	})
	check("put to a missing family fails with NoSuchColumnFamilyException", func() error {
		err := s.put("e1", v("nofam", "q", "x"))
		if err == nil || !strings.Contains(err.Error(), "NoSuchColumnFamilyException") {
			return fmt.Errorf("want NoSuchColumnFamilyException, got %v", err)
		}
		return nil
	})
}

var scanRows = []string{"s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10"}

func (s *smoke) scans() {
	check("scan: load rows and a wide row", func() error {
		for i, row := range scanRows {
			if err := s.put(row, map[string]map[string][]byte{"f": {"a": []byte(fmt.Sprintf("va%d", i)),
				"b": []byte(fmt.Sprintf("vb%d", i))}, "g": {"c": long(int64(i))}}); err != nil {
				return err
			}
		}
		wide := map[string][]byte{}
		for i := 0; i < 20; i++ {
			wide[fmt.Sprintf("c%02d", i)] = make([]byte, 1000)
		}
		for _, row := range []string{"c1", "n1", "u1"} {
			if err := s.put(row, v("f", "q", row)); err != nil {
				return err
			}
		}
		return s.put("sw", map[string]map[string][]byte{"f": wide})
	})
	check("scan: full table across four regions, in order", func() error {
		rows, err := s.rows("", "")
		if err != nil {
			return err
		}
		if !sort.StringsAreSorted(rows) {
			return fmt.Errorf("not sorted: %v", rows)
		}
		for _, want := range []string{"a1", "c1", "n1", "u1"} {
			found := false
			for _, r := range rows {
				found = found || r == want
			}
			if !found {
				return fmt.Errorf("row %s missing from %v", want, rows)
			}
		}
		return nil
	})
	check("scan: start/stop row, one row per RPC", func() error {
		rows, err := s.rows("s02", "s05", hrpc.NumberOfRows(1))
		if err != nil {
			return err
		}
		return eq([]string{"s02", "s03", "s04"}, rows, "range")
	})
	check("scan: reversed, across a region boundary", func() error {
		// gohbase's reversed scan takes the start row as the upper (inclusive) bound.
		rows, err := s.rows("s03", "c1", hrpc.Reversed())
		if err != nil {
			return err
		}
		if len(rows) < 4 || rows[0] != "s03" || rows[len(rows)-1] == "c1" {
			return fmt.Errorf("rows %v", rows)
		}
		if !sort.SliceIsSorted(rows, func(i, j int) bool { return rows[i] > rows[j] }) {
			return fmt.Errorf("not descending: %v", rows)
		}
		for _, want := range []string{"n1", "h1"} {
			found := false
			for _, r := range rows {
				found = found || r == want
			}
			if !found {
				return fmt.Errorf("row %s missing from %v", want, rows)
			}
		}
		return nil
	})
	check("scan: reversed with a PrefixFilter", func() error {
		rows, err := s.rows("s10", "", hrpc.Reversed(), hrpc.Filters(filter.NewPrefixFilter([]byte("s0"))))
		if err != nil {
			return err
		}
		return eq([]string{"s09", "s08", "s07", "s06", "s05", "s04", "s03", "s02", "s01"}, rows, "rows")
	})
	check("scan: partial results of a wide row", func() error {
		rs, err := s.scanResults(s.table, "sw", "sw\x00", hrpc.AllowPartialResults(), hrpc.MaxResultSize(3000))
		if err != nil {
			return err
		}
		n, partial := 0, false
		for _, r := range rs {
			n += len(r.Cells)
			partial = partial || r.Partial
		}
		if len(rs) < 2 || !partial {
			return fmt.Errorf("want partial results, got %d result(s), partial=%v", len(rs), partial)
		}
		return eq(20, n, "cells")
	})
	check("scan: small max result size, whole rows", func() error {
		rs, err := s.scanResults(s.table, "s09", "sx", hrpc.MaxResultSize(1500))
		if err != nil {
			return err
		}
		got := []string{}
		for _, r := range rs {
			got = append(got, fmt.Sprintf("%s:%d", r.Cells[0].Row, len(r.Cells)))
		}
		return eq([]string{"s09:3", "s10:3", "sw:20"}, got, "rows:cells")
	})
	check("scan: families, time range, versions", func() error {
		got, err := s.scanCells("a2", "a3", hrpc.MaxVersions(10), hrpc.TimeRangeUint64(2, 4))
		if err != nil {
			return err
		}
		if err := eq([]string{"a2/f:v=ts3", "a2/f:v=ts2"}, got, "versions in range"); err != nil {
			return err
		}
		got, err = s.scanCells("s01", "s02", hrpc.Families(map[string][]string{"f": {"b"}}))
		if err != nil {
			return err
		}
		return eq([]string{"s01/f:b=vb0"}, got, "column f:b")
	})
}

func (s *smoke) filters() {
	frows := func(f filter.Filter) ([]string, error) { return s.rows("s01", "s11", hrpc.Filters(f)) }
	fcells := func(f filter.Filter) ([]string, error) { return s.scanCells("s01", "s03", hrpc.Filters(f)) }
	rowCheck := func(name string, want []string, f filter.Filter) {
		check("filter: "+name, func() error {
			got, err := frows(f)
			if err != nil {
				return err
			}
			return eq(want, got, "rows")
		})
	}
	cellCheck := func(name string, want []string, f filter.Filter) {
		check("filter: "+name, func() error {
			got, err := fcells(f)
			if err != nil {
				return err
			}
			return eq(want, got, "cells")
		})
	}
	rowCheck("PrefixFilter", []string{"s10"}, filter.NewPrefixFilter([]byte("s1")))
	rowCheck("RowFilter LESS binary", []string{"s01", "s02"}, filter.NewRowFilter(cmp(filter.Less, bin("s03"))))
	rowCheck("RowFilter binary prefix", []string{"s10"}, filter.NewRowFilter(cmp(filter.Equal,
		filter.NewBinaryPrefixComparator(filter.NewByteArrayComparable([]byte("s1"))))))
	rowCheck("RowFilter regex", []string{"s03", "s07"}, filter.NewRowFilter(cmp(filter.Equal,
		filter.NewRegexStringComparator("s0[37]", 0, "UTF-8", "JAVA"))))
	rowCheck("RowFilter substring", []string{"s05"}, filter.NewRowFilter(cmp(filter.Equal,
		filter.NewSubstringComparator("05"))))
	rowCheck("SingleColumnValueFilter", []string{"s05"}, filter.NewSingleColumnValueFilter([]byte("f"),
		[]byte("a"), filter.Equal, bin("va4"), true, true))
	rowCheck("SingleColumnValueFilter with a LongComparator", []string{"s09", "s10"},
		filter.NewSingleColumnValueFilter([]byte("g"), []byte("c"), filter.GreaterOrEqual,
			filter.NewLongComparator(filter.NewByteArrayComparable(long(8))), true, true))
	cellCheck("ValueFilter substring", []string{"s02/f:b=vb1"}, filter.NewValueFilter(cmp(filter.Equal,
		filter.NewSubstringComparator("b1"))))
	cellCheck("QualifierFilter", []string{"s01/f:a=va0", "s02/f:a=va1"}, filter.NewQualifierFilter(
		cmp(filter.Equal, bin("a"))))
	cellCheck("FamilyFilter", []string{"s01/g:c=" + string(long(0)), "s02/g:c=" + string(long(1))},
		filter.NewFamilyFilter(cmp(filter.Equal, bin("g"))))
	cellCheck("ColumnPrefixFilter", []string{"s01/f:b=vb0", "s02/f:b=vb1"}, filter.NewColumnPrefixFilter([]byte("b")))
	cellCheck("MultipleColumnPrefixFilter", []string{"s01/f:a=va0", "s01/f:b=vb0", "s02/f:a=va1", "s02/f:b=vb1"},
		filter.NewMultipleColumnPrefixFilter([][]byte{[]byte("a"), []byte("b")}))
	cellCheck("ColumnRangeFilter", []string{"s01/f:b=vb0", "s01/g:c=" + string(long(0)), "s02/f:b=vb1",
		"s02/g:c=" + string(long(1))}, filter.NewColumnRangeFilter([]byte("b"), []byte("c"), true, true))
	cellCheck("KeyOnlyFilter", []string{"s01/f:a=", "s01/f:b=", "s01/g:c=", "s02/f:a=", "s02/f:b=", "s02/g:c="},
		filter.NewKeyOnlyFilter(false))
	cellCheck("FirstKeyOnlyFilter", []string{"s01/f:a=va0", "s02/f:a=va1"}, filter.NewFirstKeyOnlyFilter())
	rowCheck("PageFilter", []string{"s01", "s02", "s03"}, filter.NewPageFilter(3))
	rowCheck("InclusiveStopFilter", []string{"s01", "s02", "s03", "s04"}, filter.NewInclusiveStopFilter([]byte("s04")))
	rowCheck("WhileMatchFilter", []string{"s01", "s02"}, filter.NewWhileMatchFilter(filter.NewRowFilter(
		cmp(filter.Less, bin("s03")))))
	rowCheck("SkipFilter", []string{"s01", "s02", "s03", "s05", "s06", "s07", "s08", "s09", "s10"},
		filter.NewSkipFilter(filter.NewValueFilter(cmp(filter.NotEqual, bin("va3")))))
	cellCheck("ColumnPaginationFilter", []string{"s01/f:b=vb0", "s02/f:b=vb1"},
		filter.NewColumnPaginationFilter(1, 1, nil))
	rowCheck("MultiRowRangeFilter", []string{"s02", "s03", "s07"}, filter.NewMultiRowRangeFilter([]*filter.RowRange{
		filter.NewRowRange([]byte("s02"), []byte("s03"), true, true),
		filter.NewRowRange([]byte("s07"), []byte("s08"), true, false)}))
	rowCheck("FilterList MUST_PASS_ALL", []string{"s04", "s05"}, filter.NewList(filter.MustPassAll,
		filter.NewRowFilter(cmp(filter.Greater, bin("s03"))), filter.NewPageFilter(2)))
	rowCheck("FilterList MUST_PASS_ONE", []string{"s01", "s10"}, filter.NewList(filter.MustPassOne,
		filter.NewPrefixFilter([]byte("s1")), filter.NewRowFilter(cmp(filter.Equal, bin("s01")))))
	check("filter: TimestampsFilter", func() error {
		got, err := s.scanCells("a2", "a3", hrpc.MaxVersions(10), hrpc.Filters(filter.NewTimestampsFilter([]int64{3})))
		if err != nil {
			return err
		}
		return eq([]string{"a2/f:v=ts3"}, got, "cells")
	})
	check("filter: on a Get", func() error {
		r, err := s.get("s03", hrpc.Filters(filter.NewColumnPrefixFilter([]byte("b"))))
		if err != nil {
			return err
		}
		return eq([]string{"f:b=vb2"}, cells(r), "cells")
	})
}

// meta reads hbase:meta as a table: one row per region of the smoke table, each with info:regioninfo
// (PBUF + RegionInfo) and info:server.
func (s *smoke) meta() {
	check("meta: scan hbase:meta rows of the table", func() error {
		// From the table:state row (the table's name) to past its last region row.
		starts, err := s.metaStarts(s.table, s.table+",\xff")
		if err != nil {
			return err
		}
		return eq([]string{"", "b", "m", "t"}, starts, "region start keys")
	})
	check("meta: HBase's meta order puts the first region row before \"table,\"", func() error {
		starts, err := s.metaStarts(s.table+",", s.table+",\xff")
		if err != nil {
			return err
		}
		return eq([]string{"b", "m", "t"}, starts, "region start keys")
	})
}

// metaStarts scans hbase:meta from start to stop and returns the start keys of the smoke table's region
// rows, checking each row's info:regioninfo (PBUF + RegionInfo) and info:server.
func (s *smoke) metaStarts(start, stop string) ([]string, error) {
	rs, err := s.scanResults("hbase:meta", start, stop, hrpc.Families(map[string][]string{"info": nil}))
	if err != nil {
		return nil, err
	}
	starts := []string{}
	for _, r := range rs {
		var ri []byte
		for _, c := range r.Cells {
			if string(c.Qualifier) == "regioninfo" {
				ri = c.Value
			}
		}
		if ri == nil {
			continue
		}
		if !bytes.HasPrefix(ri, []byte("PBUF")) {
			return nil, fmt.Errorf("row %q: info:regioninfo %q", r.Cells[0].Row, ri)
		}
		// The parser gohbase itself uses on hbase:meta rows (regioninfo + server).
		info, addr, err := region.ParseRegionInfo(r)
		if err != nil {
			return nil, err
		}
		if addr == "" || string(info.Table()) != s.table {
			return nil, fmt.Errorf("row %q: table %q server %q", r.Cells[0].Row, info.Table(), addr)
		}
		starts = append(starts, string(info.StartKey()))
	}
	return starts, nil
}

// concurrent sends many single puts and gets at once: gohbase batches them into Multi calls per region
// server (RpcQueueSize 100, 5 ms flush).
func (s *smoke) concurrent() {
	check("batched writes: 400 concurrent puts become Multi calls, then 400 gets", func() error {
		var wg sync.WaitGroup
		errs := make(chan error, 800)
		for i := 0; i < 400; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				row := fmt.Sprintf("%c%04d", "dkpw"[i%4], i)
				errs <- s.put(row, v("f", "q", fmt.Sprint(i)))
			}(i)
		}
		wg.Wait()
		for i := 0; i < 400; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				row := fmt.Sprintf("%c%04d", "dkpw"[i%4], i)
				r, err := s.get(row)
				if err == nil {
					err = eq([]string{fmt.Sprintf("f:q=%d", i)}, cells(r), row)
				}
				errs <- err
			}(i)
		}
		wg.Wait()
		close(errs)
		var all []error
		for e := range errs {
			if e != nil {
				all = append(all, e)
			}
		}
		if len(all) > 0 {
			return fmt.Errorf("%d errors, first: %w", len(all), errors.Join(all[0]))
		}
		return nil
	})
}

func (s *smoke) cleanup() {
	check("admin: disable and delete the table", func() error {
		if err := s.admin.DisableTable(hrpc.NewDisableTable(ctx(), []byte(s.table))); err != nil {
			return err
		}
		if err := s.admin.DeleteTable(hrpc.NewDeleteTable(ctx(), []byte(s.table))); err != nil {
			return err
		}
		lt, _ := hrpc.NewListTableNames(ctx(), hrpc.ListRegex(s.table))
		names, err := s.admin.ListTableNames(lt)
		if err != nil {
			return err
		}
		return eq(0, len(names), "listed after delete")
	})
}

var _ = pb.ClusterStatus{}
