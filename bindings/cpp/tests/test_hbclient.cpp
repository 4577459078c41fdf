// GoogleTest tests of the C++17 wrapper (bindings/cpp/hbclient.hpp), run by scripts/ffi-test.sh
// against mini-hbase (table `cpp`, families f and g, split at "m"; address in
// HBCLIENT_FFI_BOOTSTRAP) under AddressSanitizer.
#include <hbclient.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace std::string_literals;
using namespace std::string_view_literals;

namespace {

hbclient::Config test_config() {
  hbclient::Config config;
  const char* bootstrap = std::getenv("HBCLIENT_FFI_BOOTSTRAP");
  if (bootstrap == nullptr) throw std::runtime_error("set HBCLIENT_FFI_BOOTSTRAP");
  config.set("hbase.client.bootstrap.servers", bootstrap).set("hbase.client.pause", "20");
  return config;
}

hbclient::Connection& connection() {
  static hbclient::Connection conn(test_config());
  return conn;
}

}  // namespace

TEST(Types, UniqueOwnership) {
  static_assert(!std::is_copy_constructible_v<hbclient::Connection>);
  static_assert(!std::is_copy_constructible_v<hbclient::Table>);
  static_assert(!std::is_copy_constructible_v<hbclient::Put>);
  static_assert(!std::is_copy_constructible_v<hbclient::Future>);
  static_assert(!std::is_copy_constructible_v<hbclient::Mutator>);
  static_assert(std::is_move_constructible_v<hbclient::Table>);
  static_assert(std::is_move_constructible_v<hbclient::Result>);
  EXPECT_EQ(hbclient::version(), HB_VERSION_STRING);
}

TEST(Errors, InvalidArgumentsThrowWithDetails) {
  try {
    hbclient::Put put(""sv);
    FAIL() << "an empty row must throw";
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "invalid argument");  // builders report the status only
    EXPECT_TRUE(e.exception_class().empty());
    EXPECT_FALSE(e.retriable());
  }
  hbclient::Config config;
  EXPECT_THROW(config.set("no.such.key", "1"), hbclient::Error);
  EXPECT_THROW(hbclient::Get("r").max_versions(0), hbclient::Error);
  EXPECT_THROW(connection().table("bad name!"), hbclient::Error);
}

TEST(Errors, ServerExceptionsCarryTheirClass) {
  auto missing = connection().table("no_such_table");
  try {
    missing.get(hbclient::Get("r"));
    FAIL() << "a missing table must throw";
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_TABLE_NOT_FOUND);
    EXPECT_NE(e.exception_class().find("TableNotFoundException"), std::string::npos);
  }
  auto table = connection().table("cpp");
  try {
    table.put(hbclient::Put("r").add("nofam", "q", "v"));
    FAIL() << "a missing family must throw";
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_NO_SUCH_COLUMN_FAMILY);
  }
}

TEST(Blocking, BinaryPutGetDelete) {
  auto table = connection().table("cpp");
  const std::string row = "bin\0row\xff"s;
  const std::string value = "\0v\0a\0l"s;
  table.put(hbclient::Put(row).add("f", "q\0x"s, value).add("g", "q", "other"));
  auto result = table.get(hbclient::Get(row));
  ASSERT_FALSE(result.empty());
  EXPECT_EQ(result.row(), row);
  EXPECT_EQ(result.size(), 2u);
  EXPECT_EQ(result.value("f", "q\0x"s), std::optional<std::string_view>(value));
  EXPECT_EQ(result.value("f", "nope"), std::nullopt);
  auto cells = result.cells();
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[1].family, "g");
  EXPECT_GT(cells[1].timestamp, 1600000000000u);  // the server's clock, in ms
  EXPECT_THROW(result.cell(2), hbclient::Error);

  auto only_g = table.get(hbclient::Get(row).family("g"));
  EXPECT_EQ(only_g.size(), 1u);
  auto one = table.get(hbclient::Get(row).column("f", "q\0x"s).max_versions(3));
  EXPECT_EQ(one.size(), 1u);

  table.remove(hbclient::Delete(row).column("f", "q\0x"s));
  EXPECT_EQ(table.get(hbclient::Get(row)).size(), 1u);
  table.remove(hbclient::Delete(row).family("g"));
  auto gone = table.get(hbclient::Get(row));
  EXPECT_TRUE(gone.empty());
  EXPECT_EQ(gone.row(), "");
}

