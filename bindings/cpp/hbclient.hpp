// hbclient.hpp: a header-only C++17 wrapper over libhbclient's C API (hbclient.h).
//
// - Every handle has one owner (move-only classes over std::unique_ptr with the C _free).
// - Inputs are std::string_view (binary safe: rows and values may contain NUL bytes) and are
//   copied by the library, so temporaries are fine.
// - Failures throw hbclient::Error, carrying the hb_error's status, message, the server's
//   exception class and whether a retry may help.
// - Futures can be waited on, given a callback (a lambda; run on a library callback thread,
//   where blocking calls are allowed), turned into a std::future, or cancelled.
// - Scanners are input ranges: `for (const Result& row : table.scanner(scan))`, and hand out
//   batches asynchronously (Scanner::next_async / next_batch).
// Compiles warning-free with -Wall -Wextra -Werror -pedantic as C++17 and C++20.
// No third-party types; link with -lhbclient (or CMake's hbclient::cpp).
#ifndef HBCLIENT_HPP
#define HBCLIENT_HPP

#include <hbclient.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <future>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hbclient {

/// "Let the server pick the time."
inline constexpr std::uint64_t kLatestTimestamp = HB_LATEST_TIMESTAMP;
/// QoS priorities HBase defines (HConstants.NORMAL_QOS, HIGH_QOS) for the `priority` setters.
inline constexpr std::uint32_t kNormalPriority = 0;
inline constexpr std::uint32_t kHighPriority = 200;

/// A failed call: the C API's hb_error as an exception.
class Error : public std::runtime_error {
 public:
  Error(hb_status status, const std::string& message, std::string exception_class, bool retriable)
      : std::runtime_error(message),
        status_(status),
        exception_class_(std::move(exception_class)),
        retriable_(retriable) {}

  /// The status (HB_ERR_...).
  hb_status status() const noexcept { return status_; }
  /// The server's Java exception class, or empty when the error did not come from the server.
  const std::string& exception_class() const noexcept { return exception_class_; }
  /// Whether retrying the operation may succeed.
  bool retriable() const noexcept { return retriable_; }

  /// An Error from a borrowed hb_error (or from the status alone when `error` is NULL).
  static Error from(hb_status status, const hb_error* error) {
    if (error == nullptr) {
      return Error(status, hb_status_str(status), std::string(), false);
    }
    const char* cls = hb_error_exception_class(error);
    return Error(hb_error_status(error), hb_error_message(error), cls ? cls : "",
                 hb_error_is_retriable(error));
  }

 private:
  hb_status status_;
  std::string exception_class_;
  bool retriable_;
};

namespace detail {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const noexcept { Free(p); }
};

template <class T, void (*Free)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

/// Throws for a failed status, taking ownership of `err` (an owned hb_error or NULL). Call it in
/// a statement after the C call: `check(hb_x(..., &err), err)` would read `err` too early
/// (argument evaluation order is unspecified).
inline void check(hb_status status, hb_error* err = nullptr) {
  if (status == HB_OK) {
    hb_error_free(err);
    return;
  }
  Error e = Error::from(status, err);
  hb_error_free(err);
  throw e;
}

inline const std::uint8_t* bytes(std::string_view s) noexcept {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

inline std::string_view view(const std::uint8_t* p, std::size_t n) noexcept {
  return std::string_view(reinterpret_cast<const char*>(p), n);
}

}  // namespace detail

/// Client settings by HBase key name.
class Config {
 public:
  Config() {
    hb_config* c = nullptr;
    detail::check(hb_config_new(&c));
    handle_.reset(c);
  }
  /// Sets a key (e.g. "hbase.zookeeper.quorum"); throws for unknown keys or bad values.
  /// Sizes may be written as Hadoop does ("2MB", "64k"). The Error's message says what is wrong.
  Config& set(std::string_view key, std::string_view value) {
    std::string k(key), v(value);
    hb_error* err = nullptr;
    hb_status st = hb_config_set_err(handle_.get(), k.c_str(), v.c_str(), &err);
    detail::check(st, err);
    return *this;
  }
  /// A connection attribute sent once per connection (HBase 2.6+; Java's connectionAttributes):
  /// the key "hbclient.connection.attribute.<name>".
  Config& connection_attribute(std::string_view name, std::string_view value) {
    return set("hbclient.connection.attribute." + std::string(name), value);
  }
  /// Applies a client configuration directory (core-site.xml, then hbase-site.xml: discovery,
  /// Kerberos, TLS), as Java clients read `HBASE_CONF_DIR`; throws naming the bad file or key.
  Config& load_dir(std::string_view dir) {
    std::string d(dir);
    hb_error* err = nullptr;
    hb_status status = hb_config_load_dir(handle_.get(), d.c_str(), &err);
    detail::check(status, err);
    return *this;
  }
  const hb_config* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_config, hb_config_free> handle_;
};

/// Comparison operators of filters and checks (HBase's order: see hbclient.h).
enum class CompareOp : std::uint32_t {
  Less = HB_COMPARE_LESS,
  LessOrEqual = HB_COMPARE_LESS_OR_EQUAL,
  Equal = HB_COMPARE_EQUAL,
  NotEqual = HB_COMPARE_NOT_EQUAL,
  GreaterOrEqual = HB_COMPARE_GREATER_OR_EQUAL,
  Greater = HB_COMPARE_GREATER,
};

/// How consistent a read must be (HBase's Consistency; see hbclient.h).
enum class Consistency : std::uint32_t {
  Strong = HB_CONSISTENCY_STRONG,
  /// The primary first, the secondary replicas too once it is slow; may be stale.
  Timeline = HB_CONSISTENCY_TIMELINE,
};

