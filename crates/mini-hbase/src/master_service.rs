//! `MasterService` on the master: table DDL, descriptors and state, procedure results, and the
//! region operations (split, move). Procedures run to completion before the call returns, so
//! `getProcedureResult` reports FINISHED on the first poll.

use bytes::Bytes;
use hbclient_proto::frame::RequestFrame;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;

use crate::call::{param, CallResult, Conn, Fail, Reply};
use crate::exception::{class, RemoteException};
use crate::state::{now_ms, Shared};

/// Serves one MasterService call.
pub(crate) async fn dispatch(conn: &Conn, method: &str, request: &RequestFrame) -> CallResult {
    let shared = &*conn.shared;
    match method {
        "IsMasterRunning" => Ok(Reply::message(pb::IsMasterRunningResponse {
            is_master_running: true,
        })),
        "CreateTable" => {
            let req: pb::CreateTableRequest = param(request, "CreateTableRequest")?;
            shared.create_table(req.table_schema, req.split_keys)?;
            Ok(proc_reply(shared, |proc_id| pb::CreateTableResponse {
                proc_id: Some(proc_id),
            }))
        }
        "DisableTable" => {
            let req: pb::DisableTableRequest = param(request, "DisableTableRequest")?;
            set_enabled(shared, &req.table_name, false)?;
            Ok(proc_reply(shared, |proc_id| pb::DisableTableResponse {
                proc_id: Some(proc_id),
            }))
        }
        "EnableTable" => {
            let req: pb::EnableTableRequest = param(request, "EnableTableRequest")?;
            set_enabled(shared, &req.table_name, true)?;
            Ok(proc_reply(shared, |proc_id| pb::EnableTableResponse {
                proc_id: Some(proc_id),
            }))
        }
        "DeleteTable" => {
            let req: pb::DeleteTableRequest = param(request, "DeleteTableRequest")?;
            delete_table(shared, &req.table_name)?;
            Ok(proc_reply(shared, |proc_id| pb::DeleteTableResponse {
                proc_id: Some(proc_id),
            }))
        }
        "truncateTable" => {
            let req: pb::TruncateTableRequest = param(request, "TruncateTableRequest")?;
            truncate_table(
                shared,
                &req.table_name,
                req.preserve_splits.unwrap_or(false),
            )?;
            Ok(proc_reply(shared, |proc_id| pb::TruncateTableResponse {
                proc_id: Some(proc_id),
            }))
        }
        "GetTableDescriptors" => {
            let req: pb::GetTableDescriptorsRequest = param(request, "GetTableDescriptorsRequest")?;
            let pattern = name_pattern(req.regex.as_deref())?;
            let catalog = shared.catalog();
            let wanted: Vec<TableName> = req.table_names.iter().map(TableName::from_pb).collect();
            let mut table_schema: Vec<pb::TableSchema> = catalog
                .tables
                .iter()
                .filter(|(name, _)| wanted.is_empty() || wanted.contains(name))
                .filter(|(name, _)| in_namespace(name, req.namespace.as_deref()))
                .filter(|(name, _)| {
                    !wanted.is_empty()
                        || listed(
                            name,
                            pattern.as_ref(),
                            req.include_sys_tables.unwrap_or(false),
                        )
                })
                .map(|(_, t)| t.schema.clone())
                .collect();
            // hbase:meta's own descriptor, when asked for by name (HBase's clients do, for its
            // REGION_REPLICATION, before reading meta replicas).
            if wanted.iter().any(TableName::is_meta) {
                let copies = 1 + shared.meta_replicas().servers.len() as u32;
                table_schema.insert(0, meta_schema(copies));
            }
            Ok(Reply::message(pb::GetTableDescriptorsResponse {
                table_schema,
            }))
        }
        "GetTableNames" => {
            let req: pb::GetTableNamesRequest = param(request, "GetTableNamesRequest")?;
            let pattern = name_pattern(req.regex.as_deref())?;
            let catalog = shared.catalog();
            let table_names = catalog
                .tables
                .keys()
                .filter(|name| in_namespace(name, req.namespace.as_deref()))
                .filter(|name| {
                    listed(
                        name,
                        pattern.as_ref(),
                        req.include_sys_tables.unwrap_or(false),
                    )
                })
                .map(TableName::to_pb)
                .collect();
            Ok(Reply::message(pb::GetTableNamesResponse { table_names }))
        }
        "GetTableState" => {
            let req: pb::GetTableStateRequest = param(request, "GetTableStateRequest")?;
            let table = TableName::from_pb(&req.table_name);
            let catalog = shared.catalog();
            let entry = catalog
                .tables
                .get(&table)
                .ok_or_else(|| not_found(&table))?;
            let state = if entry.enabled {
                pb::table_state::State::Enabled
            } else {
                pb::table_state::State::Disabled
            };
            Ok(Reply::message(pb::GetTableStateResponse {
                table_state: pb::TableState {
                    state: state as i32,
                },
            }))
        }
        "getProcedureResult" => {
            let req: pb::GetProcedureResultRequest = param(request, "GetProcedureResultRequest")?;
            Ok(Reply::message(procedure_result(shared, req.proc_id)))
        }
        "SplitRegion" => {
            let req: pb::SplitTableRegionRequest = param(request, "SplitTableRegionRequest")?;
            let name = region_name_of(&req.region_info);
            let split = match req.split_row.filter(|r| !r.is_empty()) {
                Some(row) => row,
                None => crate::state::middle_row(shared, &name).ok_or_else(|| {
                    RemoteException::new(
                        class::DO_NOT_RETRY,
                        "Region is not splittable: fewer than two rows",
                    )
                })?,
            };
            crate::state::split_region(shared, &name, &split)?;
            Ok(proc_reply(shared, |proc_id| pb::SplitTableRegionResponse {
                proc_id: Some(proc_id),
            }))
        }
        "MoveRegion" => {
            let req: pb::MoveRegionRequest = param(request, "MoveRegionRequest")?;
            move_region(shared, &req)?;
            Ok(Reply::message(pb::MoveRegionResponse {}))
        }
        "ListNamespaces" => Ok(Reply::message(pb::ListNamespacesResponse {
            namespace_name: shared
                .catalog()
                .namespace_descriptors()
                .into_iter()
                .map(|d| String::from_utf8_lossy(&d.name).into_owned())
                .collect(),
        })),
        "ListNamespaceDescriptors" => Ok(Reply::message(pb::ListNamespaceDescriptorsResponse {
            namespace_descriptor: shared.catalog().namespace_descriptors(),
        })),
        "GetNamespaceDescriptor" => {
            let req: pb::GetNamespaceDescriptorRequest =
                param(request, "GetNamespaceDescriptorRequest")?;
            let namespace_descriptor = shared
                .catalog()
                .namespace_descriptors()
                .into_iter()
                .find(|d| d.name[..] == *req.namespace_name.as_bytes())
                .ok_or_else(|| namespace_not_found(&req.namespace_name))?;
            Ok(Reply::message(pb::GetNamespaceDescriptorResponse {
                namespace_descriptor,
            }))
        }
        // Namespace DDL is a procedure on HBase 2.6, but HMaster waits for its prepare step
        // (a blocking latch, HBASE-19953), so a prepare failure is the call's own error.
        "CreateNamespace" => {
            let req: pb::CreateNamespaceRequest = param(request, "CreateNamespaceRequest")?;
            check_namespace_name(&req.namespace_descriptor.name)?;
            create_namespace(shared, req.namespace_descriptor)?;
            Ok(proc_reply(shared, |proc_id| pb::CreateNamespaceResponse {
                proc_id: Some(proc_id),
            }))
        }
        "ModifyNamespace" => {
            let req: pb::ModifyNamespaceRequest = param(request, "ModifyNamespaceRequest")?;
            modify_namespace(shared, req.namespace_descriptor)?;
            Ok(proc_reply(shared, |proc_id| pb::ModifyNamespaceResponse {
                proc_id: Some(proc_id),
            }))
        }
        "DeleteNamespace" => {
            let req: pb::DeleteNamespaceRequest = param(request, "DeleteNamespaceRequest")?;
            delete_namespace(shared, &req.namespace_name)?;
            Ok(proc_reply(shared, |proc_id| pb::DeleteNamespaceResponse {
                proc_id: Some(proc_id),
            }))
        }
        "ListTableNamesByNamespace" => {
            let req: pb::ListTableNamesByNamespaceRequest =
                param(request, "ListTableNamesByNamespaceRequest")?;
            let catalog = shared.catalog();
            if !catalog.has_namespace(req.namespace_name.as_bytes()) {
                return Err(namespace_not_found(&req.namespace_name).into());
            }
            let table_name = catalog
                .tables
                .keys()
                .filter(|name| name.namespace()[..] == *req.namespace_name.as_bytes())
                .map(TableName::to_pb)
                .collect();
            Ok(Reply::message(pb::ListTableNamesByNamespaceResponse {
                table_name,
            }))
        }
        "ListTableDescriptorsByNamespace" => {
            let req: pb::ListTableDescriptorsByNamespaceRequest =
                param(request, "ListTableDescriptorsByNamespaceRequest")?;
            let catalog = shared.catalog();
            if !catalog.has_namespace(req.namespace_name.as_bytes()) {
                return Err(namespace_not_found(&req.namespace_name).into());
            }
            let table_schema: Vec<pb::TableSchema> = catalog
                .tables
                .iter()
                .filter(|(name, _)| name.namespace()[..] == *req.namespace_name.as_bytes())
                .map(|(_, t)| t.schema.clone())
                .collect();
            Ok(Reply::message(
                pb::ListTableDescriptorsByNamespaceResponse { table_schema },
            ))
        }
        "FlushTable" => {
            // HBase 2.6's Admin.flush(table) goes here first (then, on an unknown-method
            // answer, to the older ExecProcedure("flush-table-proc")).
            let req: pb::FlushTableRequest = param(request, "FlushTableRequest")?;
            flush_table(shared, &req)?;
            Ok(proc_reply(shared, |proc_id| pb::FlushTableResponse {
                proc_id: Some(proc_id),
            }))
        }
        _ => Err(RemoteException::unsupported_method(
            hbclient_proto::services::MASTER_SERVICE,
            method,
        )
        .into()),
    }
}