TEST(Blocking, CountersAndConditionalWrites) {
  auto table = connection().table("cpp");
  const std::string row = "counter\0cpp"s;
  EXPECT_EQ(table.increment(row, "f", "n", 40), 40);
  EXPECT_EQ(table.increment(row, "f", "n", 2), 42);
  EXPECT_THROW(table.increment(row, "no_such_family", "n", 1), hbclient::Error);

  const std::string cas = "cas-cpp";
  EXPECT_TRUE(table.check_and_put("f", "q", std::nullopt, hbclient::Put(cas).add("f", "q", "a")));
  EXPECT_FALSE(table.check_and_put("f", "q", std::nullopt, hbclient::Put(cas).add("f", "q", "b")));
  EXPECT_TRUE(table.check_and_put("f", "q", "a"sv, hbclient::Put(cas).add("f", "q", "b")));
  EXPECT_EQ(table.get(hbclient::Get(cas)).value("f", "q"), std::optional<std::string_view>("b"));
  EXPECT_FALSE(table.check_and_remove("f", "q", "a"sv, hbclient::Delete(cas)));
  EXPECT_TRUE(table.check_and_remove("f", "q", "b"sv, hbclient::Delete(cas)));
  EXPECT_TRUE(table.get(hbclient::Get(cas)).empty());
}

TEST(Blocking, BatchWithPerItemOutcomes) {
  auto table = connection().table("cpp");
  hbclient::Batch batch;
  for (int i = 0; i < 2000; i++) {
    auto key = "batch" + std::to_string(10000 + i);
    batch.add(hbclient::Put(key).add("f", "q", key));
  }
  batch.add(hbclient::Put("bad").add("nofam", "q", "v"));
  ASSERT_EQ(batch.size(), 2001u);
  auto outcome = table.batch(batch);
  ASSERT_EQ(outcome.size(), 2001u);
  for (size_t i = 0; i < 2000; i++) ASSERT_TRUE(outcome.ok(i)) << i;
  auto error = outcome.error(2000);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->status(), HB_ERR_NO_SUCH_COLUMN_FAMILY);
  EXPECT_FALSE(outcome.row(0).has_value());

  hbclient::Batch gets;
  gets.add(hbclient::Get("batch10007")).add(hbclient::Delete("batch10008"));
  auto read = table.batch(gets);
  ASSERT_TRUE(read.row(0).has_value());
  EXPECT_EQ(read.row(0)->value("f", "q"), std::optional<std::string_view>("batch10007"));
  EXPECT_TRUE(read.ok(1));
}

TEST(Async, FuturesWaitAndResults) {
  auto table = connection().table("cpp");
  auto put = table.put_async(hbclient::Put("fut").add("f", "q", "v"));
  EXPECT_TRUE(put.wait_for(std::chrono::seconds(30)));
  EXPECT_FALSE(put.error().has_value());
  EXPECT_THROW(put.take_result(), hbclient::Error);

  auto get = table.get_async(hbclient::Get("fut"));
  get.wait();
  EXPECT_TRUE(get.ready());
  auto row = get.take_result();
  EXPECT_EQ(row.value("f", "q"), std::optional<std::string_view>("v"));
  EXPECT_THROW(get.take_result(), hbclient::Error);  // only once

  auto missing = connection().table("no_such_table");
  auto failed = missing.get_async(hbclient::Get("r"));
  try {
    failed.wait();
    FAIL();
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_TABLE_NOT_FOUND);
  }
  ASSERT_TRUE(failed.error().has_value());
  EXPECT_EQ(failed.error()->status(), HB_ERR_TABLE_NOT_FOUND);

  hbclient::Batch batch;
  batch.add(hbclient::Get("fut"));
  auto b = table.batch_async(batch);
  b.wait();
  auto outcome = b.take_batch_result();
  EXPECT_TRUE(outcome.row(0).has_value());
  auto del = table.remove_async(hbclient::Delete("fut"));
  del.wait();
}