/// A server-side filter for gets, scans and checks. Built by the static functions; lists by
/// all_of / any_of.
class Filter {
 public:
  static Filter prefix(std::string_view p) {
    return make([&](hb_filter** f) { return hb_filter_prefix_new(p.data(), p.size(), f); });
  }
  static Filter column_prefix(std::string_view p) {
    return make([&](hb_filter** f) { return hb_filter_column_prefix_new(p.data(), p.size(), f); });
  }
  /// Rows whose family:qualifier compares true (`value OP stored`); rows lacking the column pass
  /// unless drop_if_missing.
  static Filter column_value(std::string_view family, std::string_view qualifier, CompareOp op,
                             std::string_view value, bool drop_if_missing) {
    return make([&](hb_filter** f) {
      return hb_filter_column_value_new(family.data(), family.size(), qualifier.data(),
                                        qualifier.size(), static_cast<std::uint32_t>(op),
                                        value.data(), value.size(), drop_if_missing, f);
    });
  }
  static Filter row(CompareOp op, std::string_view key) {
    return make([&](hb_filter** f) {
      return hb_filter_row_new(static_cast<std::uint32_t>(op), key.data(), key.size(), f);
    });
  }
  static Filter value(CompareOp op, std::string_view v) {
    return make([&](hb_filter** f) {
      return hb_filter_value_new(static_cast<std::uint32_t>(op), v.data(), v.size(), f);
    });
  }
  static Filter key_only() { return make([](hb_filter** f) { return hb_filter_key_only_new(f); }); }
  static Filter first_key_only() {
    return make([](hb_filter** f) { return hb_filter_first_key_only_new(f); });
  }
  static Filter page(std::int64_t rows) {
    return make([&](hb_filter** f) { return hb_filter_page_new(rows, f); });
  }
  /// Every filter must pass (AND).
  static Filter all_of(std::initializer_list<const Filter*> filters) {
    return list(HB_FILTER_MUST_PASS_ALL, filters);
  }
  /// One passing filter is enough (OR).
  static Filter any_of(std::initializer_list<const Filter*> filters) {
    return list(HB_FILTER_MUST_PASS_ONE, filters);
  }
  const hb_filter* get() const noexcept { return handle_.get(); }

 private:
  template <class Make>
  static Filter make(Make m) {
    hb_filter* f = nullptr;
    detail::check(m(&f));
    Filter out;
    out.handle_.reset(f);
    return out;
  }
  static Filter list(std::uint32_t op, std::initializer_list<const Filter*> filters) {
    Filter out = make([&](hb_filter** f) { return hb_filter_list_new(op, f); });
    for (const Filter* f : filters) detail::check(hb_filter_list_add(out.handle_.get(), f->get()));
    return out;
  }
  Filter() = default;
  detail::Handle<hb_filter, hb_filter_free> handle_;
};

/// Cells to write to one row.
class Put {
 public:
  explicit Put(std::string_view row) {
    hb_put* p = nullptr;
    detail::check(hb_put_new(detail::bytes(row), row.size(), &p));
    handle_.reset(p);
  }
  Put& add(std::string_view family, std::string_view qualifier, std::string_view value,
           std::uint64_t timestamp = kLatestTimestamp) {
    detail::check(hb_put_add(handle_.get(), detail::bytes(family), family.size(),
                             detail::bytes(qualifier), qualifier.size(), detail::bytes(value),
                             value.size(), timestamp));
    return *this;
  }
  /// QoS priority of the put's RPCs (RequestHeader.priority), e.g. kHighPriority.
  Put& priority(std::uint32_t p) {
    detail::check(hb_put_set_priority(handle_.get(), p));
    return *this;
  }
  /// An operation attribute sent inside the put (Java's setAttribute).
  Put& attribute(const std::string& name, std::string_view value) {
    detail::check(hb_put_set_attribute(handle_.get(), name.c_str(), value.data(),
                                              value.size()));
    return *this;
  }
  const hb_put* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_put, hb_put_free> handle_;
};

/// Columns to read from one row.
class Get {
 public:
  explicit Get(std::string_view row) {
    hb_get* g = nullptr;
    detail::check(hb_get_new(detail::bytes(row), row.size(), &g));
    handle_.reset(g);
  }
  Get& column(std::string_view family, std::string_view qualifier) {
    detail::check(hb_get_add_column(handle_.get(), detail::bytes(family), family.size(),
                                    detail::bytes(qualifier), qualifier.size()));
    return *this;
  }
  Get& family(std::string_view family) {
    detail::check(hb_get_add_family(handle_.get(), detail::bytes(family), family.size()));
    return *this;
  }
  Get& max_versions(std::uint32_t n) {
    detail::check(hb_get_set_max_versions(handle_.get(), n));
    return *this;
  }
  /// Only cells with from_ms <= timestamp < to_ms.
  Get& time_range(std::uint64_t from_ms, std::uint64_t to_ms) {
    detail::check(hb_get_set_time_range(handle_.get(), from_ms, to_ms));
    return *this;
  }
  Get& filter(const Filter& f) {
    detail::check(hb_get_set_filter(handle_.get(), f.get()));
    return *this;
  }
  /// Read consistency (Java's setConsistency); Timeline results may be stale().
  Get& consistency(Consistency c) {
    detail::check(hb_get_set_consistency(handle_.get(), static_cast<std::uint32_t>(c)));
    return *this;
  }
  /// QoS priority of the get's RPCs (RequestHeader.priority), e.g. kHighPriority.
  Get& priority(std::uint32_t p) {
    detail::check(hb_get_set_priority(handle_.get(), p));
    return *this;
  }
  /// An operation attribute sent inside the get (Java's setAttribute).
  Get& attribute(const std::string& name, std::string_view value) {
    detail::check(hb_get_set_attribute(handle_.get(), name.c_str(), value.data(),
                                              value.size()));
    return *this;
  }
  const hb_get* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_get, hb_get_free> handle_;
};