fn in_namespace(table: &TableName, namespace: Option<&str>) -> bool {
    namespace.is_none_or(|ns| ns.is_empty() || table.namespace()[..] == *ns.as_bytes())
}

fn namespace_not_found(name: &str) -> RemoteException {
    RemoteException::new(class::NAMESPACE_NOT_FOUND, name)
}

/// HBase's `TableName.isLegalNamespaceName`, which HMaster checks before it starts the
/// procedure (so its error is the call's): letters, digits and `_`, not "zookeeper".
fn check_namespace_name(name: &[u8]) -> Result<(), RemoteException> {
    let illegal =
        |message: String| RemoteException::new("java.lang.IllegalArgumentException", message);
    if name.is_empty() {
        return Err(illegal("Namespace name must not be empty".into()));
    }
    let text = String::from_utf8_lossy(name);
    if text == "zookeeper" {
        return Err(illegal("Tables may not be named 'zookeeper'".into()));
    }
    match text
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
    {
        Some((i, c)) => Err(illegal(format!(
            "Illegal character <{c}> at {i}. Namespaces may only contain 'alphanumeric characters' from any language and digits: {text}"
        ))),
        None => Ok(()),
    }
}

fn create_namespace(shared: &Shared, desc: pb::NamespaceDescriptor) -> Result<(), RemoteException> {
    let name = String::from_utf8_lossy(&desc.name).into_owned();
    let mut catalog = shared.catalog_mut();
    if catalog.has_namespace(&desc.name) {
        return Err(RemoteException::new(class::NAMESPACE_EXIST, name));
    }
    catalog.namespaces.insert(name, desc.configuration);
    Ok(())
}