// Set on the threads that submit below. A thread id cannot tell them apart from callback threads:
// glibc reuses an exited thread's id for the next thread it starts, and the executor may start
// its threads after a submitter finished (CI saw exactly that). A thread-local starts false on
// every new thread.
thread_local bool tls_submitter = false;

TEST(Async, CallbacksFromManyThreads) {
  auto table = connection().table("cpp");
  constexpr int kThreads = 8, kPerThread = 200;
  std::atomic<int> done{0}, failed{0}, on_submitter{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      tls_submitter = true;
      for (int i = 0; i < kPerThread; i++) {
        auto key = "cb-" + std::to_string(t) + "-" + std::to_string(1000 + i);
        auto future = table.put_async(hbclient::Put(key).add("f", "q", key));
        future.on_complete([&](hbclient::FutureRef f) {
          if (tls_submitter) on_submitter++;
          if (f.error().has_value()) failed++;
          done++;
        });
        // `future` is destroyed here: the callback still runs.
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int i = 0; i < 3000 && done.load() < kThreads * kPerThread; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(done.load(), kThreads * kPerThread);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(on_submitter.load(), 0);

  // A callback on a completed future runs too; it can take the result.
  auto get = table.get_async(hbclient::Get("cb-0-1000"));
  get.wait();
  std::atomic<bool> found{false};
  get.on_complete([&](hbclient::FutureRef f) { found = !f.take_result().empty(); });
  EXPECT_THROW(get.on_complete([](hbclient::FutureRef) {}), hbclient::Error);
  for (int i = 0; i < 1000 && !found.load(); i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(found.load());
}

TEST(Scan, ManyRowsInOrder) {
  auto table = connection().table("cpp");
  hbclient::Batch batch;
  for (int i = 0; i < 3000; i++) {
    auto key = std::string(i % 2 ? "s" : "k") + std::to_string(100000 + i);
    batch.add(hbclient::Put(key).add("f", "q", "x"));
  }
  table.batch(batch);
  auto scanner = table.scanner(hbclient::Scan().start_row("k").stop_row("t").family("f").caching(50));
  int rows = 0;
  std::string previous;
  while (auto row = scanner.next()) {
    std::string current(row->row());
    EXPECT_LT(previous, current);
    previous = current;
    rows++;
  }
  EXPECT_EQ(rows, 3000);
  auto limited = table.scanner(hbclient::Scan().start_row("k").limit(7));
  int n = 0;
  while (limited.next()) n++;
  EXPECT_EQ(n, 7);
}

TEST(Mutator, BuffersFlushesAndReportsFailures) {
  auto mutator = connection().mutator("cpp");
  for (int i = 0; i < 1000; i++) {
    auto key = "w" + std::to_string(10000 + i);
    mutator.put(hbclient::Put(key).add("f", "q", key));
  }
  mutator.remove(hbclient::Delete("w10000"));
  mutator.flush();
  auto table = connection().table("cpp");
  EXPECT_EQ(table.get(hbclient::Get("w10999")).value("f", "q"),
            std::optional<std::string_view>("w10999"));
  bool reported = false;
  try {
    mutator.put(hbclient::Put("wbad").add("nofam", "q", "v"));
    mutator.close();
  } catch (const hbclient::Error& e) {
    reported = true;
    EXPECT_NE(e.status(), HB_OK);
  }
  EXPECT_TRUE(reported);
}

TEST(Connection, ClosedConnectionFailsCleanly) {
  hbclient::Connection conn(test_config());
  auto table = conn.table("cpp");
  conn.close();
  try {
    table.put(hbclient::Put("closed").add("f", "q", "v"));
    FAIL();
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_CLOSED);
  }
}

// ---- v2: filters, options, append, row mutations, checks, cancel, timeouts, admin, std::future

TEST(V2, ScanRangeOptionsAndFilters) {
  auto t = connection().table("cpp");
  for (int i = 0; i < 4; i++) {
    std::string row = "v2-s" + std::to_string(i);
    t.put(hbclient::Put(row).add("f", "q", i % 2 ? "odd" : "even"));
  }
  std::vector<std::string> rows;
  for (const hbclient::Result& r : t.scanner(hbclient::Scan().prefix("v2-s"))) {
    rows.emplace_back(r.row());
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"v2-s0", "v2-s1", "v2-s2", "v2-s3"}));
  rows.clear();
  hbclient::Scan reversed;
  reversed.start_row("v2-s9").stop_row("v2-s").reversed();
  for (const auto& r : t.scanner(reversed)) rows.emplace_back(r.row());
  EXPECT_EQ(rows.front(), "v2-s3");
  auto odd = hbclient::Filter::value(hbclient::CompareOp::Equal, "odd");
  auto s0 = hbclient::Filter::row(hbclient::CompareOp::Equal, "v2-s0");
  auto either = hbclient::Filter::any_of({&odd, &s0});
  int n = 0;
  for (const auto& r : t.scanner(hbclient::Scan().prefix("v2-s").filter(either))) {
    (void)r;
    n++;
  }
  EXPECT_EQ(n, 3);
  auto keys = hbclient::Filter::key_only();
  auto row = t.get(hbclient::Get("v2-s1").filter(keys));
  ASSERT_EQ(row.size(), 1u);
  EXPECT_TRUE(row.cell(0).value.empty());
  EXPECT_TRUE(t.exists(hbclient::Get("v2-s1")));
  EXPECT_FALSE(t.exists(hbclient::Get("v2-none")));
  EXPECT_THROW(hbclient::Scan().batch(0), hbclient::Error);
}