/// Cells, columns or families to delete from one row (the whole row when nothing is added).
class Delete {
 public:
  explicit Delete(std::string_view row) {
    hb_delete* d = nullptr;
    detail::check(hb_delete_new(detail::bytes(row), row.size(), &d));
    handle_.reset(d);
  }
  /// Every version of a column.
  Delete& column(std::string_view family, std::string_view qualifier) {
    detail::check(hb_delete_add_column(handle_.get(), detail::bytes(family), family.size(),
                                       detail::bytes(qualifier), qualifier.size()));
    return *this;
  }
  /// The version of a column at exactly `timestamp` (kLatestTimestamp: the newest).
  Delete& column_version(std::string_view family, std::string_view qualifier,
                         std::uint64_t timestamp) {
    detail::check(hb_delete_add_column_version(handle_.get(), detail::bytes(family),
                                               family.size(), detail::bytes(qualifier),
                                               qualifier.size(), timestamp));
    return *this;
  }
  /// Every column of a family.
  Delete& family(std::string_view family) {
    detail::check(hb_delete_add_family(handle_.get(), detail::bytes(family), family.size()));
    return *this;
  }
  /// QoS priority of the delete's RPCs (RequestHeader.priority), e.g. kHighPriority.
  Delete& priority(std::uint32_t p) {
    detail::check(hb_delete_set_priority(handle_.get(), p));
    return *this;
  }
  /// An operation attribute sent inside the delete (Java's setAttribute).
  Delete& attribute(const std::string& name, std::string_view value) {
    detail::check(hb_delete_set_attribute(handle_.get(), name.c_str(), value.data(),
                                              value.size()));
    return *this;
  }
  const hb_delete* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_delete, hb_delete_free> handle_;
};

/// Bytes appended atomically to columns of one row.
class Append {
 public:
  explicit Append(std::string_view row) {
    hb_append* a = nullptr;
    detail::check(hb_append_new(row.data(), row.size(), &a));
    handle_.reset(a);
  }
  Append& add(std::string_view family, std::string_view qualifier, std::string_view value) {
    detail::check(hb_append_add(handle_.get(), family.data(), family.size(), qualifier.data(),
                                qualifier.size(), value.data(), value.size()));
    return *this;
  }
  /// QoS priority of the append's RPCs (RequestHeader.priority), e.g. kHighPriority.
  Append& priority(std::uint32_t p) {
    detail::check(hb_append_set_priority(handle_.get(), p));
    return *this;
  }
  /// An operation attribute sent inside the append (Java's setAttribute).
  Append& attribute(const std::string& name, std::string_view value) {
    detail::check(hb_append_set_attribute(handle_.get(), name.c_str(), value.data(),
                                              value.size()));
    return *this;
  }
  const hb_append* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_append, hb_append_free> handle_;
};

/// Puts and deletes of one row applied together atomically.
class RowMutations {
 public:
  explicit RowMutations(std::string_view row) {
    hb_row_mutations* m = nullptr;
    detail::check(hb_row_mutations_new(row.data(), row.size(), &m));
    handle_.reset(m);
  }
  RowMutations& add(const Put& p) {
    detail::check(hb_row_mutations_add_put(handle_.get(), p.get()));
    return *this;
  }
  RowMutations& add(const Delete& d) {
    detail::check(hb_row_mutations_add_delete(handle_.get(), d.get()));
    return *this;
  }
  const hb_row_mutations* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_row_mutations, hb_row_mutations_free> handle_;
};

/// The condition of Table::check_and_mutate: one test on a row.
class Check {
 public:
  explicit Check(std::string_view row) {
    hb_check* c = nullptr;
    detail::check(hb_check_new(row.data(), row.size(), &c));
    handle_.reset(c);
  }
  /// `value OP stored value` of family:qualifier.
  Check& column(std::string_view family, std::string_view qualifier, CompareOp op,
                std::string_view value) {
    const char* v = value.data() != nullptr ? value.data() : "";
    detail::check(hb_check_column(handle_.get(), family.data(), family.size(), qualifier.data(),
                                  qualifier.size(), static_cast<std::uint32_t>(op), v,
                                  value.size()));
    return *this;
  }
  /// family:qualifier is absent.
  Check& absent(std::string_view family, std::string_view qualifier) {
    detail::check(hb_check_column(handle_.get(), family.data(), family.size(), qualifier.data(),
                                  qualifier.size(), HB_COMPARE_EQUAL, nullptr, 0));
    return *this;
  }
  /// The row passes `f`.
  Check& filter(const Filter& f) {
    detail::check(hb_check_filter(handle_.get(), f.get()));
    return *this;
  }
  Check& time_range(std::uint64_t from_ms, std::uint64_t to_ms) {
    detail::check(hb_check_set_time_range(handle_.get(), from_ms, to_ms));
    return *this;
  }
  const hb_check* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_check, hb_check_free> handle_;
};

/// A view of one cell; valid as long as the Result it came from.
struct Cell {
  std::string_view row;
  std::string_view family;
  std::string_view qualifier;
  std::string_view value;
  std::uint64_t timestamp;
};

/// The cells of one row. Owning (from get/scan/futures) or borrowed (from a BatchResult, valid
/// as long as it).
class Result {
 public:
  /// Takes ownership of a result from the C API.
  static Result adopt(hb_result* r) { return Result(r, r); }
  /// Wraps a borrowed result.
  static Result borrow(const hb_result* r) { return Result(nullptr, r); }