fn modify_namespace(shared: &Shared, desc: pb::NamespaceDescriptor) -> Result<(), RemoteException> {
    let name = String::from_utf8_lossy(&desc.name).into_owned();
    let mut catalog = shared.catalog_mut();
    if !catalog.has_namespace(&desc.name) {
        return Err(namespace_not_found(&name));
    }
    if let Some(conf) = catalog.namespaces.get_mut(&name) {
        *conf = desc.configuration;
    }
    Ok(())
}

fn delete_namespace(shared: &Shared, name: &str) -> Result<(), RemoteException> {
    let mut catalog = shared.catalog_mut();
    if !catalog.has_namespace(name.as_bytes()) {
        return Err(namespace_not_found(name));
    }
    if crate::catalog::BUILT_IN_NAMESPACES.contains(&name) {
        return Err(RemoteException::new(
            class::CONSTRAINT,
            format!("Reserved namespace {name} cannot be removed."),
        ));
    }
    let tables = catalog
        .tables
        .keys()
        .filter(|t| t.namespace()[..] == *name.as_bytes())
        .count();
    if tables > 0 {
        return Err(RemoteException::new(
            class::CONSTRAINT,
            format!("Only empty namespaces can be removed. Namespace {name} has {tables} tables"),
        ));
    }
    catalog.namespaces.remove(name);
    Ok(())
}