TEST(V2, AppendRowMutationsAndChecks) {
  auto t = connection().table("cpp");
  std::string row = "v2-m-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  auto first = t.append(hbclient::Append(row).add("f", "a", "x"));
  EXPECT_EQ(first.cell(0).value, "x");
  auto second = t.append_async(hbclient::Append(row).add("f", "a", "y")).result().get();
  EXPECT_EQ(second.cell(0).value, "xy");
  t.mutate_row(hbclient::RowMutations(row)
                   .add(hbclient::Put(row).add("f", "b", "1"))
                   .add(hbclient::Delete(row).column("f", "a")));
  hbclient::RowMutations then(row);
  then.add(hbclient::Put(row).add("f", "c", "2"));
  EXPECT_FALSE(t.check_and_mutate(hbclient::Check(row).absent("f", "b"), then));
  EXPECT_TRUE(t.check_and_mutate(hbclient::Check(row).absent("f", "a"), then));
  EXPECT_TRUE(t.check_and_mutate(
      hbclient::Check(row).column("f", "b", hbclient::CompareOp::Equal, "1"), then));
  EXPECT_THROW(t.check_and_mutate(hbclient::Check("other"), then), hbclient::Error);
  auto applied = t.check_and_mutate_async(hbclient::Check(row).absent("f", "a"), then);
  applied.wait();
  EXPECT_TRUE(applied.take_bool());
  auto counter = t.increment_async(row, "f", "n", 3);
  counter.wait();
  EXPECT_EQ(counter.take_int64(), 3);
}