  bool empty() const noexcept { return hb_result_is_empty(ptr_); }
  /// True when a secondary region replica answered a Timeline read (may miss recent writes).
  bool stale() const noexcept { return hb_result_is_stale(ptr_); }
  std::size_t size() const noexcept { return hb_result_cell_count(ptr_); }
  std::string_view row() const {
    const std::uint8_t* p = nullptr;
    std::size_t n = 0;
    detail::check(hb_result_row(ptr_, &p, &n));
    return detail::view(p, n);
  }
  Cell cell(std::size_t i) const {
    hb_cell c;
    detail::check(hb_result_cell(ptr_, i, &c));
    return Cell{detail::view(c.row, c.row_len), detail::view(c.family, c.family_len),
                detail::view(c.qualifier, c.qualifier_len), detail::view(c.value, c.value_len),
                c.timestamp};
  }
  std::vector<Cell> cells() const {
    std::vector<Cell> out;
    out.reserve(size());
    for (std::size_t i = 0; i < size(); i++) out.push_back(cell(i));
    return out;
  }
  /// The newest value of a column, or nullopt.
  std::optional<std::string_view> value(std::string_view family,
                                        std::string_view qualifier) const {
    const std::uint8_t* p = nullptr;
    std::size_t n = 0;
    hb_status st = hb_result_value(ptr_, detail::bytes(family), family.size(),
                                   detail::bytes(qualifier), qualifier.size(), &p, &n);
    if (st == HB_ERR_NOT_FOUND) return std::nullopt;
    detail::check(st);
    return detail::view(p, n);
  }
  const hb_result* get() const noexcept { return ptr_; }

 private:
  Result(hb_result* owned, const hb_result* ptr) : owned_(owned), ptr_(ptr) {}
  detail::Handle<hb_result, hb_result_free> owned_;
  const hb_result* ptr_;
};

/// Gets, puts and deletes sent together.
class Batch {
 public:
  Batch() {
    hb_batch* b = nullptr;
    detail::check(hb_batch_new(&b));
    handle_.reset(b);
  }
  Batch& add(const Put& p) {
    detail::check(hb_batch_add_put(handle_.get(), p.get()));
    return *this;
  }
  Batch& add(const Get& g) {
    detail::check(hb_batch_add_get(handle_.get(), g.get()));
    return *this;
  }
  Batch& add(const Delete& d) {
    detail::check(hb_batch_add_delete(handle_.get(), d.get()));
    return *this;
  }
  std::size_t size() const noexcept { return hb_batch_count(handle_.get()); }
  const hb_batch* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_batch, hb_batch_free> handle_;
};

/// The outcome of each item of a batch.
class BatchResult {
 public:
  explicit BatchResult(hb_batch_result* r) : handle_(r) {}
  std::size_t size() const noexcept { return hb_batch_result_count(handle_.get()); }
  hb_status status(std::size_t i) const noexcept {
    return hb_batch_result_status(handle_.get(), i, nullptr);
  }
  bool ok(std::size_t i) const noexcept { return status(i) == HB_OK; }
  /// The item's error, or nullopt when it succeeded.
  std::optional<Error> error(std::size_t i) const {
    const hb_error* e = nullptr;
    hb_status st = hb_batch_result_status(handle_.get(), i, &e);
    if (st == HB_OK) return std::nullopt;
    return Error::from(st, e);
  }
  /// The row of a successful get item (borrowed: valid as long as this BatchResult).
  std::optional<Result> row(std::size_t i) const {
    const hb_result* r = hb_batch_result_get(handle_.get(), i);
    if (r == nullptr) return std::nullopt;
    return Result::borrow(r);
  }

 private:
  detail::Handle<hb_batch_result, hb_batch_result_free> handle_;
};

/// Operations on a future that does not own it (what callbacks receive).
class FutureRef {
 public:
  explicit FutureRef(hb_future* f) noexcept : f_(f) {}
  /// Blocks until complete; throws the operation's error.
  void wait() const {
    hb_status st = hb_future_wait(f_);
    if (st != HB_OK) throw Error::from(st, hb_future_error(f_));
  }
  /// Waits up to `timeout`: false if still running; throws the operation's error.
  bool wait_for(std::chrono::milliseconds timeout) const {
    hb_status st = hb_future_wait_timeout(f_, static_cast<std::uint64_t>(timeout.count()));
    if (st == HB_ERR_NOT_READY) return false;
    if (st != HB_OK) throw Error::from(st, hb_future_error(f_));
    return true;
  }
  bool ready() const noexcept { return hb_future_is_ready(f_); }
  /// The error of a failed operation, or nullopt (also while running).
  std::optional<Error> error() const {
    const hb_error* e = hb_future_error(f_);
    if (e == nullptr) return std::nullopt;
    return Error::from(hb_error_status(e), e);
  }
  /// The row of a completed get (once); throws the operation's error.
  Result take_result() const {
    hb_result* r = nullptr;
    hb_status st = hb_future_take_result(f_, &r);
    if (st != HB_OK) throw Error::from(st, hb_future_error(f_));
    return Result::adopt(r);
  }
  /// The outcome of a completed batch (once); throws the operation's error.
  BatchResult take_batch_result() const {
    hb_batch_result* r = nullptr;
    hb_status st = hb_future_take_batch_result(f_, &r);
    if (st != HB_OK) throw Error::from(st, hb_future_error(f_));
    return BatchResult(r);
  }
  /// The new value of a completed increment_async (once); throws the operation's error.
  std::int64_t take_int64() const {
    std::int64_t v = 0;
    hb_status st = hb_future_take_int64(f_, &v);
    if (st != HB_OK) throw Error::from(st, hb_future_error(f_));
    return v;
  }
  /// Whether a completed check_and_mutate_async applied (once); throws the operation's error.
  bool take_bool() const {
    bool v = false;
    hb_status st = hb_future_take_bool(f_, &v);
    if (st != HB_OK) throw Error::from(st, hb_future_error(f_));
    return v;
  }
  hb_future* get() const noexcept { return f_; }