/// Flushes every region of an enabled table (the in-memory store has nothing to write, but the
/// checks are HBase's).
fn flush_table(shared: &Shared, req: &pb::FlushTableRequest) -> Result<(), RemoteException> {
    let table = TableName::from_pb(&req.table_name);
    let catalog = shared.catalog();
    let entry = catalog
        .tables
        .get(&table)
        .ok_or_else(|| not_found(&table))?;
    if !entry.enabled {
        return Err(RemoteException::new(
            class::TABLE_NOT_ENABLED,
            table.to_string(),
        ));
    }
    for placement in catalog.table_regions(&table) {
        if let Ok(mut data) = placement.region.lock_open() {
            data.store.flush();
        }
    }
    Ok(())
}

fn not_found(table: &TableName) -> RemoteException {
    RemoteException::new(class::TABLE_NOT_FOUND, table.to_string())
}

/// Records a finished procedure and wraps its id in the response.
fn proc_reply<M: prost::Message + 'static>(shared: &Shared, make: impl FnOnce(u64) -> M) -> Reply {
    Reply::message(make(shared.finish_procedure(None)))
}

fn procedure_result(shared: &Shared, proc_id: u64) -> pb::GetProcedureResultResponse {
    use pb::get_procedure_result_response::State;
    let procedures = shared.procedures.lock().unwrap_or_else(|e| e.into_inner());
    let now = now_ms();
    match procedures.get(&proc_id) {
        None => pb::GetProcedureResultResponse {
            state: State::NotFound as i32,
            ..Default::default()
        },
        Some(outcome) => pb::GetProcedureResultResponse {
            state: State::Finished as i32,
            submitted_time: Some(now),
            last_update: Some(now),
            result: None,
            exception: outcome.as_ref().map(|e| pb::ForeignExceptionMessage {
                source: Some("mini-hbase".into()),
                generic_exception: Some(pb::GenericExceptionMessage {
                    class_name: Some(e.class.clone()),
                    message: Some(e.message.clone()),
                    error_info: None,
                    trace: Vec::new(),
                }),
            }),
        },
    }
}

fn set_enabled(
    shared: &Shared,
    table: &pb::TableName,
    enabled: bool,
) -> Result<(), RemoteException> {
    let table = TableName::from_pb(table);
    let mut catalog = shared.catalog_mut();
    let entry = catalog
        .tables
        .get_mut(&table)
        .ok_or_else(|| not_found(&table))?;
    if entry.enabled == enabled {
        let class = if enabled {
            class::TABLE_NOT_DISABLED
        } else {
            class::TABLE_NOT_ENABLED
        };
        return Err(RemoteException::new(class, table.to_string()));
    }
    entry.enabled = enabled;
    Ok(())
}

fn delete_table(shared: &Shared, table: &pb::TableName) -> Result<(), RemoteException> {
    let table = TableName::from_pb(table);
    let mut catalog = shared.catalog_mut();
    let entry = catalog
        .tables
        .get(&table)
        .ok_or_else(|| not_found(&table))?;
    if entry.enabled {
        return Err(RemoteException::new(
            class::TABLE_NOT_DISABLED,
            table.to_string(),
        ));
    }
    let names: Vec<Bytes> = catalog
        .table_regions(&table)
        .iter()
        .map(|p| p.region.name.clone())
        .collect();
    for name in names {
        catalog.retire_region(&name);
    }
    catalog.tables.remove(&table);
    Ok(())
}

fn truncate_table(
    shared: &Shared,
    table_pb: &pb::TableName,
    preserve_splits: bool,
) -> Result<(), RemoteException> {
    let table = TableName::from_pb(table_pb);
    let (schema, splits) = {
        let catalog = shared.catalog();
        let entry = catalog
            .tables
            .get(&table)
            .ok_or_else(|| not_found(&table))?;
        if entry.enabled {
            return Err(RemoteException::new(
                class::TABLE_NOT_DISABLED,
                table.to_string(),
            ));
        }
        let splits: Vec<Bytes> = if preserve_splits {
            catalog
                .table_regions(&table)
                .iter()
                .skip(1)
                .map(|p| p.region.start.clone())
                .collect()
        } else {
            Vec::new()
        };
        (entry.schema.clone(), splits)
    };
    delete_table(shared, table_pb)?;
    shared.create_table(schema, splits)
}

/// The full region name of a RegionInfo (as the master would find it in meta).
fn region_name_of(info: &pb::RegionInfo) -> Bytes {
    hbclient_proto::meta::region_name(
        &TableName::from_pb(&info.table_name),
        info.start_key.as_deref().unwrap_or_default(),
        info.region_id,
        info.replica_id.unwrap_or(0).max(0) as u32,
    )
}