TEST(V2, CancelTimeoutsAndStdFuture) {
  auto t = connection().table("cpp");
  hbclient::Batch big;
  for (int i = 0; i < 20000; i++) {
    std::string row = "v2-big-" + std::to_string(i);
    big.add(hbclient::Put(row).add("f", "q", row));
  }
  auto f = t.batch_async(big);
  EXPECT_TRUE(f.cancel());
  try {
    f.wait();
    FAIL() << "a cancelled batch completed";
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_CANCELLED);
  }
  EXPECT_FALSE(f.cancel());
  auto hasty = t.with_timeout(std::chrono::milliseconds(1));
  try {
    hasty.batch(big);
    FAIL() << "a 1 ms timeout did not fire";
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_TIMEOUT);
  }
  auto done = t.put_async(hbclient::Put("v2-fut").add("f", "q", "v")).completion();
  EXPECT_NO_THROW(done.get());
  auto failing = connection().table("v2_missing").get_async(hbclient::Get("r")).result();
  try {
    failing.get();
    FAIL() << "a get from a missing table succeeded";
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_TABLE_NOT_FOUND);
  }
  EXPECT_GT(connection().metric("rpcs"), 0u);
  EXPECT_THROW(connection().metric("no_such"), hbclient::Error);
}

TEST(V2, AdminAndConfigMessages) {
  auto& conn = connection();
  if (conn.table_exists("cpp_admin")) {
    conn.disable_table("cpp_admin");
    conn.delete_table("cpp_admin");
  }
  conn.create_table("cpp_admin", {"f"}, {"m"});
  EXPECT_TRUE(conn.table_exists("cpp_admin"));
  auto names = conn.list_tables();
  EXPECT_NE(std::find(names.begin(), names.end(), "cpp_admin"), names.end());
  conn.disable_table("cpp_admin");
  conn.delete_table("cpp_admin");
  EXPECT_FALSE(conn.table_exists("cpp_admin"));
  hbclient::Config config;
  config.set("hbase.client.write.buffer", "2MB");
  try {
    config.set("no.such.key", "1");
    FAIL();
  } catch (const hbclient::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no.such.key"), std::string::npos);
  }
}

TEST(V2, NamespacesAndDescribe) {
  auto& conn = connection();
  auto spaces = conn.list_namespaces();
  EXPECT_NE(std::find(spaces.begin(), spaces.end(), "default"), spaces.end());
  if (std::find(spaces.begin(), spaces.end(), "cpp_ns") != spaces.end()) {
    if (conn.table_exists("cpp_ns:t")) {
      conn.disable_table("cpp_ns:t");
      conn.delete_table("cpp_ns:t");
    }
    conn.delete_namespace("cpp_ns");
  }
  conn.create_namespace("cpp_ns");
  try {
    conn.create_namespace("cpp_ns");
    FAIL();
  } catch (const hbclient::Error& e) {
    EXPECT_EQ(e.status(), HB_ERR_REMOTE);
    EXPECT_NE(e.exception_class().find("NamespaceExistException"), std::string::npos);
  }
  conn.create_table("cpp_ns:t", {"f", "g"}, {"h", std::string("p\0q", 3)});
  auto d = conn.describe_table("cpp_ns:t");
  EXPECT_EQ(d.name, "cpp_ns:t");
  EXPECT_TRUE(d.enabled);
  ASSERT_EQ(d.families.size(), 2u);
  for (const auto& f : d.families) {
    EXPECT_EQ(f.max_versions, 1u);
    EXPECT_EQ(f.ttl_secs, 0u);
    EXPECT_EQ(f.compression, "NONE");
    EXPECT_FALSE(f.bloom_filter.empty());
  }
  EXPECT_EQ(d.split_keys, (std::vector<std::string>{"h", std::string("p\0q", 3)}));
  try {
    conn.delete_namespace("cpp_ns");
    FAIL();
  } catch (const hbclient::Error& e) {
    EXPECT_NE(e.exception_class().find("ConstraintException"), std::string::npos);
  }
  conn.disable_table("cpp_ns:t");
  EXPECT_FALSE(conn.describe_table("cpp_ns:t").enabled);
  conn.delete_table("cpp_ns:t");
  conn.delete_namespace("cpp_ns");
  spaces = conn.list_namespaces();
  EXPECT_EQ(std::find(spaces.begin(), spaces.end(), "cpp_ns"), spaces.end());
  EXPECT_THROW(conn.describe_table("cpp_ns:t"), hbclient::Error);
}

