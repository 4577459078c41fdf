// C++ use of libhbclient through the header-only wrapper hbclient.hpp: blocking put/get, a
// batch, a scan (as a range, with a filter; and in batches through std::future and lambdas),
// async puts with callbacks and std::future, append, atomic row mutations under a check, a
// per-call timeout, a namespace with a described table, and a buffered mutator; then the
// library's threads are stopped with hbclient::shutdown.
//   hbclient_example BOOTSTRAP_SERVERS|zk:QUORUM [TABLE]     (TABLE needs family "f")
#include <hbclient.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <iostream>
#include <string>
#include <thread>

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " BOOTSTRAP_SERVERS|zk:QUORUM [TABLE]\n";
    return 2;
  }
  std::string target = argv[1];
  hbclient::Config config;
  if (target.rfind("zk:", 0) == 0) {
    config.set("hbase.zookeeper.quorum", target.substr(3));
  } else {
    config.set("hbase.client.bootstrap.servers", target);
  }
  hbclient::Connection conn(config);
  auto table = conn.table(argc > 2 ? argv[2] : "t");

  table.put(hbclient::Put("cpp-example").add("f", "greeting", "hello"));
  auto row = table.get(hbclient::Get("cpp-example"));
  std::cout << "get: " << row.value("f", "greeting").value_or("(missing)") << "\n";

  hbclient::Batch batch;
  for (int i = 0; i < 100; i++) {
    auto key = "cpp-batch-" + std::to_string(100 + i);
    batch.add(hbclient::Put(key).add("f", "n", key));
  }
  auto outcome = table.batch(batch);
  std::cout << "batch: " << outcome.size() << " items\n";

  int rows = 0;
  auto scanner = table.scanner(hbclient::Scan().start_row("cpp-batch-").stop_row("cpp-batch."));
  while (auto r = scanner.next()) rows++;
  std::cout << "scan: " << rows << " rows\n";

  std::atomic<int> done{0};
  for (int i = 0; i < 200; i++) {
    auto f = table.put_async(hbclient::Put("cpp-async-" + std::to_string(i)).add("f", "q", "v"));
    f.on_complete([&done](hbclient::FutureRef result) {
      if (!result.error()) done++;
    });
  }
  for (int i = 0; i < 2000 && done.load() < 200; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::cout << "async: " << done.load() << " puts acknowledged\n";

  // A filtered scan, iterated as a range.
  auto high = hbclient::Filter::row(hbclient::CompareOp::GreaterOrEqual, "cpp-batch-190");
  int filtered = 0;
  for (const hbclient::Result& r : table.scanner(hbclient::Scan().prefix("cpp-batch-").filter(high))) {
    (void)r;
    filtered++;
  }
  std::cout << "filtered scan: " << filtered << " rows\n";

  // Append (async, through std::future), then two mutations applied only if a check holds.
  const std::string v2 =
      "cpp-v2-" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  auto appended = table.append_async(hbclient::Append(v2).add("f", "log", "a;")).result();
  std::cout << "append: " << appended.get().value("f", "log").value_or("") << "\n";
  hbclient::RowMutations both(v2);
  both.add(hbclient::Put(v2).add("f", "state", "done")).add(hbclient::Delete(v2).column("f", "log"));
  bool applied = table.check_and_mutate(hbclient::Check(v2).absent("f", "state"), both);
  std::cout << "check_and_mutate: " << (applied ? "applied" : "not applied") << "\n";

  // Every operation of this handle gives up after 5 s.
  auto bounded = table.with_timeout(std::chrono::seconds(5));
  std::cout << "exists: " << bounded.exists(hbclient::Get(v2)) << "\n";

  // The same rows in batches without blocking: a std::future per batch, then lambdas that
  // ask for the next batch from their callback until the empty batch that ends the scan.
  int async_rows = 0;
  auto batches = table.scanner(hbclient::Scan().prefix("cpp-batch-").caching(30));
  for (;;) {
    hbclient::BatchResult b = batches.next_batch(25).get();
    if (b.size() == 0) break;
    async_rows += static_cast<int>(b.size());
  }
  struct Reader {
    hbclient::Scanner scanner;
    int rows = 0;
    std::promise<void> done;
    void next() {
      scanner.next_async(40).on_complete([this](hbclient::FutureRef f) noexcept {
        try {
          hbclient::BatchResult b = f.take_batch_result();
          if (b.size() == 0) return done.set_value();
          rows += static_cast<int>(b.size());
          next();
        } catch (...) {
          done.set_exception(std::current_exception());
        }
      });
    }
  };
  Reader reader{table.scanner(hbclient::Scan().prefix("cpp-batch-")), 0, {}};
  auto read_all = reader.done.get_future();
  reader.next();
  read_all.get();
  std::cout << "async scan: " << async_rows << " rows (std::future), " << reader.rows
            << " rows (callbacks)\n";

  // A namespace of our own with a pre-split table, described, then removed again.
  const std::string ns =
      "cpp_example_" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  conn.create_namespace(ns);
  conn.create_table(ns + ":t", {"f", "g"}, {"k", "s"});
  hbclient::TableDescription d = conn.describe_table(ns + ":t");
  std::cout << "describe " << d.name << ": " << (d.enabled ? "enabled" : "disabled") << ", "
            << d.families.size() << " families, " << d.split_keys.size() + 1 << " regions\n";
  for (const hbclient::FamilyDescription& f : d.families) {
    std::cout << "  family " << f.name << ": versions " << f.max_versions << ", ttl "
              << (f.ttl_secs ? std::to_string(f.ttl_secs) : "forever") << ", compression "
              << f.compression << ", bloom " << f.bloom_filter << "\n";
  }
  conn.disable_table(ns + ":t");
  conn.delete_table(ns + ":t");
  conn.delete_namespace(ns);
  bool described = d.families.size() == 2 && d.split_keys.size() == 2 && d.enabled;

  auto mutator = conn.mutator(argc > 2 ? argv[2] : "t");
  for (int i = 0; i < 500; i++) {
    mutator.put(hbclient::Put("cpp-mutator-" + std::to_string(i)).add("f", "q", "v"));
  }
  mutator.close();
  std::cout << "mutator: closed without failures\n";
  std::cout << "rpcs sent: " << conn.metric("rpcs") << "\n";
  conn.close();          // returns once the connection's I/O has stopped
  hbclient::shutdown();  // joins the library's threads
  return rows == 100 && done.load() == 200 && filtered == 10 && applied && async_rows == 100 &&
                 reader.rows == 100 && described
             ? 0
             : 1;
} catch (const hbclient::Error& e) {
  std::cerr << "hbclient error " << e.status() << " (" << hb_status_str(e.status())
            << "): " << e.what() << " " << e.exception_class() << "\n";
  return 1;
}