 protected:
  hb_future* f_;
};

/// An operation in flight (owning). Destroying it does not cancel the operation.
class Future : public FutureRef {
 public:
  explicit Future(hb_future* f) : FutureRef(f), handle_(f) {
    if (f == nullptr) throw Error(HB_ERR_PANIC, "libhbclient returned no future", "", false);
  }

  /// Calls `callback(FutureRef)` once the operation completes, on a library callback thread
  /// (never the calling one), even if this Future is destroyed first. The callback must not
  /// throw (an escaping exception calls std::terminate). Only one callback per future.
  template <class F>
  void on_complete(F callback) {
    auto holder = std::make_unique<F>(std::move(callback));
    hb_status st = hb_future_set_callback(f_, &trampoline<F>, holder.get());
    detail::check(st);
    holder.release();  // owned by the callback from now on
  }

  /// Requests cancellation: the operation completes with HB_ERR_CANCELLED (a write may still
  /// have been applied). False when it had already completed.
  bool cancel() {
    hb_status st = hb_future_cancel(f_);
    if (st == HB_ERR_INVALID_STATE) return false;
    detail::check(st);
    return true;
  }

  /// A std::future that becomes ready when the operation completes (throwing its Error). Uses
  /// this future's one callback.
  std::future<void> completion() {
    return bridge<void>([](FutureRef r) { r.wait(); });
  }
  /// A std::future of the row of a get or append (throwing the operation's Error).
  std::future<Result> result() {
    return bridge<Result>([](FutureRef r) { return r.take_result(); });
  }
  /// A std::future of the outcome of a batch.
  std::future<BatchResult> batch_result() {
    return bridge<BatchResult>([](FutureRef r) { return r.take_batch_result(); });
  }

 private:
  template <class T, class Take>
  std::future<T> bridge(Take take) {
    auto promise = std::make_shared<std::promise<T>>();
    std::future<T> out = promise->get_future();
    on_complete([promise, take](FutureRef r) noexcept {
      try {
        if constexpr (std::is_void_v<T>) {
          take(r);
          promise->set_value();
        } else {
          promise->set_value(take(r));
        }
      } catch (...) {
        promise->set_exception(std::current_exception());
      }
    });
    return out;
  }
  template <class F>
  static void trampoline(hb_future* f, void* userdata) noexcept {
    std::unique_ptr<F> callback(static_cast<F*>(userdata));
    (*callback)(FutureRef(f));
  }
  detail::Handle<hb_future, hb_future_free> handle_;
};

/// The rows of a scan.
class Scan {
 public:
  Scan() {
    hb_scan* s = nullptr;
    detail::check(hb_scan_new(&s));
    handle_.reset(s);
  }
  Scan& start_row(std::string_view row) {
    detail::check(hb_scan_set_start_row(handle_.get(), detail::bytes(row), row.size()));
    return *this;
  }
  Scan& stop_row(std::string_view row) {
    detail::check(hb_scan_set_stop_row(handle_.get(), detail::bytes(row), row.size()));
    return *this;
  }
  Scan& family(std::string_view family) {
    detail::check(hb_scan_add_family(handle_.get(), detail::bytes(family), family.size()));
    return *this;
  }
  Scan& limit(std::uint64_t rows) {
    detail::check(hb_scan_set_limit(handle_.get(), rows));
    return *this;
  }
  Scan& caching(std::uint32_t rows) {
    detail::check(hb_scan_set_caching(handle_.get(), rows));
    return *this;
  }
  /// Descending key order (start_row is then the highest key).
  Scan& reversed() {
    detail::check(hb_scan_set_reversed(handle_.get()));
    return *this;
  }
  Scan& max_versions(std::uint32_t n) {
    detail::check(hb_scan_set_max_versions(handle_.get(), n));
    return *this;
  }
  Scan& time_range(std::uint64_t from_ms, std::uint64_t to_ms) {
    detail::check(hb_scan_set_time_range(handle_.get(), from_ms, to_ms));
    return *this;
  }
  Scan& prefix(std::string_view p) {
    detail::check(hb_scan_set_prefix(handle_.get(), p.data(), p.size()));
    return *this;
  }
  /// At most `cells` cells per result (wide rows come back in parts).
  Scan& batch(std::uint32_t cells) {
    detail::check(hb_scan_set_batch(handle_.get(), cells));
    return *this;
  }
  Scan& max_result_size(std::uint64_t bytes) {
    detail::check(hb_scan_set_max_result_size(handle_.get(), bytes));
    return *this;
  }
  Scan& filter(const Filter& f) {
    detail::check(hb_scan_set_filter(handle_.get(), f.get()));
    return *this;
  }
  /// Read consistency of each region's scanner; Timeline rows may be stale().
  Scan& consistency(Consistency c) {
    detail::check(hb_scan_set_consistency(handle_.get(), static_cast<std::uint32_t>(c)));
    return *this;
  }
  /// QoS priority of the scan's RPCs (RequestHeader.priority), e.g. kHighPriority.
  Scan& priority(std::uint32_t p) {
    detail::check(hb_scan_set_priority(handle_.get(), p));
    return *this;
  }
  /// An operation attribute sent inside the scan (Java's setAttribute).
  Scan& attribute(const std::string& name, std::string_view value) {
    detail::check(hb_scan_set_attribute(handle_.get(), name.c_str(), value.data(),
                                              value.size()));
    return *this;
  }
  const hb_scan* get() const noexcept { return handle_.get(); }