TEST(V2, AsyncScanBatches) {
  auto table = connection().table("cpp");
  hbclient::Batch batch;
  std::vector<std::string> want;
  for (int i = 0; i < 50; i++) {
    want.push_back("as" + std::to_string(1000 + i));
    batch.add(hbclient::Put(want.back()).add("f", "q", "x"));
  }
  table.batch(batch);

  // std::future form.
  auto scanner = table.scanner(hbclient::Scan().prefix("as").caching(7));
  std::vector<std::string> got;
  for (;;) {
    hbclient::BatchResult rows = scanner.next_batch(10).get();
    ASSERT_LE(rows.size(), 10u);
    if (rows.size() == 0) break;
    for (std::size_t i = 0; i < rows.size(); i++) got.emplace_back(rows.row(i)->row());
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(scanner.next_batch(10).get().size(), 0u);

  // Lambda form: each callback asks for the next batch until the end.
  struct State {
    hbclient::Scanner scanner;
    std::vector<std::string> rows;
    std::promise<void> done;
    void next() {
      scanner.next_async(8).on_complete([this](hbclient::FutureRef f) noexcept {
        try {
          hbclient::BatchResult b = f.take_batch_result();
          if (b.size() == 0) {
            done.set_value();
            return;
          }
          for (std::size_t i = 0; i < b.size(); i++) rows.emplace_back(b.row(i)->row());
          next();
        } catch (...) {
          done.set_exception(std::current_exception());
        }
      });
    }
  };
  State state{table.scanner(hbclient::Scan().prefix("as").caching(5)), {}, {}};
  auto finished = state.done.get_future();
  state.next();
  finished.get();
  EXPECT_EQ(state.rows, want);

  // A failed scan throws through the std::future, again on every request.
  auto missing = connection().table("cpp_no_such_table");
  auto bad = missing.scanner(hbclient::Scan());
  for (int i = 0; i < 2; i++) {
    try {
      bad.next_batch(4).get();
      FAIL();
    } catch (const hbclient::Error& e) {
      EXPECT_EQ(e.status(), HB_ERR_TABLE_NOT_FOUND);
    }
  }
}

// Priorities and attributes on every operation, request attributes on a table handle and
// connection attributes through the config: accepted and the operations still work (what
// arrives at the server is checked by the Rust exports test against mini-hbase's log).
TEST(Attributes, PrioritiesAndAttributesOnEveryOperation) {
  auto config = test_config();
  config.connection_attribute("app", "cpp-test");
  EXPECT_THROW(config.connection_attribute("", "x"), hbclient::Error);
  hbclient::Connection conn(config);
  auto plain = conn.table("cpp");
  auto t = plain.with_request_attribute("tenant", "t\0bin"s).with_request_attribute("op", "x");
  const std::string row = "attr-row";
  t.put(hbclient::Put(row)
            .add("f", "q", "v")
            .priority(hbclient::kHighPriority)
            .attribute("k", "\0put"s));
  auto got = t.get(hbclient::Get(row).priority(7).attribute("k", ""));
  EXPECT_EQ(got.value("f", "q"), std::optional<std::string_view>("v"));
  // No replicas here: a Timeline read is the primary's answer, never stale.
  auto timeline = plain.get(hbclient::Get(row).consistency(hbclient::Consistency::Timeline));
  EXPECT_EQ(timeline.value("f", "q"), std::optional<std::string_view>("v"));
  EXPECT_FALSE(timeline.stale());
  auto appended = t.append(hbclient::Append(row).add("f", "a", "x").priority(9).attribute("k", "a"));
  EXPECT_EQ(appended.cell(0).value, "x");
  auto scanner = t.scanner(hbclient::Scan()
                               .prefix("attr-")
                               .priority(201)
                               .attribute("k", "s")
                               .consistency(hbclient::Consistency::Timeline));
  int rows = 0;
  for (const auto& r : scanner) {
    (void)r;
    rows++;
  }
  EXPECT_EQ(rows, 1);
  t.remove(hbclient::Delete(row).priority(hbclient::kNormalPriority).attribute("k", "d"));
  EXPECT_TRUE(plain.get(hbclient::Get(row)).empty());
}