fn move_region(shared: &Shared, req: &pb::MoveRegionRequest) -> Result<(), RemoteException> {
    let (name, from) = {
        let catalog = shared.catalog();
        let placement = catalog.find(&req.region).ok_or_else(|| {
            RemoteException::new(
                "org.apache.hadoop.hbase.UnknownRegionException",
                String::from_utf8_lossy(&req.region.value).into_owned(),
            )
        })?;
        (placement.region.name.clone(), placement.server)
    };
    let running = |i: &usize| shared.region_servers[*i].is_running();
    let to = match &req.dest_server_name {
        Some(dest) => shared
            .region_servers
            .iter()
            .position(|s| {
                s.addr.ip().to_string() == dest.host_name
                    && u32::from(s.addr.port()) == dest.port.unwrap_or(0)
            })
            .ok_or_else(|| {
                RemoteException::new(
                    class::DO_NOT_RETRY,
                    format!(
                        "unknown destination server {}:{}",
                        dest.host_name,
                        dest.port.unwrap_or(0)
                    ),
                )
            })?,
        None => (0..shared.region_servers.len())
            .filter(running)
            .find(|&i| i != from)
            .unwrap_or(from),
    };
    shared.catalog_mut().move_region(&name, to)
}

/// The `regex` of a table listing, compiled to match whole names (Java `Matcher.matches`).
fn name_pattern(regex: Option<&str>) -> Result<Option<regex::Regex>, Fail> {
    regex
        .filter(|r| !r.is_empty())
        .map(|r| {
            regex::Regex::new(&format!("^(?:{r})$")).map_err(|e| {
                Fail::Exception(RemoteException::new(
                    class::DO_NOT_RETRY,
                    format!("java.util.regex.PatternSyntaxException: {e}"),
                ))
            })
        })
        .transpose()
}

/// Whether a table shows in a listing (HBase 2.6.4: system tables only when asked for; the
/// pattern matches the name as `Admin.listTableNames` prints it, `ns:table` outside `default`).
fn listed(name: &TableName, pattern: Option<&regex::Regex>, include_sys_tables: bool) -> bool {
    if &name.namespace()[..] == b"hbase" && !include_sys_tables {
        return false;
    }
    pattern.is_none_or(|p| p.is_match(&name.to_string()))
}

/// hbase:meta's descriptor as HBase 2.6.4 answers it (hbase-diff scenario
/// `master/get-table-descriptors/meta-by-name`), with `REGION_REPLICATION` when it has replicas.
fn meta_schema(copies: u32) -> pb::TableSchema {
    let pair = |k: &str, v: &str| pb::BytesBytesPair {
        first: Bytes::copy_from_slice(k.as_bytes()),
        second: Bytes::copy_from_slice(v.as_bytes()),
    };
    let family = |name: &'static str, versions: &str, blocksize: &str| pb::ColumnFamilySchema {
        name: Bytes::from_static(name.as_bytes()),
        attributes: [
            ("INDEX_BLOCK_ENCODING", "NONE"),
            ("VERSIONS", versions),
            ("KEEP_DELETED_CELLS", "FALSE"),
            ("DATA_BLOCK_ENCODING", "ROW_INDEX_V1"),
            ("TTL", "2147483647"),
            ("MIN_VERSIONS", "0"),
            ("REPLICATION_SCOPE", "0"),
            ("BLOOMFILTER", "ROWCOL"),
            ("IN_MEMORY", "true"),
            ("COMPRESSION", "NONE"),
            ("BLOCKCACHE", "true"),
            ("BLOCKSIZE", blocksize),
        ]
        .into_iter()
        .map(|(k, v)| pair(k, v))
        .collect(),
        configuration: Vec::new(),
    };
    let mut attributes = vec![
        pair("IS_META", "true"),
        pair(
            "coprocessor$1",
            "|org.apache.hadoop.hbase.coprocessor.MultiRowMutationEndpoint|536870911|",
        ),
        pair("hbase.store.file-tracker.impl", "DEFAULT"),
    ];
    if copies > 1 {
        attributes.push(pair("REGION_REPLICATION", &copies.to_string()));
    }
    pb::TableSchema {
        table_name: Some(TableName::meta().to_pb()),
        attributes,
        column_families: vec![
            family("info", "3", "8192"),
            family("rep_barrier", "2147483647", "65536"),
            family("table", "3", "8192"),
        ],
        configuration: Vec::new(),
    }
}