 private:
  detail::Handle<hb_scan, hb_scan_free> handle_;
};

/// An open scan; `next()` returns rows until nullopt (an error throws, also on later calls).
/// Also an input range: `for (const Result& row : scanner)`; each row is visited once.
class Scanner {
 public:
  explicit Scanner(hb_scanner* s) : handle_(s) {}

  /// Input iterator over the remaining rows; equal to end() once the scan is over.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Result;
    using difference_type = std::ptrdiff_t;
    using pointer = const Result*;
    using reference = const Result&;
    iterator() = default;
    reference operator*() const { return *row_; }
    pointer operator->() const { return &*row_; }
    iterator& operator++() {
      row_ = scanner_->next();
      if (!row_) scanner_ = nullptr;
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.scanner_ == b.scanner_;
    }
    friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

   private:
    friend class Scanner;
    explicit iterator(Scanner* s) : scanner_(s) { ++*this; }
    Scanner* scanner_ = nullptr;
    std::optional<Result> row_;
  };
  iterator begin() { return iterator(this); }
  iterator end() noexcept { return iterator(); }

  std::optional<Result> next() {
    hb_result* r = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_scanner_next(handle_.get(), &r, &err);
    detail::check(st, err);
    if (r == nullptr) return std::nullopt;
    return Result::adopt(r);
  }

  /// Asks for the next batch without blocking (hb_scanner_next_async): the Future completes
  /// with up to `max_rows` rows, read with take_batch_result() / batch_result() and
  /// BatchResult::row(i); an empty batch means the scan ended; a failed scan throws its Error
  /// (again on every later request). Requests are served in the order they were made; a
  /// callback (on_complete) may ask for the next batch. The Scanner must outlive the requests
  /// it makes through its callbacks.
  Future next_async(std::size_t max_rows = 100) {
    return Future(hb_scanner_next_async(handle_.get(), max_rows));
  }
  /// next_async as a std::future of the batch.
  std::future<BatchResult> next_batch(std::size_t max_rows = 100) {
    return next_async(max_rows).batch_result();
  }

 private:
  detail::Handle<hb_scanner, hb_scanner_free> handle_;
};

/// Reads and writes of one table; thread-safe.
class Table {
 public:
  explicit Table(hb_table* t) : handle_(t) {}
  void put(const Put& p) const {
    hb_error* err = nullptr;
    hb_status st = hb_table_put(handle_.get(), p.get(), &err);
    detail::check(st, err);
  }
  Result get(const Get& g) const {
    hb_result* r = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_table_get(handle_.get(), g.get(), &r, &err);
    detail::check(st, err);
    return Result::adopt(r);
  }
  void remove(const Delete& d) const {
    hb_error* err = nullptr;
    hb_status st = hb_table_delete(handle_.get(), d.get(), &err);
    detail::check(st, err);
  }
  /// Adds delta to the 8-byte counter family:qualifier of row; returns the new value.
  std::int64_t increment(std::string_view row, std::string_view family, std::string_view qualifier,
                         std::int64_t delta) const {
    std::int64_t value = 0;
    hb_error* err = nullptr;
    hb_status st = hb_table_increment(handle_.get(), row.data(), row.size(), family.data(),
                                      family.size(), qualifier.data(), qualifier.size(), delta,
                                      &value, &err);
    detail::check(st, err);
    return value;
  }
  /// Writes p only if family:qualifier of its row equals *expected (std::nullopt: is absent;
  /// an empty, non-null string_view: holds an empty value); returns whether it was written. Check and write are one atomic step on the server.
  bool check_and_put(std::string_view family, std::string_view qualifier,
                     std::optional<std::string_view> expected, const Put& p) const {
    return conditional(hb_table_check_and_put, family, qualifier, expected, p.get());
  }
  /// Deletes d only if family:qualifier of its row equals *expected (std::nullopt: is absent).
  bool check_and_remove(std::string_view family, std::string_view qualifier,
                        std::optional<std::string_view> expected, const Delete& d) const {
    return conditional(hb_table_check_and_delete, family, qualifier, expected, d.get());
  }
  BatchResult batch(const Batch& b) const {
    hb_batch_result* r = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_table_batch(handle_.get(), b.get(), &r, &err);
    detail::check(st, err);
    return BatchResult(r);
  }
  Future put_async(const Put& p) const { return Future(hb_table_put_async(handle_.get(), p.get())); }
  Future get_async(const Get& g) const { return Future(hb_table_get_async(handle_.get(), g.get())); }
  Future remove_async(const Delete& d) const {
    return Future(hb_table_delete_async(handle_.get(), d.get()));
  }
  Future batch_async(const Batch& b) const {
    return Future(hb_table_batch_async(handle_.get(), b.get()));
  }
  /// Whether the row of g has any cell matching it.
  bool exists(const Get& g) const {
    bool found = false;
    hb_error* err = nullptr;
    hb_status st = hb_table_exists(handle_.get(), g.get(), &found, &err);
    detail::check(st, err);
    return found;
  }
  /// Appends atomically; returns the new values of the appended columns.
  Result append(const Append& a) const {
    hb_result* r = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_table_append(handle_.get(), a.get(), &r, &err);
    detail::check(st, err);
    return Result::adopt(r);
  }
  Future append_async(const Append& a) const {
    return Future(hb_table_append_async(handle_.get(), a.get()));
  }
  /// Applies m atomically.
  void mutate_row(const RowMutations& m) const {
    hb_error* err = nullptr;
    hb_status st = hb_table_mutate_row(handle_.get(), m.get(), &err);
    detail::check(st, err);
  }
  /// Applies m atomically if c holds; returns whether it did.
  bool check_and_mutate(const Check& c, const RowMutations& m) const {
    bool applied = false;
    hb_error* err = nullptr;
    hb_status st = hb_table_check_and_mutate(handle_.get(), c.get(), m.get(), &applied, &err);
    detail::check(st, err);
    return applied;
  }
  Future increment_async(std::string_view row, std::string_view family,
                         std::string_view qualifier, std::int64_t delta) const {
    return Future(hb_table_increment_async(handle_.get(), row.data(), row.size(), family.data(),
                                           family.size(), qualifier.data(), qualifier.size(),
                                           delta));
  }
  Future check_and_mutate_async(const Check& c, const RowMutations& m) const {
    return Future(hb_table_check_and_mutate_async(handle_.get(), c.get(), m.get()));
  }
  /// The same table with every operation bounded by `timeout` (Error HB_ERR_TIMEOUT after it).
  Table with_timeout(std::chrono::milliseconds timeout) const {
    hb_table* t = nullptr;
    detail::check(
        hb_table_with_timeout(handle_.get(), static_cast<std::uint64_t>(timeout.count()), &t));
    return Table(t);
  }
  /// The same table with every RPC also carrying a request attribute (HBase 2.6+; Java's
  /// TableBuilder.setRequestAttribute). This handle is unchanged.
  Table with_request_attribute(const std::string& name, std::string_view value) const {
    hb_table* t = nullptr;
    detail::check(hb_table_with_request_attribute(handle_.get(), name.c_str(), value.data(),
                                                  value.size(), &t));
    return Table(t);
  }
  Scanner scanner(const Scan& s) const {
    hb_scanner* sc = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_table_scanner(handle_.get(), s.get(), &sc, &err);
    detail::check(st, err);
    return Scanner(sc);
  }
  const hb_table* get() const noexcept { return handle_.get(); }

