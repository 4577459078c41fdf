//! # Coming from the Java client
//!
//! A map from `org.apache.hadoop.hbase.client` to hbclient for people who know the Java API. The
//! examples compile as part of the documentation tests, so the names here are the real ones.
//!
//! ## Connections
//!
//! | Java | hbclient (async) | hbclient (blocking) |
//! |---|---|---|
//! | `ConnectionFactory.createConnection(conf)` | [`Connection::connect`]`(config).await` | [`blocking::Connection::connect`]`(config)` |
//! | `ConnectionFactory.createAsyncConnection(conf)` | the same: every hbclient connection is asynchronous | — |
//! | `ConnectionFactory.createConnection(URI)` (HBase 3) | [`Config::from_uri`]`("hbase+zk://zk1:2181/hbase")` | same |
//! | `HBaseConfiguration.create()` (reads `hbase-site.xml`) | [`Config::from_env`] (`HBASE_CONF_DIR`) or [`Config::from_conf_dir`] | same |
//! | `conf.set("hbase.rpc.timeout", "5000")` | [`Config::builder`]`().set("hbase.rpc.timeout", "5000")?` | same |
//! | `connection.getTable(name)` | [`Connection::table`] → [`AsyncTable`] | [`blocking::Connection::table`] → [`blocking::Table`] |
//! | `connection.getAdmin()` | [`Connection::admin`] → [`Admin`] | [`blocking::Connection::admin`] |
//! | `connection.getBufferedMutator(params)` | [`AsyncTable::buffered_mutator_with`]`(`[`MutatorOptions`]`)` | [`blocking::Table::buffered_mutator_with`] |
//! | `connection.close()` | [`Connection::close`] (or drop the last clone) | same |
//! | `ConnectionFactory.createConnection(conf, .., connectionAttributes)` (2.6) | [`ConfigBuilder::connection_attribute`]`(name, value)` or the key `hbclient.connection.attribute.<name>` | same |
//! | `connection.getTableBuilder(name).setRequestAttribute(k, v).build()` (2.6) | [`AsyncTable::with_request_attribute`]`(k, v)` (a cheap new handle) | [`blocking::Table::with_request_attribute`] |
//!
//! One `Connection` per process and cluster, shared by every task or thread, as in Java: it is
//! cheap to clone, and tables are light handles on it. Unlike the Java `Table`, hbclient's
//! tables are thread-safe.
//!
//! ```no_run
//! # async fn demo() -> hbclient::Result<()> {
//! use hbclient::{Config, Connection, Get, Put};
//!
//! let config = Config::builder()
//!     .set("hbase.zookeeper.quorum", "zk1,zk2,zk3")?
//!     .set("hbase.client.operation.timeout", "30000")?
//!     .build();
//! let conn = Connection::connect(config).await?;
//! let table = conn.table("users")?;
//! table.put(Put::new("u1").add("f", "name", "Ada")).await?;
//! let row = table.get(Get::new("u1").column("f", "name")).await?;
//! assert_eq!(row.value(b"f", b"name").map(|v| &v[..]), Some(&b"Ada"[..]));
//! # Ok(()) }
//! ```
//!
//! ## Table operations
//!
//! | Java (`Table` / `AsyncTable`) | hbclient ([`AsyncTable`]; [`blocking::Table`] has the same names) |
//! |---|---|
//! | `get(Get)` / `get(List<Get>)` | [`AsyncTable::get`] / [`AsyncTable::get_many`] |
//! | `exists(Get)` | [`AsyncTable::exists`] |
//! | `put(Put)` / `put(List<Put>)` | [`AsyncTable::put`] (one Mutate RPC, no hidden buffer) / [`AsyncTable::put_many`] (a result per put) |
//! | `delete(Delete)` | [`AsyncTable::delete`] |
//! | `increment(Increment)`, `incrementColumnValue` | [`AsyncTable::increment`] (sent with a nonce: a retried increment applies once) |
//! | `append(Append)` | [`AsyncTable::append`] |
//! | `mutateRow(RowMutations)` | [`AsyncTable::mutate_row`] |
//! | `checkAndMutate(CheckAndMutate)` | [`AsyncTable::check_and_mutate`] with [`CheckAndMutate::row`]`(..).if_equals(..).then_put(..)` |
//! | `batch(List<Row>, Object[])` | [`AsyncTable::batch`]`(Vec<`[`Action`]`>)`: one result per action, in order |
//! | `getScanner(Scan)` / `AsyncTable.scan` | [`AsyncTable::scan`] → [`Scanner`] (a `Stream` of rows) |
//!
//! ### Building operations
//!
//! | Java | hbclient |
//! |---|---|
//! | `new Put(row).addColumn(f, q, v)` / `addColumn(f, q, ts, v)` | [`Put::new`]`(row).add(f, q, v)` / `.add_at(f, q, ts, v)` |
//! | `put.setDurability(d)` | `.durability(`[`Durability`]`)` |
//! | `new Get(row).addFamily(f).addColumn(f, q)` | [`Get::new`]`(row).family(f).column(f, q)` |
//! | `get.readVersions(n)`, `setTimeRange(a, b)`, `setFilter(f)` | `.max_versions(n)`, `.time_range(a, b)`, `.filter(f)` |
//! | `new Delete(row)` (whole row) | [`Delete::new`]`(row)` |
//! | `delete.addFamily(f)` / `addFamilyVersion(f, ts)` | `.family(f)` / `.family_version(f, ts)` |
//! | `delete.addColumns(f, q)` (every version) / `addColumn(f, q)` (newest) | `.all_versions(f, q)` / `.latest_version(f, q)` |
//! | `new Increment(row).addColumn(f, q, n)` | [`Increment::new`]`(row).add(f, q, n)` |
//! | `new Append(row).addColumn(f, q, v)` | [`Append::new`]`(row).add(f, q, v)` |
//! | `new RowMutations(row).add(put).add(delete)` | [`RowMutations::new`]`(row).put(put).delete(delete)` |
//! | `CheckAndMutate.newBuilder(row).ifEquals(f, q, v).build(put)` | [`CheckAndMutate::row`]`(row).if_equals(f, q, v).then_put(put)?` |
//! | `ifNotExists(f, q)`, `ifMatches(f, q, op, v)`, `ifMatches(filter)`, `timeRange` | `.if_not_exists(f, q)`, `.if_matches(f, q, op, v)`, `.if_filter(filter)`, `.time_range(a, b)` |
//! | `op.setPriority(HConstants.HIGH_QOS)` (Get, Scan, Put, Delete, Increment, Append) | `.priority(`[`priority::HIGH`]`)`; a batch goes at its actions' highest priority, as in Java |
//! | `op.setAttribute(name, bytes)` (`OperationWithAttributes`) | `.attribute(name, bytes)` |
//! | `Result.getValue(f, q)`, `rawCells()`, `getColumnCells(f, q)` | [`RowResult::value`], [`RowResult::cells`], [`RowResult::versions`] |
//!
//! ```no_run
//! # async fn demo(table: hbclient::AsyncTable) -> hbclient::Result<()> {
//! use hbclient::{Action, CheckAndMutate, Delete, Get, Increment, Put};
//!
//! // checkAndPut: write only if the column still holds the value read before.
//! let swapped = table
//!     .check_and_mutate(
//!         CheckAndMutate::row("acct1")
//!             .if_equals("f", "state", "open")
//!             .then_put(Put::new("acct1").add("f", "state", "closed"))?,
//!     )
//!     .await?;
//! // batch: mixed actions, one result each, in the order given.
//! let results = table
//!     .batch(vec![
//!         Action::Put(Put::new("r1").add("f", "q", "v")),
//!         Action::Increment(Increment::new("counters").add("f", "hits", 1)),
//!         Action::Delete(Delete::new("r2")),
//!         Action::Get(Get::new("r3")),
//!     ])
//!     .await;
//! # let _ = (swapped, results); Ok(()) }
//! ```
//!
//! ### Scans
//!
//! | Java `Scan` | hbclient [`Scan`] |
//! |---|---|
//! | `withStartRow(r)` / `withStartRow(r, false)` | `.start(r)` / `.start_after(r)` |
//! | `withStopRow(r)` / `withStopRow(r, true)` | `.stop(r)` / `.stop_inclusive(r)` |
//! | `setRowPrefixFilter(p)` (`setStartStopRowForPrefixScan`) | `.prefix(p)` |
//! | `addFamily(f)`, `addColumn(f, q)` | `.family(f)`, `.column(f, q)` |
//! | `readVersions(n)`, `setTimeRange(a, b)` | `.max_versions(n)`, `.time_range(a, b)` |
//! | `setCaching(n)`, `setMaxResultSize(b)`, `setBatch(n)` | `.caching(n)`, `.max_result_size(b)`, `.batch(n)` |
//! | `setLimit(n)`, `setReversed(true)` | `.limit(n)`, `.reversed()` |
//! | `setAllowPartialResults(true)` | `.allow_partial_results()` |
//! | `setFilter(f)` | `.filter(`[`Filter`]`)`: prefix, column prefix, single-column value, key-only, first-key-only, page, row, value, qualifier, family, lists ([`Filter::all`], [`Filter::any`]), and any other HBase filter as [`Filter::raw`]`(class, bytes)` (bytes from [`ProtoWriter`]) |
//!
//! ```no_run
//! # async fn demo(table: hbclient::AsyncTable) -> hbclient::Result<()> {
//! use futures::TryStreamExt;
//! use hbclient::{CompareOp, Filter, Scan};
//!
//! let mut rows = table.scan(
//!     Scan::new()
//!         .prefix("user#")
//!         .column("f", "name")
//!         .caching(500)
//!         .filter(Filter::Value(CompareOp::NotEqual, "deleted".into())),
//! );
//! while let Some(row) = rows.try_next().await? {
//!     println!("{:?}", row.row());
//! }
//! # Ok(()) }
//! ```
//!
//! ### Region replicas and TIMELINE reads
//!
//! | Java | hbclient |
//! |---|---|
//! | `TableDescriptorBuilder.setRegionReplication(n)` | [`TableDescriptor::region_replication`] |
//! | `get.setConsistency(Consistency.TIMELINE)`, `scan.setConsistency(...)` | [`Get::consistency`]`(`[`Consistency::Timeline`]`)`, [`Scan::consistency`] |
//! | `result.isStale()` | [`RowResult::is_stale`] |
//! | `hbase.client.primaryCallTimeout.get`, `hbase.client.replicaCallTimeout.scan` (µs) | the same keys, or [`ConfigBuilder::primary_call_timeouts`] |
//! | `getReplicaId()` / `setReplicaId(n)` (read one chosen replica) | not offered |
//! | `hbase.locator.meta.replicas.mode` (`None`, `HedgedRead`, `LoadBalance`), `hbase.meta.replicas.use`, `hbase.client.meta.replica.scan.timeout` (µs) | the same keys, or [`ConfigBuilder::meta_replica_mode`]; a replica that does not know a region, or fails, sends the lookup to meta's primary (Java's LoadBalance lookup fails instead) |
//!
//! ## BufferedMutator
//!
//! | Java | hbclient |
//! |---|---|
//! | `BufferedMutatorParams.writeBufferSize(n)` | [`MutatorOptions::write_buffer`] (counted in wire bytes) |
//! | `setWriteBufferPeriodicFlushTimeoutMs(ms)` | [`MutatorOptions::periodic_flush`] |
//! | `maxKeyValueSize`, `hbase.client.write.buffer.maxinflight` | `hbase.client.keyvalue.maxsize`, [`MutatorOptions::max_in_flight`] |
//! | `listener(ExceptionListener)` | [`MutatorOptions::on_error`] (called once per failed mutation, with it) |
//! | `mutate(m)` / `mutate(List)` | [`BufferedMutator::mutate`] / [`BufferedMutator::mutate_many`] (await = room in the buffer, not delivery) |
//! | `flush()` | [`BufferedMutator::flush`]: returns once everything mutated before it is on the server, or a [`MutatorError`] listing each failed mutation |
//! | `close()` | [`BufferedMutator::close`] (flushes first) |
//!
//! Plain [`AsyncTable::put`] is never buffered: it returns once the server has the write.
//!
//! ## Admin
//!
//! | Java `Admin` | hbclient [`Admin`] |
//! |---|---|
//! | `createTable(desc)` / `createTable(desc, splitKeys)` | [`Admin::create_table`]`(&`[`TableDescriptor`]`, splits)` |
//! | `TableDescriptorBuilder.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f))` (default settings) | [`TableDescriptor::new`]`(name, &[f, ...])` |
//! | `ColumnFamilyDescriptorBuilder.setMaxVersions / setTimeToLive / setCompressionType / setBloomFilterType / setDataBlockEncoding` | [`TableDescriptor::new`]`(name, &[])?.family(`[`FamilyDescriptor::new`]`(f).max_versions(n).ttl_secs(s).compression(`[`Compression::Snappy`]`))` — a family goes in `new`'s list or in `.family(..)`, not both: a name given twice is refused, as Java's builder refuses it |
//! | `disableTable`, `enableTable`, `deleteTable` | [`Admin::disable_table`], [`Admin::enable_table`], [`Admin::delete_table`] |
//! | `tableExists`, `isTableEnabled`, `listTableNames`, `getDescriptor` | [`Admin::table_exists`], [`Admin::is_table_enabled`], [`Admin::list_tables`], [`Admin::describe`] |
//! | `split(table, row)`, `move(region, server)`, `flushRegion`, `compactRegion` | [`Admin::split_region`], [`Admin::move_region`], [`Admin::flush_region`], [`Admin::compact_region`] |
//! | `getLogEntries(servers, "SLOW_LOG" / "LARGE_LOG", REGION_SERVER, limit, {tableName})` | [`Admin::slow_log`]`(table, row, `[`SlowLogKind`]`, limit)` (the server holding `row`) |
//!
//! ```no_run
//! # async fn demo(admin: hbclient::Admin) -> hbclient::Result<()> {
//! use hbclient::{BloomType, Compression, FamilyDescriptor, TableDescriptor};
//!
//! // `d` keeps HBase's defaults; `m` has settings, so it is not in `new`'s list too.
//! let descriptor = TableDescriptor::new("metrics", &["d"])?.family(
//!     FamilyDescriptor::new("m")
//!         .max_versions(3)
//!         .ttl_secs(86_400)
//!         .compression(Compression::Snappy)
//!         .bloom_filter(BloomType::RowCol),
//! );
//! admin.create_table(&descriptor, &[b"m"]).await?;
//! # Ok(())
//! # }
//! ```
//!
//! ## Configuration keys
//!
//! hbclient reads the Java client's keys with the Java client's defaults (HBase 2.x); a
//! configuration directory or `hbase-site.xml` made for Java clients works as it is. Keys the
//! client does not use are skipped when they come from a file (logged at debug level) and are
//! an error when passed to [`ConfigBuilder::set`], so typos do not pass silently. Every key is
//! one entry of the client's settings table: the full list, generated from it, is on
//! [`ConfigBuilder::set`], and [`Config::keys`] gives it at run time with each key's default
//! (a test keeps the keys below in that table). The ones people ask about:
//!
//! | key | meaning in hbclient |
//! |---|---|
//! | `hbase.zookeeper.quorum`, `hbase.zookeeper.property.clientPort`, `zookeeper.znode.parent` | ZooKeeper discovery |
//! | `hbase.client.bootstrap.servers`, `hbase.client.registry.impl` | ZooKeeper-free discovery (`RpcConnectionRegistry`) |
//! | `hbase.client.retries.number`, `hbase.client.pause`, `hbase.client.pause.server.overloaded` | retries and backoff, with HBase's backoff table and jitter |
//! | `hbase.rpc.timeout`, `hbase.rpc.read.timeout`, `hbase.rpc.write.timeout`, `hbase.client.operation.timeout` | per-RPC and whole-operation deadlines; the remaining time is sent to the server with each call |
//! | `hbase.client.meta.operation.timeout`, `hbase.client.meta.read.rpc.timeout`, `hbase.client.meta.scanner.timeout.period` | the same clocks for system tables (hbase:meta) and region lookups, as in Java |
//! | `hbase.client.scanner.caching`, `hbase.client.scanner.max.result.size`, `hbase.client.scanner.timeout.period` | scans; the scanner timeout bounds each step (open, next batch), not the whole scan |
//! | `hbase.client.write.buffer`, `hbase.client.write.buffer.periodicflush.timeout.ms` | [`BufferedMutator`] defaults |
//! | `hbase.client.ipc.pool.size` | connections per server (one is usually enough: calls are multiplexed) |
//! | `hbase.security.authentication`, `hbase.rpc.protection`, `hbase.master.kerberos.principal`, `hbase.regionserver.kerberos.principal`, `hbase.client.keytab.*` | Kerberos (SASL GSSAPI) at each protection level |
//! | `hbase.client.netty.tls.enabled`, `hbase.rpc.tls.*` | TLS (PEM stores; convert JKS/PKCS12 with `keytool`/`openssl`) |
//!
//! ## Errors
//!
//! Java throws a class hierarchy (`RetriesExhaustedException`, `DoNotRetryIOException`,
//! `TableNotFoundException`, ...). hbclient returns one [`Error`] with [`Error::kind`] (timeout,
//! not found, authentication, remote, ...), [`Error::is_retriable`], and, when the server
//! answered with an exception, its Java class name in [`RemoteError`]. Retries happen inside the
//! call, within the operation deadline; what reaches you has already been retried.
//!
//! [`Connection::connect`]: crate::Connection::connect
//! [`Connection::table`]: crate::Connection::table
//! [`Connection::admin`]: crate::Connection::admin
//! [`Connection::close`]: crate::Connection::close
//! [`blocking::Connection::connect`]: crate::blocking::Connection::connect
//! [`blocking::Connection::table`]: crate::blocking::Connection::table
//! [`blocking::Connection::admin`]: crate::blocking::Connection::admin
//! [`blocking::Table`]: crate::blocking::Table
//! [`blocking::Table::buffered_mutator_with`]: crate::blocking::Table::buffered_mutator_with
//! [`blocking::Table::with_request_attribute`]: crate::blocking::Table::with_request_attribute
//! [`priority::HIGH`]: crate::priority::HIGH

#[allow(unused_imports)] // Brings the names the links above resolve to into scope.
use crate::{
    Action, Admin, Append, AsyncTable, BufferedMutator, CheckAndMutate, Compression, ConfigBuilder,
    Delete, Durability, Error, FamilyDescriptor, Filter, Get, Increment, MutatorError,
    MutatorOptions, ProtoWriter, Put, RemoteError, RowMutations, RowResult, Scan, Scanner,
    SlowLogKind, TableDescriptor,
};
#[allow(unused_imports)]
use crate::{Config, Connection, Consistency};