 private:
  /// The shared body of check_and_put / check_and_remove: `op` is the C export.
  template <class Mutation>
  bool conditional(hb_status (*op)(const hb_table*, const void*, size_t, const void*, size_t,
                                   const void*, size_t, const Mutation*, bool*, hb_error**),
                   std::string_view family, std::string_view qualifier,
                   std::optional<std::string_view> expected, const Mutation* m) const {
    bool applied = false;
    hb_error* err = nullptr;
    std::string_view want = expected.value_or(std::string_view());
    hb_status st = op(handle_.get(), family.data(), family.size(), qualifier.data(),
                      qualifier.size(), want.data(), want.size(), m, &applied, &err);
    detail::check(st, err);
    return applied;
  }

  detail::Handle<hb_table, hb_table_free> handle_;
};

/// Buffered writes to one table. close() reports failures; the destructor closes quietly.
class Mutator {
 public:
  explicit Mutator(hb_mutator* m) : m_(m) {}
  Mutator(Mutator&& o) noexcept : m_(std::exchange(o.m_, nullptr)) {}
  Mutator& operator=(Mutator&& o) noexcept {
    if (this != &o) {
      quiet_close();
      m_ = std::exchange(o.m_, nullptr);
    }
    return *this;
  }
  Mutator(const Mutator&) = delete;
  Mutator& operator=(const Mutator&) = delete;
  ~Mutator() { quiet_close(); }

  void put(const Put& p) {
    hb_error* err = nullptr;
    hb_status st = hb_mutator_put(m_, p.get(), &err);
    detail::check(st, err);
  }
  void remove(const Delete& d) {
    hb_error* err = nullptr;
    hb_status st = hb_mutator_delete(m_, d.get(), &err);
    detail::check(st, err);
  }
  /// Writes everything buffered; throws for mutations that failed.
  void flush() {
    hb_error* err = nullptr;
    hb_status st = hb_mutator_flush(m_, &err);
    detail::check(st, err);
  }
  /// Flushes and closes; throws for mutations that failed. The mutator is closed either way.
  void close() {
    hb_error* err = nullptr;
    hb_status st = hb_mutator_close(std::exchange(m_, nullptr), &err);
    detail::check(st, err);
  }

 private:
  void quiet_close() noexcept {
    if (m_ != nullptr) {
      hb_error* err = nullptr;
      hb_mutator_close(std::exchange(m_, nullptr), &err);
      hb_error_free(err);
    }
  }
  hb_mutator* m_;
};

/// One column family as hb_admin_describe_table reports it.
struct FamilyDescription {
  std::string name;
  std::uint32_t max_versions = 1;
  /// Seconds cells live; 0 = forever.
  std::uint64_t ttl_secs = 0;
  /// As HBase names it: NONE, SNAPPY, GZ, LZ4, ZSTD...
  std::string compression;
  /// NONE, ROW, ROWCOL...
  std::string bloom_filter;
};

/// A table as hb_admin_describe_table reports it.
struct TableDescription {
  std::string name;
  bool enabled = false;
  std::vector<FamilyDescription> families;
  /// The keys between regions (region count = split_keys.size() + 1).
  std::vector<std::string> split_keys;
};

/// A connection to one cluster; thread-safe. Share one per process.
class Connection {
 public:
  explicit Connection(const Config& config) {
    hb_connection* c = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_connection_open(config.get(), &c, &err);
    detail::check(st, err);
    handle_.reset(c);
  }
  Table table(std::string_view name) const {
    std::string n(name);
    hb_table* t = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_table_open(handle_.get(), n.c_str(), &t, &err);
    detail::check(st, err);
    return Table(t);
  }
  Mutator mutator(std::string_view table) const {
    std::string n(table);
    hb_mutator* m = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_mutator_open(handle_.get(), n.c_str(), &m, &err);
    detail::check(st, err);
    return Mutator(m);
  }
  /// Creates a table with the given families, pre-split at split_keys.
  void create_table(std::string_view name, const std::vector<std::string>& families,
                    const std::vector<std::string>& split_keys = {}) const {
    std::string n(name);
    std::vector<const char*> fams;
    for (const std::string& f : families) fams.push_back(f.c_str());
    std::vector<const void*> keys;
    std::vector<std::size_t> lens;
    for (const std::string& k : split_keys) {
      keys.push_back(k.data());
      lens.push_back(k.size());
    }
    hb_error* err = nullptr;
    hb_status st = hb_admin_create_table(handle_.get(), n.c_str(), fams.data(), fams.size(),
                                         keys.data(), lens.data(), keys.size(), &err);
    detail::check(st, err);
  }
  void delete_table(std::string_view name) const { by_name(hb_admin_delete_table, name); }
  void enable_table(std::string_view name) const { by_name(hb_admin_enable_table, name); }
  void disable_table(std::string_view name) const { by_name(hb_admin_disable_table, name); }
  bool table_exists(std::string_view name) const {
    std::string n(name);
    bool exists = false;
    hb_error* err = nullptr;
    hb_status st = hb_admin_table_exists(handle_.get(), n.c_str(), &exists, &err);
    detail::check(st, err);
    return exists;
  }
  std::vector<std::string> list_tables() const { return names_of(hb_admin_list_tables); }
  /// The table's families (versions, TTL, compression, bloom filter), state and split keys.
  TableDescription describe_table(std::string_view name) const {
    std::string n(name);
    hb_table_descriptor* d = nullptr;
    hb_error* err = nullptr;
    hb_status st = hb_admin_describe_table(handle_.get(), n.c_str(), &d, &err);
    detail::check(st, err);
    detail::Handle<hb_table_descriptor, hb_table_descriptor_free> owned(d);
    TableDescription out;
    out.name = hb_table_descriptor_name(d);
    out.enabled = hb_table_descriptor_is_enabled(d);
    for (std::size_t i = 0; i < hb_table_descriptor_family_count(d); i++) {
      const hb_family_descriptor* f = hb_table_descriptor_family(d, i);
      const std::uint8_t* p = nullptr;
      std::size_t len = 0;
      detail::check(hb_family_descriptor_name(f, &p, &len));
      out.families.push_back(FamilyDescription{
          std::string(detail::view(p, len)), hb_family_descriptor_max_versions(f),
          hb_family_descriptor_ttl_secs(f), hb_family_descriptor_compression(f),
          hb_family_descriptor_bloom_filter(f)});
    }
    for (std::size_t i = 0; i + 1 < hb_table_descriptor_region_count(d); i++) {
      const std::uint8_t* p = nullptr;
      std::size_t len = 0;
      detail::check(hb_table_descriptor_split_key(d, i, &p, &len));
      out.split_keys.emplace_back(detail::view(p, len));
    }
    return out;
  }
  void create_namespace(std::string_view name) const { by_name(hb_admin_create_namespace, name); }
  /// Deletes an empty namespace.
  void delete_namespace(std::string_view name) const { by_name(hb_admin_delete_namespace, name); }
  std::vector<std::string> list_namespaces() const {
    return names_of(hb_admin_list_namespaces);
  }
  /// A counter by name ("rpcs", "rpcs.Get", "bytes_out", ...: see hb_connection_metric).
  std::uint64_t metric(std::string_view name) const {
    std::string n(name);
    std::uint64_t value = 0;
    detail::check(hb_connection_metric(handle_.get(), n.c_str(), &value));
    return value;
  }
  /// Closes the connection now (the destructor does it otherwise); returns once its I/O has
  /// stopped.
  void close() noexcept { handle_.reset(); }
  const hb_connection* get() const noexcept { return handle_.get(); }

 private:
  void by_name(hb_status (*op)(const hb_connection*, const char*, hb_error**),
               std::string_view name) const {
    std::string n(name);
    hb_error* err = nullptr;
    hb_status st = op(handle_.get(), n.c_str(), &err);
    detail::check(st, err);
  }
  std::vector<std::string> names_of(hb_status (*op)(const hb_connection*, hb_table_names**,
                                                     hb_error**)) const {
    hb_table_names* names = nullptr;
    hb_error* err = nullptr;
    hb_status st = op(handle_.get(), &names, &err);
    detail::check(st, err);
    detail::Handle<hb_table_names, hb_table_names_free> owned(names);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < hb_table_names_count(names); i++) {
      out.emplace_back(hb_table_names_get(names, i));
    }
    return out;
  }
  detail::Handle<hb_connection, hb_connection_close> handle_;
};

/// Sizes the library's threads (0 = default); call before the first Connection.
inline void init(std::uint32_t io_threads, std::uint32_t callback_threads) {
  hb_error* err = nullptr;
  hb_status st = hb_library_init(io_threads, callback_threads, &err);
  detail::check(st, err);
}

/// Stops every library thread (closing connections still open); call before exit, not from a
/// callback.
inline void shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  hb_error* err = nullptr;
  hb_status st = hb_library_shutdown(static_cast<std::uint64_t>(timeout.count()), &err);
  detail::check(st, err);
}

/// The library's version at run time.
inline std::string_view version() { return hb_version(); }

}  // namespace hbclient

#endif  // HBCLIENT_HPP
